package io.setpoint.controller;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.cache.Cache;
import java.time.Clock;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;

/** What a reconciler works with. */
public interface Tools {
  /** The resource service, in-process or remote; the same API either way. */
  SetpointClient client();

  /** The shared, watch-fed cache of every type the controller watches, with its indexes. */
  Cache cache();

  /** A logger whose MDC carries the controller name and, during a reconcile, the resource id. */
  Logger logger();

  /** Records events about resources (as {@code core.v1.Event} resources). */
  EventRecorder events();

  /** The wall clock (a controllable one in tests). */
  Clock clock();

  /**
   * Makes the resource {@code id} (which carries no uid) what the controller wants, whether or not
   * it exists yet, through {@link #client()}: reads it linearizably, lets {@code mutate} shape it,
   * and stores it only if that changed anything. The create is create-only and the update a
   * compare-and-swap on the version read, so nothing written meanwhile is overwritten: a concurrent
   * creator turns the create into an update of what it created, a concurrent writer makes the
   * update read and mutate again.
   *
   * <p>{@code mutate} gets a builder of the stored resource without its statuses (or, when there is
   * none, of just {@code id}) and sets what the controller owns in it: data, metadata, owner. It may
   * run more than once, so it must not have other effects; it must not change the id or the
   * version.
   *
   * <pre>{@code
   * Tools.Outcome out = tools.createOrUpdate(albumId, album -> album
   *     .setOwner(artist.id())
   *     .setData(Any.pack(Album.newBuilder().setName(title).build())));
   * }</pre>
   *
   * @throws SetpointException as the server answered, or {@code ABORTED} after losing 8 races in a
   *     row
   */
  default Outcome createOrUpdate(ID id, Consumer<Resource.Builder> mutate) {
    return CreateOrUpdate.run(client(), id, mutate);
  }

  /**
   * Records what a controller did or saw about a resource, as a {@code core.v1.Event} resource owned
   * by the subject (listable with ListByOwner, deleted with it).
   */
  interface EventRecorder {
    /** A normal event, e.g. {@code normal(artist, "AlbumsCreated", "created 3 albums")}. */
    void normal(Resource subject, String reason, String message);

    /** A warning, e.g. {@code warning(artist, "InvalidLabel", "label foo does not exist")}. */
    void warning(Resource subject, String reason, String message);
  }

  /**
   * What {@link Tools#createOrUpdate} did.
   *
   * @param resource the resource as stored
   * @param operation what was done to it
   */
  record Outcome(Resource resource, Operation operation) {
    /** Both parts are required. */
    public Outcome {
      Objects.requireNonNull(resource, "resource");
      Objects.requireNonNull(operation, "operation");
    }

    /** What {@link Tools#createOrUpdate} did to the resource. */
    public enum Operation {
      /** The resource did not exist; it was created. */
      CREATED,
      /** The resource existed and {@code mutate} changed it; it was updated. */
      UPDATED,
      /** The resource existed and {@code mutate} changed nothing; nothing was written. */
      UNCHANGED
    }
  }
}
