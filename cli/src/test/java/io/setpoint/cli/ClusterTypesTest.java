package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import build.buf.validate.FieldRules;
import build.buf.validate.StringRules;
import build.buf.validate.ValidateProto;
import com.google.protobuf.Any;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldOptions;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.TypeDefinition;
import io.setpoint.api.v1.AnnotationsProto;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceTypeSpec;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.testkit.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A type applied through one member of a three-member cluster of {@code setpoint agent}
 * processes-in-a-JVM: every member serves it, a restarted member serves it again, and an
 * incompatible change is refused with its breaking changes, whichever member receives it.
 */
class ClusterTypesTest {
  private static final Type PLANT = Types.of("garden", "v1", "Plant");
  private static final ID DEFINITION = Ids.of(Types.of("core", "v1", "TypeDefinition"), "garden-v1-plant");
  private static final java.util.concurrent.atomic.AtomicInteger CLUSTERS = new java.util.concurrent.atomic.AtomicInteger();

  private final List<CliRun> members = new ArrayList<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    for (CliRun member : members) {
      if (member.code() == null) {
        member.interruptAndJoin();
      }
    }
  }

  /** garden.v1.Plant: {@code species} (at least one character) and {@code height_cm}, or {@code height_cm} as a string. */
  private static FileDescriptorSet garden(boolean heightAsText) {
    FieldOptions speciesRules = FieldOptions.newBuilder()
        .setExtension(ValidateProto.field, FieldRules.newBuilder().setString(StringRules.newBuilder().setMinLen(1)).build())
        .build();
    DescriptorProto plant = DescriptorProto.newBuilder().setName("Plant")
        .setOptions(MessageOptions.newBuilder().setExtension(AnnotationsProto.spec,
            ResourceTypeSpec.newBuilder().setScope(Scope.SCOPE_CLUSTER).build()))
        .addField(FieldDescriptorProto.newBuilder().setName("species").setNumber(1)
            .setType(FieldDescriptorProto.Type.TYPE_STRING).setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL)
            .setOptions(speciesRules))
        .addField(FieldDescriptorProto.newBuilder().setName("height_cm").setNumber(2)
            .setType(heightAsText ? FieldDescriptorProto.Type.TYPE_STRING : FieldDescriptorProto.Type.TYPE_INT32)
            .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL))
        .build();
    return FileDescriptorSet.newBuilder().addFile(FileDescriptorProto.newBuilder()
        .setName("acme/garden/v1/garden.proto").setPackage("acme.garden.v1").setSyntax("proto3")
        .addDependency("buf/validate/validate.proto")
        .addDependency("setpoint/resource/v1/annotations.proto")
        .addMessageType(plant)).build();
  }

  private static Resource definition(FileDescriptorSet files) {
    return Resource.newBuilder().setId(DEFINITION).setData(Any.pack(TypeDefinition.newBuilder()
        .setMessage("acme.garden.v1.Plant").setFiles(files).build())).build();
  }

  private static Resource plant(String name, String species, int heightCm) throws Exception {
    FileDescriptor file = FileDescriptor.buildFrom(garden(false).getFile(0), new FileDescriptor[] {
        ValidateProto.getDescriptor(), AnnotationsProto.getDescriptor()});
    Descriptor message = file.findMessageTypeByName("Plant");
    DynamicMessage data = DynamicMessage.newBuilder(message)
        .setField(message.findFieldByName("species"), species)
        .setField(message.findFieldByName("height_cm"), heightCm)
        .build();
    return Resource.newBuilder().setId(Ids.of(PLANT, name)).setData(Any.pack(data)).build();
  }

  private static boolean serves(int port) {
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      return client.types().getTypesList().stream().anyMatch(t -> t.getType().equals(PLANT));
    } catch (SetpointException e) {
      return false;
    }
  }

  @Test
  void aTypeAppliedThroughOneMemberIsServedByAllAndAfterARestart(@TempDir Path dir) throws Exception {
    String prefix = "types" + CLUSTERS.incrementAndGet() + "-";
    int[] api = {FreePorts.loopback(), FreePorts.loopback(), FreePorts.loopback()};
    int[] raft = {FreePorts.loopback(), FreePorts.loopback(), FreePorts.loopback()};
    StringBuilder cluster = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      cluster.append(i == 0 ? "" : ",").append(prefix).append(i).append("=127.0.0.1:").append(raft[i]);
    }
    List<String[]> args = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      args.add(new String[] {"agent", "-data-dir", dir.resolve("m" + i).toString(), "-node", prefix + i,
          "-raft-port", String.valueOf(raft[i]), "-port", String.valueOf(api[i]), "-cluster", cluster.toString(),
          "-no-acls"});
      members.add(CliRun.start(args.get(i)));
    }
    try (SetpointClient first = SetpointClient.connect("127.0.0.1:" + api[0])) {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> first.write(definition(garden(false))) != null);
    }
    for (int port : api) {
      await().atMost(Duration.ofSeconds(30)).until(() -> serves(port));
    }
    try (SetpointClient second = SetpointClient.connect("127.0.0.1:" + api[1]);
        SetpointClient third = SetpointClient.connect("127.0.0.1:" + api[2])) {
      second.write(plant("fern", "fern", 40));
      assertThat(third.readConsistent(Ids.of(PLANT, "fern")).getData().getTypeUrl()).endsWith("acme.garden.v1.Plant");
      assertThatThrownBy(() -> third.write(plant("nameless", "", 3)))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.INVALID_ARGUMENT);
            assertThat(e.violations()).anySatisfy(v -> {
              assertThat(v.field()).isEqualTo("resource.data.species");
              assertThat(v.description()).contains("string.min_len");
            });
          });
      // An incompatible change, through a member other than the one that applied the type.
      assertThatThrownBy(() -> third.write(definition(garden(true))))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.FAILED_PRECONDITION);
            assertThat(e.getMessage()).contains("field 2 (height_cm) changes from int32 to string, and 1 stored resources set it");
          });
    }

    members.get(2).interruptAndJoin();
    members.set(2, CliRun.start(args.get(2)));
    await().atMost(Duration.ofSeconds(60)).until(() -> serves(api[2]));
    try (SetpointClient restarted = SetpointClient.connect("127.0.0.1:" + api[2])) {
      assertThat(restarted.readConsistent(Ids.of(PLANT, "fern")).getData().getTypeUrl()).endsWith("acme.garden.v1.Plant");
      restarted.write(plant("moss", "moss", 2));
    }
  }
}
