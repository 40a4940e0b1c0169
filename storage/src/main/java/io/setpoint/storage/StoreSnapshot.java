package io.setpoint.storage;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.v1.Resource;
import java.util.List;

/**
 * Every live resource of a store as of one revision, in key order: what {@link Backend#snapshot()}
 * copies for a backup. The resources stay encoded as the store holds them, so that a copy of a
 * large store costs a reference per resource rather than a second store on the heap.
 *
 * @param revision the store revision the copy is of
 * @param encoded the resources live at that revision, as stored (uids, versions, owners,
 *     statuses), each its protobuf encoding
 */
public record StoreSnapshot(long revision, List<ByteString> encoded) {
  public StoreSnapshot {
    encoded = List.copyOf(encoded);
  }

  /** A snapshot of {@code resources}, encoded now. */
  public static StoreSnapshot of(long revision, List<Resource> resources) {
    return new StoreSnapshot(revision, resources.stream().map(Resource::toByteString).toList());
  }

  /** How many resources the snapshot holds. */
  public int size() {
    return encoded.size();
  }

  /**
   * The resources, decoded now: a second copy of the store on the heap, for small stores and tests.
   *
   * @throws IllegalArgumentException when an element is not an encoded resource
   */
  public List<Resource> resources() {
    return encoded.stream().map(StoreSnapshot::decode).toList();
  }

  private static Resource decode(ByteString bytes) {
    try {
      return Resource.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("a snapshot's resource does not parse: " + e.getMessage(), e);
    }
  }
}
