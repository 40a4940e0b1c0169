package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Tenancy;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which tenancies a rule's patterns reach: {@code overlaps} (allow rules, and deny rules on one
 * resource) and {@code covers} (deny rules on a listing), for concrete tenancies and listings with
 * wildcards, in each scope ({@code -} for a level the type does not have).
 */
class TenancyPatternTest {
  @ParameterizedTest(name = "rule {0}/{1} on {2}/{3}: overlaps {4}, covers {5}")
  @CsvSource(delimiter = '|', nullValues = "null", textBlock = """
      ''       | ''      | default | team-a  | true  | true
      ''       | ''      | -       | -       | true  | true
      ''       | ''      | *       | *       | true  | true
      default  | team-a  | default | team-a  | true  | true
      default  | team-a  | default | team-b  | false | false
      default  | team-a  | other   | team-a  | false | false
      default  | team-a  | *       | *       | true  | false
      default  | team-a  | default | *       | true  | false
      default  | team-a  | *       | team-a  | true  | false
      default  | team-a  | other   | *       | false | false
      default  | team-a  | default | -       | false | false
      default  | team-a  | -       | -       | false | false
      default  | ''      | default | -       | true  | true
      default  | ''      | default | team-b  | true  | true
      default  | ''      | -       | -       | false | false
      default  | ''      | default | *       | true  | true
      *        | ''      | *       | *       | true  | true
      *        | *       | *       | *       | true  | true
      *        | *       | default | -       | false | false
      *        | team-*  | x       | team-a  | true  | true
      *        | team-*  | x       | teams   | false | false
      *        | team-*  | x       | team-   | true  | true
      *        | team-*  | x       | *       | true  | false
      ''       | team-b  | *       | team-b  | true  | true
      ''       | team-b  | *       | *       | true  | false
      """)
  void reaches(String partition, String namespace, String onPartition, String onNamespace, boolean overlaps, boolean covers) {
    TenancyPattern pattern = new TenancyPattern(partition, namespace);
    Tenancy tenancy = Tenancies.of(level(onPartition), level(onNamespace));
    assertThat(pattern.overlaps(tenancy)).as("overlaps").isEqualTo(overlaps);
    assertThat(pattern.covers(tenancy)).as("covers").isEqualTo(covers);
  }

  private static String level(String value) {
    return value.equals("-") ? "" : value;
  }
}
