package io.setpoint.server;

import com.google.protobuf.Any;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.CoreTypes;
import io.setpoint.resource.Registry;
import io.setpoint.storage.Backend;
import java.time.Clock;

/** Resource handlers over a test's store, with the core and demo types registered, and what they write. */
final class DemoHandlers {
  private DemoHandlers() {}

  /** A handler of the core and demo types over {@code store}, with default limits. */
  static ResourceHandler over(Backend store) {
    Registry registry = new Registry();
    CoreTypes.register(registry);
    DemoTypes.register(registry);
    return new ResourceHandler(registry, store, Clock.systemUTC(), ServiceLimits.DEFAULT, new SimpleMeterRegistry());
  }

  /** The artist Nina, as a client writes her: no uid, no version. */
  static Resource nina() {
    return Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, "nina"))
        .setData(Any.pack(Artist.newBuilder().setName("Nina").build()))
        .build();
  }

  /** An album owned by {@code artist} (an id with its uid), as a client writes it. */
  static Resource albumOf(ID artist) {
    return Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ALBUM, "nina-pastel-blues"))
        .setOwner(artist)
        .setData(Any.pack(Album.newBuilder().setName("Pastel Blues").build()))
        .build();
  }

  /** {@code resource} written through {@code handler} by a caller allowed everything; what was stored. */
  static Resource write(ResourceHandler handler, Resource resource) {
    return handler.write(Authorizer.allowAll(), WriteRequest.newBuilder().setResource(resource).build()).getResource();
  }
}
