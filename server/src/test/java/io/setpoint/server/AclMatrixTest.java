package io.setpoint.server;

import static io.setpoint.server.AclFixture.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.resource.Registration;
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
 * Policy × type × operation → outcome, for the demo types (per-type ACL hooks) and one type
 * guarded by the operator permissions (acl.v1.Policy). The expectations are written out by hand
 * in {@link #EXPECTED}; each cell is one test.
 */
class AclMatrixTest {
  @RegisterExtension static final LiveAgent live = LiveAgent.withAcls();
  private static AclFixture acl;
  private static final Map<String, String> tokens = new HashMap<>();

  /** policy, type, resource name, then read / write / list / delete: ok or deny. */
  private static final String EXPECTED = """
      artist-reader  demo.v2.Artist       nina  ok    deny  ok    deny
      artist-reader  demo.v2.Artist       bob   ok    deny  ok    deny
      artist-reader  demo.v2.Album        nina  deny  deny  deny  deny
      artist-reader  demo.v1.RecordLabel  nina  deny  deny  deny  deny
      artist-reader  demo.v1.Executive    nina  deny  deny  deny  deny
      artist-reader  acl.v1.Policy        nina  deny  deny  deny  deny
      demo-writer    demo.v2.Artist       nina  ok    ok    ok    ok
      demo-writer    demo.v2.Album        nina  ok    ok    ok    ok
      demo-writer    demo.v1.RecordLabel  nina  ok    ok    ok    ok
      demo-writer    demo.v1.Executive    nina  ok    ok    ok    ok
      demo-writer    acl.v1.Policy        nina  deny  deny  deny  deny
      n-artists      demo.v2.Artist       nina  ok    ok    ok    ok
      n-artists      demo.v2.Artist       bob   deny  deny  ok    deny
      n-artists      demo.v2.Album        nina  deny  deny  deny  deny
      v1-readers     demo.v2.Artist       nina  deny  deny  deny  deny
      v1-readers     demo.v1.RecordLabel  nina  ok    deny  ok    deny
      v1-readers     demo.v1.Executive    nina  ok    deny  ok    deny
      everything     demo.v2.Artist       bob   ok    ok    ok    ok
      everything     demo.v1.Executive    nina  ok    ok    ok    ok
      everything     acl.v1.Policy        nina  deny  deny  deny  deny
      operator-read  demo.v2.Artist       nina  deny  deny  deny  deny
      operator-read  acl.v1.Policy        nina  ok    deny  ok    deny
      operator       demo.v2.Artist       nina  deny  deny  deny  deny
      operator       acl.v1.Policy        nina  ok    ok    ok    ok
      nothing        demo.v2.Artist       nina  deny  deny  deny  deny
      nothing        acl.v1.Policy        nina  deny  deny  deny  deny
      management     demo.v2.Artist       bob   ok    ok    ok    ok
      management     acl.v1.Policy        bob   ok    ok    ok    ok
      """;
  private static final List<String> OPERATIONS = List.of("read", "write", "list", "delete");

  @BeforeAll
  static void policiesAndTokens() {
    acl = new AclFixture(live);
    tokens.put("artist-reader", acl.tokenWith("artist-reader", "", rule("demo.v2.Artist", "", "read", "list")));
    tokens.put("demo-writer", acl.tokenWith("demo-writer", "", rule("demo.*.*", "", "read", "write", "list")));
    tokens.put("n-artists", acl.tokenWith("n-artists", "", rule("demo.v2.Artist", "n", "read", "write", "list")));
    tokens.put("v1-readers", acl.tokenWith("v1-readers", "", rule("demo.v1.*", "", "read", "list")));
    tokens.put("everything", acl.tokenWith("everything", "", rule("*.*.*", "", "read", "write", "list")));
    tokens.put("operator-read", acl.tokenWith("operator-read", "read"));
    tokens.put("operator", acl.tokenWith("operator", "write"));
    tokens.put("nothing", acl.tokenWith("nothing", ""));
    tokens.put("management", acl.management());
  }

  @TestFactory
  Stream<DynamicTest> matrix() {
    List<DynamicTest> tests = new ArrayList<>();
    for (String line : EXPECTED.strip().split("\n")) {
      String[] cells = line.trim().split("\\s+");
      Type type = Types.parse(cells[1]);
      for (int op = 0; op < OPERATIONS.size(); op++) {
        String operation = OPERATIONS.get(op);
        boolean allowed = cells[3 + op].equals("ok");
        tests.add(DynamicTest.dynamicTest(cells[0] + " " + operation + " " + cells[1] + " " + cells[2] + " -> " + cells[3 + op],
            () -> check(tokens.get(cells[0]), type, cells[2], operation, allowed)));
      }
    }
    return tests.stream();
  }

  private static void check(String token, Type type, String name, String operation, boolean allowed) {
    Resource resource = resource(type, name);
    acl.stub(acl.management()).write(WriteRequest.newBuilder().setResource(resource).build()); // present before each cell
    Runnable call = switch (operation) {
      case "read" -> () -> acl.stub(token).read(ReadRequest.newBuilder().setId(resource.getId()).build());
      case "write" -> () -> acl.stub(token).write(WriteRequest.newBuilder().setResource(resource).build());
      case "list" -> () -> acl.stub(token).list(ListRequest.newBuilder().setType(type)
          .setTenancy(Tenancies.wildcard(registration(type).scope())).build());
      case "delete" -> () -> acl.stub(token).delete(DeleteRequest.newBuilder().setId(resource.getId()).build());
      default -> throw new IllegalArgumentException(operation);
    };
    if (allowed) {
      call.run();
    } else {
      assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(e.getStatus().getDescription()).startsWith("permission denied: the token lacks");
      });
    }
  }

  private static Registration<?> registration(Type type) {
    return live.agent().registry().resolve(type).orElseThrow();
  }

  private static Resource resource(Type type, String name) {
    Message data = type.equals(AclTypes.POLICY)
        ? Policy.newBuilder().setDescription(name).build()
        : AclFixture.demoData(type, name);
    return Resource.newBuilder().setId(Ids.of(type, name)).setData(Any.pack(data)).build();
  }
}
