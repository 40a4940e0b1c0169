package io.setpoint.resource;

import com.google.protobuf.Message;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;

/** A resource with its data unpacked into the registered message, so hooks never touch Any. */
public record Decoded<T extends Message>(Resource resource, T data) {
  /** The resource's id. */
  public ID id() {
    return resource.getId();
  }

  /** The same resource with {@code newData} packed in place of its data. */
  public Resource withData(T newData) {
    return resource.toBuilder().setData(com.google.protobuf.Any.pack(newData)).build();
  }
}
