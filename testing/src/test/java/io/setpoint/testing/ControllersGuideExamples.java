package io.setpoint.testing;

import com.google.protobuf.Any;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Controller.Placement;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Result;
import io.setpoint.controller.Sharding;
import io.setpoint.controller.Tools;
import io.setpoint.controller.TypedReconciler;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.resource.Decoded;
import java.time.Duration;

/**
 * The code of docs/controllers.md that no demo or example runs as it stands: a create-or-update,
 * finalizers kept by a cleaner and by hand, and a sharded manager. It is compiled with the tests, so
 * the guide (whose blocks {@code DocSnippetsTest} holds equal to the marked regions here) cannot show
 * code that does not build.
 */
final class ControllersGuideExamples {
  /** An object store outside Setpoint, holding a bucket for each record label. */
  interface Buckets {
    /** Deletes the bucket {@code name}: true once it is gone, false while its objects are still going. */
    boolean delete(String name);
  }

  private final Buckets buckets;

  ControllersGuideExamples(Buckets buckets) {
    this.buckets = buckets;
  }

  /** Creates or updates the album {@code title} of {@code artist} without overwriting a concurrent write. */
  static Tools.Outcome.Operation putAlbum(Tools tools, Decoded<Artist> artist, ID albumId, String title) {
    // snippet:start create-or-update
    Tools.Outcome out = tools.createOrUpdate(albumId, album -> album
        .setOwner(artist.id())
        .setData(Any.pack(Album.newBuilder().setName(title).build())));
    return out.operation(); // CREATED, UPDATED or UNCHANGED (nothing written)
    // snippet:end create-or-update
  }

  /** A record label controller whose cleaner removes the label's bucket before the label goes. */
  Controller labelsWithCleaner() {
    // snippet:start cleaner
    return Controller.forType(DemoTypes.RECORD_LABEL)
        .finalizer("labels.example.com/cleanup")            // default: setpoint.io/<controller name>
        .reconciler(RecordLabel.class,
            (label, ctx, tools) -> Result.done(),           // runs while the label is not being deleted
            (label, ctx, tools) -> removeBucket(label.id()) // runs once a Delete marked it
                ? Result.done()                             // finalizer removed: the store deletes it
                : Result.requeueAfter(Duration.ofSeconds(10)));
    // snippet:end cleaner
  }

  /** The same clean-up with an untyped reconciler, which keeps the finalizer itself. */
  Controller labelsWithFinalizerByHand() {
    return Controller.forType(DemoTypes.RECORD_LABEL)
        .named("labels-by-hand")
        .reconciler((ctx, tools, req) -> {
          // snippet:start finalizer-by-hand
          Resource current = tools.cache().get(req.id()).orElse(null);
          if (current == null) {
            return Result.done();
          }
          if (!Finalizers.isMarkedForDeletion(current)) {
            if (!Finalizers.has(current, "demo.setpoint.io/cleanup")) {
              // The cached version makes this a compare-and-swap: a concurrent change fails it, and it is retried.
              tools.client().write(Finalizers.add(current, "demo.setpoint.io/cleanup"));
            }
            return Result.done();
          }
          if (!removeBucket(current.getId())) {
            return Result.requeueAfter(Duration.ofSeconds(10));
          }
          tools.client().write(Finalizers.remove(current, "demo.setpoint.io/cleanup"));
          return Result.done();
          // snippet:end finalizer-by-hand
        });
  }

  /** Joins the shard group {@code artists} and runs this process's share of a SHARDED artist controller. */
  static Manager startSharded(TypedReconciler<Artist> reconciler) {
    // snippet:start sharding
    Manager manager = Manager.builder()
        .client(SetpointClient.connect("setpoint:8500"))
        .sharding(Sharding.named("artists")
            .member(System.getenv("HOSTNAME"))     // unique in the group; a stable name rejoins at once
            .leaseDuration(Duration.ofSeconds(15)) // the others take a silent member's keys after 15 s
            .renewDeadline(Duration.ofSeconds(10)) // a member stops all its keys after 10 s without renewing
            .retryPeriod(Duration.ofSeconds(2)))   //   and renews every 2 s
        .build();
    manager.register(Controller.forType(DemoTypes.ARTIST).named("artists")
        .placement(Placement.SHARDED)
        .reconciler(Artist.class, reconciler));
    manager.start();
    // snippet:end sharding
    return manager;
  }

  /** Removes the bucket of the label {@code label}: true once it is gone. */
  private boolean removeBucket(ID label) {
    return buckets.delete("label-" + label.getName());
  }
}
