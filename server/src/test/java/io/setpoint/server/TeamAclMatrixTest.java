package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Any;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Album;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two teams sharing one agent, each with a policy scoped to its own namespace, plus wildcard,
 * prefix, partition-wide and deny rules: token × resource × operation → outcome, over gRPC and
 * HTTP. The expectations are written out by hand in {@link #EXPECTED}; each cell is one test per
 * transport. Lists here are in the resource's own tenancy; {@code TeamAclListTest} lists and
 * watches across tenancies.
 */
class TeamAclMatrixTest {
  @RegisterExtension static final LiveAgent live = LiveAgent.withAcls();
  private static AclFixture acl;
  private static Http http;
  private static final Map<String, String> tokens = new HashMap<>();

  /** token, type, tenancy (- for cluster-scoped), name, then read / write / list / delete. */
  private static final String EXPECTED = """
      team-a         demo.v2.Artist       default/team-a   a1     ok    ok    ok    ok
      team-a         demo.v2.Artist       default/team-b   b1     deny  deny  deny  deny
      team-a         demo.v2.Artist       default/default  d1     deny  deny  deny  deny
      team-a         demo.v2.Album        default/team-a   a1     ok    ok    ok    ok
      team-a         demo.v2.Album        default/team-b   b1     deny  deny  deny  deny
      team-a         demo.v1.RecordLabel  default          label  deny  deny  deny  deny
      team-a         demo.v1.Executive    -                boss   deny  deny  deny  deny
      team-a         acl.v1.Policy        -                team-b deny  deny  deny  deny
      team-b         demo.v2.Artist       default/team-a   a1     deny  deny  deny  deny
      team-b         demo.v2.Artist       default/team-b   b1     ok    ok    ok    ok
      team-b         demo.v2.Album        default/team-a   a1     deny  deny  deny  deny
      team-b         demo.v2.Album        default/team-b   b1     ok    ok    ok    ok
      team-b         demo.v1.RecordLabel  default          label  deny  deny  deny  deny
      teams-reader   demo.v2.Artist       default/team-a   a1     ok    deny  ok    deny
      teams-reader   demo.v2.Artist       default/team-b   b1     ok    deny  ok    deny
      teams-reader   demo.v2.Artist       default/default  d1     deny  deny  deny  deny
      teams-reader   demo.v2.Album        default/team-a   a1     deny  deny  deny  deny
      partition-ops  demo.v2.Artist       default/team-a   a1     ok    ok    ok    ok
      partition-ops  demo.v2.Artist       default/default  d1     ok    ok    ok    ok
      partition-ops  demo.v1.RecordLabel  default          label  ok    ok    ok    ok
      partition-ops  demo.v1.Executive    -                boss   deny  deny  deny  deny
      not-b          demo.v2.Artist       default/team-a   a1     ok    ok    ok    ok
      not-b          demo.v2.Artist       default/team-b   b1     deny  deny  deny  deny
      not-b          demo.v2.Artist       default/default  d1     ok    ok    ok    ok
      read-not-d     demo.v2.Artist       default/team-a   a1     ok    deny  ok    deny
      read-not-d     demo.v2.Artist       default/default  d1     deny  deny  ok    deny
      list-a-read-all  demo.v2.Artist     default/team-a   a1     ok    deny  ok    deny
      list-a-read-all  demo.v2.Artist     default/team-b   b1     ok    deny  deny  deny
      management     demo.v2.Artist       default/team-b   b1     ok    ok    ok    ok
      """;
  private static final List<String> OPERATIONS = List.of("read", "write", "list", "delete");

  @BeforeAll
  static void policiesAndTokens() {
    acl = new AclFixture(live);
    http = new Http(live.agent().port());
    tokens.putAll(TeamPolicies.create(acl));
  }

  @TestFactory
  Stream<DynamicTest> matrix() {
    List<DynamicTest> tests = new ArrayList<>();
    for (String line : EXPECTED.strip().split("\n")) {
      String[] cells = line.trim().split("\\s+");
      Type type = Types.parse(cells[1]);
      Tenancy tenancy = tenancy(cells[2]);
      for (int op = 0; op < OPERATIONS.size(); op++) {
        String operation = OPERATIONS.get(op);
        boolean allowed = cells[4 + op].equals("ok");
        String label = cells[0] + " " + operation + " " + cells[1] + " " + cells[2] + "/" + cells[3] + " -> " + cells[4 + op];
        tests.add(DynamicTest.dynamicTest("gRPC " + label,
            () -> grpc(tokens.get(cells[0]), type, tenancy, cells[3], operation, allowed)));
        tests.add(DynamicTest.dynamicTest("HTTP " + label,
            () -> http(tokens.get(cells[0]), type, tenancy, cells[3], operation, allowed)));
      }
    }
    return tests.stream();
  }

  static Tenancy tenancy(String text) {
    if (text.equals("-")) {
      return Tenancies.CLUSTER;
    }
    String[] parts = text.split("/");
    return parts.length == 1 ? Tenancies.partition(parts[0]) : Tenancies.of(parts[0], parts[1]);
  }

  /** The message a refused call must carry: the permission, the type, the tenancy and the name. */
  private static String refusal(String operation, Type type, Tenancy tenancy, String name) {
    String where = Tenancies.format(tenancy);
    String permission = operation.equals("delete") ? "write" : operation;
    String target = operation.equals("list")
        ? (where.isEmpty() ? "" : " in " + where)
        : " " + (where.isEmpty() ? "" : where + "/") + name;
    if (type.getGroup().equals("acl")) {
      permission = operation.equals("read") || operation.equals("list") ? "operator:read" : "operator:write";
    }
    return "permission denied: the token lacks \"" + permission + "\" on " + Types.format(type) + target;
  }

  private static void grpc(String token, Type type, Tenancy tenancy, String name, String operation, boolean allowed) {
    Resource resource = resource(type, tenancy, name);
    acl.stub(acl.management()).write(WriteRequest.newBuilder().setResource(resource).build()); // present before each cell
    Runnable call = switch (operation) {
      case "read" -> () -> acl.stub(token).read(ReadRequest.newBuilder().setId(resource.getId()).build());
      case "write" -> () -> acl.stub(token).write(WriteRequest.newBuilder().setResource(resource).build());
      case "list" -> () -> assertThat(acl.stub(token).list(ListRequest.newBuilder().setType(type).setTenancy(tenancy).build())
          .getResourcesList()).extracting(r -> r.getId().getName()).as("a listing allowed here shows what may be read")
          .containsExactlyElementsOf(canRead(token, resource) ? List.of(name) : List.of());
      case "delete" -> () -> acl.stub(token).delete(DeleteRequest.newBuilder().setId(resource.getId()).build());
      default -> throw new IllegalArgumentException(operation);
    };
    if (allowed) {
      call.run();
    } else {
      assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(e.getStatus().getDescription()).isEqualTo(refusal(operation, type, tenancy, name));
      });
    }
  }

  private static void http(String token, Type type, Tenancy tenancy, String name, String operation, boolean allowed) {
    Resource resource = resource(type, tenancy, name);
    acl.stub(acl.management()).write(WriteRequest.newBuilder().setResource(resource).build());
    String collection = "/api/" + type.getGroup() + "/" + type.getGroupVersion() + "/" + type.getKind();
    String query = query(tenancy);
    Http.Answer answer = switch (operation) {
      case "read" -> send(http, token, "GET", collection + "/" + name + query, null);
      case "write" -> send(http, token, "PUT", collection + "/" + name + query, json(type, name));
      case "list" -> send(http, token, "GET", collection + query, null);
      case "delete" -> send(http, token, "DELETE", collection + "/" + name + query, null);
      default -> throw new IllegalArgumentException(operation);
    };
    JsonNode body = answer.json();
    if (allowed) {
      assertThat(answer.status()).as(answer.text()).isEqualTo(200);
      if (operation.equals("list")) {
        List<String> names = new ArrayList<>();
        body.path("resources").forEach(r -> names.add(r.at("/id/name").asText()));
        assertThat(names).containsExactlyElementsOf(canRead(token, resource) ? List.of(name) : List.of());
      }
    } else {
      assertThat(answer.status()).as(answer.text()).isEqualTo(403);
      assertThat(body.get("code").asText()).isEqualTo("PERMISSION_DENIED");
      assertThat(body.get("message").asText()).isEqualTo(refusal(operation, type, tenancy, name));
    }
  }

  private static boolean canRead(String token, Resource resource) {
    try {
      acl.stub(token).read(ReadRequest.newBuilder().setId(resource.getId()).build());
      return true;
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      return false;
    }
  }

  static String query(Tenancy tenancy) {
    List<String> params = new ArrayList<>();
    if (!tenancy.getPartition().isEmpty()) {
      params.add("partition=" + tenancy.getPartition());
    }
    if (!tenancy.getNamespace().isEmpty()) {
      params.add("namespace=" + tenancy.getNamespace());
    }
    return params.isEmpty() ? "" : "?" + String.join("&", params);
  }

  static Http.Answer send(Http http, String token, String method, String path, String body) {
    return http.send(method, path, body == null ? null : Http.JSON_TYPE,
        body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body), Map.of("Authorization", "Bearer " + token));
  }

  private static String json(Type type, String name) {
    if (type.equals(DemoTypes.EXECUTIVE)) {
      return "{\"data\": {\"position\": \"ceo\"}}";
    }
    if (type.equals(AclTypes.POLICY)) {
      return "{\"data\": {\"description\": \"" + name + "\"}}";
    }
    return "{\"data\": {\"name\": \"" + name + "\"}}";
  }

  static Resource resource(Type type, Tenancy tenancy, String name) {
    if (type.equals(AclTypes.POLICY)) {
      // team-b's own policy, rewritten unchanged: a team cannot touch another's (or its own) policy
      return TeamPolicies.policyResource("team-b", TeamPolicies.teamRule("team-b"));
    }
    ID id = Ids.of(type, tenancy, name);
    return Resource.newBuilder().setId(id).setData(Any.pack(AclFixture.demoData(type, name))).build();
  }
}
