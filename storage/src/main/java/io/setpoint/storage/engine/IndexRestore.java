package io.setpoint.storage.engine;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.WireFormat;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.engine.StoreEngine.RetainedHistory;
import io.setpoint.storage.engine.VersionChains.Chain;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Rebuilds an index from a snapshot: its live resources at its revision and the history it
 * retained, checking that the two agree.
 */
final class IndexRestore {
  private IndexRestore() {}

  /**
   * A store holding exactly {@code resources} at {@code revision}, as restored from a snapshot
   * taken then, with the history that snapshot retained: the state as of the history's floor is
   * rebuilt, then its changes are applied again in order, so that watches resume and reads go on
   * from the floor exactly as they did on the store the snapshot was taken of (as far as these
   * limits keep them). With {@link RetainedHistory#none} no history before {@code revision} is
   * retained, so a watch resume or a page token from an earlier revision fails with {@code
   * COMPACTED}.
   *
   * @throws IllegalArgumentException when the history and {@code resources} disagree: a version
   *     outside 1..{@code revision}, a key twice, a change that is not the next revision, or
   *     changes that do not end in {@code resources}
   */
  static ResourceIndex restore(Limits limits, long revision, List<ByteString> resources, RetainedHistory history) {
    List<Resource> changes = new ArrayList<>(history.changes().size());
    Set<String> changed = new HashSet<>();
    for (RetainedHistory.Change change : history.changes()) {
      Resource resource = Entry.decode(change.encoded());
      changes.add(resource);
      changed.add(StoreKeys.of(resource.getId()));
    }
    ResourceIndex index = new ResourceIndex(limits, resources.size());
    long floor = history.floor();
    for (ByteString base : history.bases()) {
      restoreLive(index, Entry.decode(base), base, floor);
    }
    List<ByteString> changedLive = new ArrayList<>();
    for (ByteString encoded : resources) {
      Resource resource = head(encoded);
      if (changed.contains(StoreKeys.of(resource.getId()))) {
        changedLive.add(encoded);
      } else {
        restoreLive(index, resource, encoded, floor);
      }
    }
    index.startAt(floor);
    for (int i = 0; i < changes.size(); i++) {
      RetainedHistory.Change change = history.changes().get(i);
      reapply(index, change, changes.get(i));
    }
    if (index.revision() != revision) {
      throw new IllegalArgumentException("the history ends at revision " + index.revision() + ", not " + revision);
    }
    long liveChanged = changed.stream().map(index.chains::newest).filter(e -> e != null && !e.deleted).count();
    for (ByteString encoded : changedLive) {
      Resource resource = Entry.decode(encoded);
      Entry head = index.chains.newest(StoreKeys.of(resource.getId()));
      if (head == null || head.deleted || !head.resource().equals(resource)) {
        throw new IllegalArgumentException("the history does not end in " + Ids.format(resource.getId())
            + " at version " + resource.getVersion());
      }
    }
    if (liveChanged != changedLive.size()) {
      throw new IllegalArgumentException("the history ends in " + liveChanged + " live resources it changed, not "
          + changedLive.size());
    }
    return index;
  }

  /**
   * The id, owner and version of an encoded resource, all a restore reads of a live one, parsed
   * without the rest: decoding a million resources whole was most of a restart's time.
   *
   * @throws IllegalArgumentException when the bytes are not a resource
   */
  static Resource head(ByteString encoded) {
    Resource.Builder head = Resource.newBuilder();
    try {
      CodedInputStream in = encoded.newCodedInput();
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        boolean delimited = WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED;
        switch (delimited ? WireFormat.getTagFieldNumber(tag) : 0) {
          case Resource.ID_FIELD_NUMBER -> in.readMessage(head.getIdBuilder(), ExtensionRegistryLite.getEmptyRegistry());
          case Resource.OWNER_FIELD_NUMBER ->
              in.readMessage(head.getOwnerBuilder(), ExtensionRegistryLite.getEmptyRegistry());
          case Resource.VERSION_FIELD_NUMBER -> head.setVersion(in.readStringRequireUtf8());
          default -> in.skipField(tag);
        }
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("an encoded resource does not parse: " + e.getMessage(), e);
    }
    return head.build();
  }

  /** Adds {@code resource} ({@code encoded}), whose version is at most {@code at}, as its key's only version. */
  private static void restoreLive(ResourceIndex index, Resource resource, ByteString encoded, long at) {
    long version;
    try {
      version = Long.parseLong(resource.getVersion());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("version of " + Ids.format(resource.getId()) + " is not a revision");
    }
    if (version < 1 || version > at) {
      throw new IllegalArgumentException(
          "version " + version + " of " + Ids.format(resource.getId()) + " is not in 1.." + at);
    }
    String key = StoreKeys.of(resource.getId());
    if (index.chains.contains(key)) {
      throw new IllegalArgumentException(Ids.format(resource.getId()) + " is restored twice");
    }
    index.chains.put(null, new Entry(key, version, Entry.array(encoded), false, null));
    index.owners.add(key, resource);
  }

  /** Applies a retained change again, at the revision it was made. */
  private static void reapply(ResourceIndex index, RetainedHistory.Change change, Resource resource) {
    if (change.revision() != index.revision() + 1) {
      throw new IllegalArgumentException(
          "change at revision " + change.revision() + " follows revision " + index.revision());
    }
    if (!change.deleted() && !resource.getVersion().equals(Long.toString(change.revision()))) {
      throw new IllegalArgumentException("the write at revision " + change.revision() + " stored version "
          + resource.getVersion());
    }
    String key = StoreKeys.of(resource.getId());
    Chain chain = index.chains.get(key);
    Entry head = chain == null ? null : chain.newest;
    Resource live = head == null || head.deleted ? null : head.resource();
    if (change.deleted() && live == null) {
      throw new IllegalArgumentException("the delete at revision " + change.revision() + " deletes nothing");
    }
    Entry entry = new Entry(key, change.revision(), Entry.array(change.encoded()), change.deleted(), head);
    index.chains.put(chain, entry);
    if (live != null) {
      index.owners.remove(key, live);
    }
    if (!change.deleted()) {
      index.owners.add(key, resource);
    }
    index.commit(entry);
  }
}
