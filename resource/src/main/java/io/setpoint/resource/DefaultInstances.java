package io.setpoint.resource;

import com.google.protobuf.Internal;
import com.google.protobuf.Message;

/**
 * The default instance of each generated message class, looked up once per class: protobuf's own
 * lookup ({@code Internal.getDefaultInstance}, which {@code Any.is} and {@code Any.unpack} call)
 * goes through reflection every time, and admission needs it on every write.
 */
final class DefaultInstances {
  private static final ClassValue<Message> INSTANCES = new ClassValue<>() {
    @Override
    protected Message computeValue(Class<?> type) {
      return Internal.getDefaultInstance(type.asSubclass(Message.class));
    }
  };

  private DefaultInstances() {}

  static <T extends Message> T of(Class<T> type) {
    return type.cast(INSTANCES.get(type));
  }
}
