package io.setpoint.server;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import java.util.List;

/**
 * What the store holds of one type: how many resources, and whether any sets a given field. Reads
 * this member's applied state, without a round trip to the leader: admission runs in the thread
 * that received the request, and a definition's change is checked again by whichever member
 * receives the next one.
 */
final class StoredData {
  private static final int PAGE = 500;

  private final Backend backend;

  StoredData(Backend backend) {
    this.backend = backend;
  }

  /** How many resources of {@code type} are stored, in every tenancy. */
  long count(Type type, Scope scope) {
    long[] count = {0};
    forEach(type, scope, resource -> count[0]++);
    return count[0];
  }

  /**
   * How many stored resources of {@code type} set the field at {@code path} (dot-separated field
   * names, as {@link Compatibility.Change#path()}), their data read as {@code message}.
   */
  long countSetting(Type type, Scope scope, Descriptor message, String path) {
    String[] names = path.split("\\.");
    long[] count = {0};
    forEach(type, scope, resource -> {
      try {
        if (sets(DynamicMessage.parseFrom(message, resource.getData().getValue()), names, 0)) {
          count[0]++;
        }
      } catch (InvalidProtocolBufferException e) {
        count[0]++; // data the old message cannot read: count it as at risk rather than skip it
      }
    });
    return count[0];
  }

  private static boolean sets(Message message, String[] names, int at) {
    FieldDescriptor field = message.getDescriptorForType().findFieldByName(names[at]);
    if (field == null) {
      return false;
    }
    boolean last = at == names.length - 1;
    if (field.isRepeated()) {
      int n = message.getRepeatedFieldCount(field);
      if (last || n == 0) {
        return n > 0;
      }
      for (int i = 0; i < n; i++) {
        if (message.getRepeatedField(field, i) instanceof Message element && sets(element, names, at + 1)) {
          return true;
        }
      }
      return false;
    }
    if (!message.hasField(field)) {
      return false;
    }
    return last || (message.getField(field) instanceof Message nested && sets(nested, names, at + 1));
  }

  private void forEach(Type type, Scope scope, java.util.function.Consumer<Resource> action) {
    String token = "";
    do {
      Page page = backend.list(Consistency.EVENTUAL, type, Tenancies.wildcard(scope), "", PAGE, token);
      List<Resource> resources = page.resources();
      resources.forEach(action);
      token = page.nextPageToken();
    } while (!token.isEmpty());
  }
}
