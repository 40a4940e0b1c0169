package io.setpoint.storage.engine;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.engine.ResourceIndex.Written;
import io.setpoint.storage.engine.StoreEngine.Result;
import io.setpoint.storage.engine.StoreEngine.Result.Effect;

/**
 * What a snapshot restores whole, the index and the remembered request ids, and the writes that
 * change it: each decides a repeat, checks its fence, changes the index, then tells the watchers.
 * Not thread-safe: {@link StoreEngine} calls the writes under its writer's lock.
 */
final class StoreState {
  final ResourceIndex index;
  final AppliedRequests requests;
  private final WatchHub hub;

  StoreState(ResourceIndex index, AppliedRequests requests, WatchHub hub) {
    this.index = index;
    this.requests = requests;
    this.hub = hub;
  }

  /** See {@link StoreEngine#write}. */
  Result write(Resource resource, Fence fence, String requestId) {
    Result earlier = repeated(requestId, resource.getId());
    if (earlier != null) {
      return earlier;
    }
    Fences.check(index, fence);
    Written written = index.write(resource);
    hub.publish(written);
    remember(requestId, written.entry());
    return new Result(Effect.WRITTEN, written.entry().revision(), written.resource());
  }

  /** See {@link StoreEngine#put}. */
  Result put(Resource resource, Fence fence, String requestId, String uid, String generation) {
    Result earlier = repeated(requestId, resource.getId());
    if (earlier != null) {
      return earlier;
    }
    Fences.check(index, fence);
    Written written = index.put(resource, uid, generation);
    if (written == null) {
      return new Result(Effect.UNCHANGED, index.revision(), index.read(Ids.withoutUid(resource.getId())));
    }
    hub.publish(written);
    remember(requestId, written.entry());
    return new Result(Effect.STORED, written.entry().revision(), written.resource());
  }

  /** See {@link StoreEngine#delete}. */
  Result delete(ID id, String version, Fence fence, String requestId) {
    Result earlier = repeated(requestId, id);
    if (earlier != null) {
      return earlier;
    }
    Fences.check(index, fence);
    Written tombstone = index.delete(id, version);
    if (!requestId.isEmpty()) {
      requests.recordDelete(requestId, id, tombstone == null ? null : tombstone.resource());
    }
    if (tombstone == null) {
      return new Result(Effect.NOTHING_DELETED, index.revision(), null);
    }
    hub.publish(tombstone);
    return new Result(Effect.DELETED, tombstone.entry().revision(), tombstone.resource());
  }

  /** The answer to a write that repeats the one {@code requestId} carried, or null. */
  private Result repeated(String requestId, ID id) {
    Resource earlier = requestId.isEmpty() ? null : requests.find(requestId, id);
    return earlier == null ? null : new Result(Effect.REPEATED, index.revision(), earlier);
  }

  private void remember(String requestId, Entry stored) {
    if (!requestId.isEmpty()) {
      requests.record(requestId, stored.key, stored.encoded());
    }
  }
}
