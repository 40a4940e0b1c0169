package com.example.garden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.garden.v1.Plant;
import com.google.protobuf.Any;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.TypeDefinition;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Manager;
import io.setpoint.testing.SetpointExtension;
import io.setpoint.testing.TestResource;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The remote controller against an agent that knows no garden type until one is applied at
 * runtime, as {@code setpoint type apply -f garden.proto} does: the type then has what the .proto
 * declares, and none of the Java hooks (no default interval).
 */
class AppliedTypeRemoteTest {
  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().build();

  @Test
  void theRemoteControllerSchedulesAPlantOfAnAppliedType() {
    setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(Types.TYPE_DEFINITION, Types.definitionName(GardenTypes.PLANT)))
        .setData(Any.pack(TypeDefinition.newBuilder()
            .setMessage(Plant.getDescriptor().getFullName())
            .setFiles(withImports(Plant.getDescriptor().getFile()))
            .build()))
        .build());
    await().until(() -> setpoint.client().types().getTypesList().stream()
        .anyMatch(t -> t.getType().equals(GardenTypes.PLANT)));

    Resource moss = TestResource.of(GardenTypes.PLANT, "moss")
        .data(Plant.newBuilder().setSpecies("Sphagnum").setWaterEveryDays(1).build())
        .createIn(setpoint.client());
    try (SetpointClient remote = SetpointClient.connect("127.0.0.1:" + setpoint.agent().port());
        Manager manager = RemoteGarden.start(remote)) {
      Resource scheduled = setpoint.awaitCondition(moss.getId(), PlantController.STATUS_KEY, "Scheduled");
      assertThat(Conditions.find(scheduled.getStatusOrThrow(PlantController.STATUS_KEY), "Scheduled"))
          .hasValueSatisfying(c -> assertThat(c.getMessage()).isEqualTo("watered every 1 day(s)"));
    }
  }

  /** The file and everything it imports, dependencies first, as protoc --include_imports writes. */
  private static FileDescriptorSet withImports(FileDescriptor file) {
    Map<String, FileDescriptorProto> files = new LinkedHashMap<>();
    add(file, files);
    return FileDescriptorSet.newBuilder().addAllFile(files.values()).build();
  }

  private static void add(FileDescriptor file, Map<String, FileDescriptorProto> files) {
    if (!files.containsKey(file.getName())) {
      file.getDependencies().forEach(d -> add(d, files));
      files.put(file.getName(), file.toProto());
    }
  }
}
