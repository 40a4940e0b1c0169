package io.setpoint.server;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.grpc.stub.StreamObserver;
import io.setpoint.api.v1.ListTypesRequest;
import io.setpoint.api.v1.ListTypesResponse;
import io.setpoint.api.v1.TypeInfo;
import io.setpoint.api.v1.TypeServiceGrpc;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Lists registered types with the descriptors of their data messages, so generic clients (the
 * CLI) can read and write any type's data as JSON. With ACLs on, any valid token may list them:
 * types are schema, not data, and every client needs them.
 */
final class TypeGrpcService extends TypeServiceGrpc.TypeServiceImplBase {
  private final Registry registry;

  public TypeGrpcService(Registry registry) {
    this.registry = registry;
  }

  /**
   * Lists the types to any authenticated caller (with ACLs on, any valid token): types are
   * schema, not data, and every client needs them to read or write JSON.
   */
  @Override
  public void listTypes(ListTypesRequest request, StreamObserver<ListTypesResponse> out) {
    UnaryCalls.answer(() -> {
      CallerAuthorizer.current(); // resolving it is the check: UNAUTHENTICATED without a valid token
      return listTypes();
    }, out);
  }

  private ListTypesResponse listTypes() {
    ListTypesResponse.Builder response = ListTypesResponse.newBuilder();
    Map<String, FileDescriptor> files = new LinkedHashMap<>();
    for (Registration<?> reg : registry.types()) {
      response.addTypes(TypeInfo.newBuilder()
          .setType(reg.type())
          .setScope(reg.scope())
          .setDataMessage(reg.dataMessageName())
          .setHttp(reg.http()));
      addWithDependencies(reg.descriptor().getFile(), files);
    }
    FileDescriptorSet.Builder set = FileDescriptorSet.newBuilder();
    files.values().forEach(f -> set.addFile(f.toProto()));
    return response.setDescriptors(set).build();
  }

  /**
   * Adds {@code file} after its dependencies, each name once: types defined at runtime from the
   * same .proto file carry separate copies of it, and clients build a set by file name.
   */
  private static void addWithDependencies(FileDescriptor file, Map<String, FileDescriptor> out) {
    if (out.containsKey(file.getName())) {
      return;
    }
    for (FileDescriptor dep : file.getDependencies()) {
      addWithDependencies(dep, out);
    }
    out.put(file.getName(), file);
  }
}
