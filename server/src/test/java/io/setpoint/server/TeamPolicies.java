package io.setpoint.server;

import static io.setpoint.server.AclFixture.deny;
import static io.setpoint.server.AclFixture.rule;
import static io.setpoint.server.AclFixture.scoped;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.v1.Resource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The policies and tokens of the two-team tests: each team may read, write and list the demo
 * types in its own namespace of partition default; the others show wildcards, prefixes, a
 * partition-wide rule and deny rules.
 */
final class TeamPolicies {
  private TeamPolicies() {}

  /** The rule of team {@code namespace}: the demo types, in default/{@code namespace} only. */
  static Rule teamRule(String namespace) {
    return scoped("demo.*.*", "default", namespace, "read", "write", "list");
  }

  static Resource policyResource(String name, Rule... rules) {
    return Resource.newBuilder().setId(Ids.of(AclTypes.POLICY, name))
        .setData(Any.pack(Policy.newBuilder().addAllRules(List.of(rules)).build())).build();
  }

  /** Writes the policies and creates the tokens; returns each token's secret by its name. */
  static Map<String, String> create(AclFixture acl) {
    Map<String, String> tokens = new HashMap<>();
    tokens.put("team-a", acl.tokenWith("team-a", "", teamRule("team-a")));
    tokens.put("team-b", acl.tokenWith("team-b", "", teamRule("team-b")));
    // Any partition, namespaces starting with team-: both teams' artists, nobody else's.
    tokens.put("teams-reader", acl.tokenWith("teams-reader", "", scoped("demo.v2.Artist", "*", "team-*", "read", "list")));
    // No namespace pattern: every namespace of partition default, and its partition-scoped types.
    tokens.put("partition-ops", acl.tokenWith("partition-ops", "", scoped("demo.*.*", "default", "", "read", "write", "list")));
    // Deny beats allow across policies: artists everywhere, but nothing in namespace team-b.
    acl.policy("all-artists", "", rule("demo.v2.Artist", "", "read", "write", "list"));
    acl.policy("no-team-b", "", deny(scoped("demo.v2.Artist", "", "team-b", "read", "write", "list")));
    tokens.put("not-b", acl.token("not-b", "all-artists", "no-team-b"));
    // Deny beats allow in one policy, by name: reads and lists artists, but no name starting with d.
    tokens.put("read-not-d", acl.tokenWith("read-not-d", "",
        rule("demo.v2.Artist", "", "read", "list"), deny(rule("demo.v2.Artist", "d", "read"))));
    // Lists in team-a only, reads everywhere: a listing shows only what it may both list and read.
    tokens.put("list-a-read-all", acl.tokenWith("list-a-read-all", "",
        scoped("demo.v2.Artist", "default", "team-a", "list"), rule("demo.v2.Artist", "", "read")));
    tokens.put("management", acl.management());
    return tokens;
  }
}
