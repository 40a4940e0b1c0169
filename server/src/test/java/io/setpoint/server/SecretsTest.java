package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.setpoint.api.Types;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SecretsTest {
  @Test
  void secretsCarry256RandomBitsBehindAPrefix() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      String secret = Secrets.generate();
      assertThat(secret).startsWith("spt_");
      assertThat(Base64.getUrlDecoder().decode(secret.substring(4))).hasSize(32);
      assertThat(seen.add(secret)).isTrue();
    }
  }

  @Test
  void hashIsLowercaseHexSha256() {
    // The FIPS 180-2 test vector for "abc".
    assertThat(Secrets.hash("abc")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(Secrets.isHash(Secrets.hash("abc"))).isTrue();
    assertThat(Secrets.isHash("spt_abc")).isFalse();
    assertThat(Secrets.isHash(Secrets.hash("abc").toUpperCase())).isFalse();
  }

  @Test
  void typePatternsMatchWholeParts() {
    assertThat(TypePattern.parse("demo.*.*").matches(Types.of("demo", "v2", "Artist"))).isTrue();
    assertThat(TypePattern.parse("*.*.*").matches(Types.of("acl", "v1", "Token"))).isTrue();
    assertThat(TypePattern.parse("demo.v2.Artist").matches(Types.of("demo", "v2", "Album"))).isFalse();
    assertThat(TypePattern.parse("demo.*.Artist").matches(Types.of("demo", "v1", "Artist"))).isTrue();
    assertThatThrownBy(() -> TypePattern.parse("demo.v*.Artist")).hasMessageContaining("group version \"v*\" must be *");
    assertThatThrownBy(() -> TypePattern.parse("demo")).hasMessageContaining("must be group.version.Kind");
  }
}
