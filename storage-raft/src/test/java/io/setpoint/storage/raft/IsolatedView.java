package io.setpoint.storage.raft;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A backend as empty as a fresh one, over a shared backend: every type group gets a suffix unique
 * to this view on the way in, which is removed on the way out. Lets one Raft cluster serve many
 * conformance tests without them seeing each other's resources (uids are unique per JVM already).
 * Revisions stay the shared store's, which only makes them sparser. Page tokens pass through
 * untouched: they are opaque and name the suffixed keys.
 *
 * <p>Closing the view closes its watches, not the shared backend; tests of closing a backend run
 * against a real one.
 */
final class IsolatedView implements Backend {
  private final Backend shared;
  private final String suffix;
  private final Set<WatchCursor> watches = ConcurrentHashMap.newKeySet();

  IsolatedView(Backend shared, String suffix) {
    this.shared = shared;
    this.suffix = "_" + suffix;
  }

  @Override
  public long revision() {
    return shared.revision();
  }

  @Override
  public Resource read(Consistency consistency, ID id) {
    return out(shared.read(consistency, in(id)));
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence) {
    return out(shared.writeCas(in(resource), in(fence)));
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence, String requestId) {
    return out(shared.writeCas(in(resource), in(fence), requestId));
  }

  @Override
  public CompletableFuture<Resource> putAsync(Resource resource, Fence fence, String requestId, String uid, String generation) {
    return shared.putAsync(in(resource), in(fence), requestId, uid, generation).thenApply(this::out);
  }

  @Override
  public Resource findRequest(ID id, String requestId) {
    return out(shared.findRequest(in(id), requestId));
  }

  @Override
  public Resource deleteCas(ID id, String version, Fence fence, String requestId) {
    return out(shared.deleteCas(in(id), version, in(fence), requestId));
  }

  @Override
  public Page list(
      Consistency consistency, Type type, Tenancy tenancy, String namePrefix, int limit, String pageToken) {
    Page page = shared.list(consistency, in(type), tenancy, namePrefix, limit, pageToken);
    return new Page(page.resources().stream().map(this::out).toList(), page.nextPageToken(), page.revision());
  }

  @Override
  public List<Resource> listByOwner(ID owner) {
    return shared.listByOwner(in(owner)).stream().map(this::out).toList();
  }

  @Override
  public WatchCursor watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision) {
    WatchCursor inner = shared.watch(in(type), tenancy, namePrefix, sinceRevision);
    WatchCursor view =
        new WatchCursor() {
          @Override
          public WatchEvent next() throws InterruptedException {
            return out(inner.next());
          }

          @Override
          public WatchEvent poll(Duration timeout) throws InterruptedException {
            WatchEvent event = inner.poll(timeout);
            return event == null ? null : out(event);
          }

          @Override
          public void close() {
            watches.remove(this);
            inner.close();
          }
        };
    watches.add(view);
    return view;
  }

  @Override
  public void closeWatches(String reason) {
    List.copyOf(watches).forEach(WatchCursor::close);
  }

  @Override
  public void close() {
    List.copyOf(watches).forEach(WatchCursor::close);
  }

  private Type in(Type type) {
    return type.toBuilder().setGroup(type.getGroup() + suffix).build();
  }

  private Type out(Type type) {
    String group = type.getGroup();
    if (!group.endsWith(suffix)) {
      throw new AssertionError("a resource of another view leaked into this one: " + type);
    }
    return type.toBuilder().setGroup(group.substring(0, group.length() - suffix.length())).build();
  }

  // Fences name their lease by name alone, as core.v1.Lease: leases keep their type and carry the
  // suffix in their name instead.
  private ID in(ID id) {
    if (id.getType().equals(Types.LEASE)) {
      return id.toBuilder().setName(id.getName() + suffix).build();
    }
    return id.toBuilder().setType(in(id.getType())).build();
  }

  private ID out(ID id) {
    if (id.getType().equals(Types.LEASE)) {
      if (!id.getName().endsWith(suffix)) {
        throw new AssertionError("a lease of another view leaked into this one: " + id);
      }
      return id.toBuilder().setName(id.getName().substring(0, id.getName().length() - suffix.length())).build();
    }
    return id.toBuilder().setType(out(id.getType())).build();
  }

  private Fence in(Fence fence) {
    return fence.getLease().isEmpty() ? fence : fence.toBuilder().setLease(fence.getLease() + suffix).build();
  }

  private Resource in(Resource r) {
    Resource.Builder b = r.toBuilder().setId(in(r.getId()));
    if (r.hasOwner()) {
      b.setOwner(in(r.getOwner()));
    }
    return b.build();
  }

  private Resource out(Resource r) {
    if (r == null) {
      return null;
    }
    Resource.Builder b = r.toBuilder().setId(out(r.getId()));
    if (r.hasOwner()) {
      b.setOwner(out(r.getOwner()));
    }
    return b.build();
  }

  private WatchEvent out(WatchEvent event) {
    return switch (event.getEventCase()) {
      case UPSERT ->
          event.toBuilder()
              .setUpsert(WatchEvent.Upsert.newBuilder().setResource(out(event.getUpsert().getResource())))
              .build();
      case DELETE ->
          event.toBuilder()
              .setDelete(WatchEvent.Delete.newBuilder().setResource(out(event.getDelete().getResource())))
              .build();
      default -> event;
    };
  }
}
