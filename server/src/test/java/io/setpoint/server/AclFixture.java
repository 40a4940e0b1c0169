package io.setpoint.server;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.acl.v1.AclServiceGrpc;
import io.setpoint.api.acl.v1.BootstrapRequest;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.controller.v1.ControllerServiceGrpc;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.TypeServiceGrpc;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.Executive;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Drives an agent with ACLs on: bootstraps it, writes policies and creates tokens with the
 * management token, and hands out stubs that send a given token ({@code null}: anonymous).
 */
public final class AclFixture {
  private final LiveAgent live;
  private final String management;

  /** Bootstraps {@code live} (which must have ACLs on and not be bootstrapped yet). */
  public AclFixture(LiveAgent live) {
    this.live = live;
    this.management = acl(null).bootstrap(BootstrapRequest.getDefaultInstance()).getSecret();
  }

  public String management() {
    return management;
  }

  LiveAgent live() {
    return live;
  }

  public ResourceServiceGrpc.ResourceServiceBlockingStub stub(String token) {
    return live.stub(token);
  }

  ResourceServiceGrpc.ResourceServiceStub async(String token) {
    return ResourceServiceGrpc.newStub(live.channel(token));
  }

  AclServiceGrpc.AclServiceBlockingStub acl(String token) {
    return AclServiceGrpc.newBlockingStub(live.channel(token)).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  ControllerServiceGrpc.ControllerServiceBlockingStub controllers(String token) {
    return ControllerServiceGrpc.newBlockingStub(live.channel(token)).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  TypeServiceGrpc.TypeServiceBlockingStub types(String token) {
    return TypeServiceGrpc.newBlockingStub(live.channel(token)).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** A rule granting {@code permissions} on {@code type} for names starting with {@code prefix}. */
  public static Rule rule(String type, String prefix, String... permissions) {
    return Rule.newBuilder().setType(type).setNamePrefix(prefix).addAllPermissions(List.of(permissions)).build();
  }

  /** A rule granting {@code permissions} on {@code type} in tenancies matching the patterns. */
  public static Rule scoped(String type, String partition, String namespace, String... permissions) {
    return Rule.newBuilder().setType(type).setPartition(partition).setNamespace(namespace)
        .addAllPermissions(List.of(permissions)).build();
  }

  /** {@code rule} as a deny rule: it takes its permissions away. */
  public static Rule deny(Rule rule) {
    return rule.toBuilder().setEffect("deny").build();
  }

  /** Writes (creates or replaces) policy {@code name}. */
  public Resource policy(String name, String operator, Rule... rules) {
    Policy policy = Policy.newBuilder().setOperator(operator).addAllRules(List.of(rules)).build();
    return stub(management).write(WriteRequest.newBuilder().setResource(Resource.newBuilder()
        .setId(Ids.of(AclTypes.POLICY, name)).setData(Any.pack(policy))).build()).getResource();
  }

  /** Creates token {@code name} with {@code policies} and returns its secret. */
  public String token(String name, String... policies) {
    return acl(management).createToken(CreateTokenRequest.newBuilder()
        .setName(name).addAllPolicies(List.of(policies)).build()).getSecret();
  }

  /** A token holding one new policy of {@code rules} (both named {@code name}). */
  public String tokenWith(String name, String operator, Rule... rules) {
    policy(name, operator, rules);
    return token(name, name);
  }

  public void deleteToken(String name) {
    stub(management).delete(DeleteRequest.newBuilder().setId(Ids.of(AclTypes.TOKEN, name)).build());
  }

  /** The data of a demo resource of {@code type} called {@code name}, for the ACL matrices. */
  static Message demoData(Type type, String name) {
    if (type.equals(DemoTypes.ARTIST)) {
      return Artist.newBuilder().setName(name).build();
    } else if (type.equals(DemoTypes.ALBUM)) {
      return Album.newBuilder().setName(name).build();
    } else if (type.equals(DemoTypes.RECORD_LABEL)) {
      return RecordLabel.newBuilder().setName(name).build();
    } else if (type.equals(DemoTypes.EXECUTIVE)) {
      return Executive.newBuilder().setPosition("ceo").build();
    }
    throw new IllegalArgumentException(Types.format(type));
  }
}
