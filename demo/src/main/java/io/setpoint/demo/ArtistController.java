package io.setpoint.demo;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Mappers;
import io.setpoint.controller.Result;
import io.setpoint.controller.Tools;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.resource.Decoded;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Gives every {@code demo.v2.Artist} one owned {@code demo.v2.Album} per title of its discography
 * ("Greatest Hits" when it lists none), removes albums it no longer lists, and reports in its
 * status: {@code Accepted}, and one {@code AlbumN} condition per album pointing at it. An album
 * deleted or changed by hand is put back, because album changes map to their owner.
 */
public final class ArtistController {
  /** The status key the controller writes. */
  public static final String STATUS_KEY = "demo.setpoint.io/artist";
  static final String DEFAULT_ALBUM = "Greatest Hits";

  private ArtistController() {}

  // snippet:start controller
  /** The controller, for a manager to run. */
  public static Controller controller() {
    return Controller.forType(DemoTypes.ARTIST)
        .named("demo-artist")
        .watch(DemoTypes.ALBUM, Mappers.ownerOfType(DemoTypes.ARTIST))
        .concurrency(2)
        // An artist deleted needs nothing (TypedReconciler.deleted): the server cascades to its albums.
        .reconciler(Artist.class, (artist, ctx, tools) -> {
          reconcile(tools, artist);
          return Result.done();
        });
  }
  // snippet:end controller

  private static void reconcile(Tools tools, Decoded<Artist> artist) {
    SetpointClient client = tools.client();
    List<String> titles = artist.data().getDiscographyCount() == 0
        ? List.of(DEFAULT_ALBUM) : artist.data().getDiscographyList();
    Status.Builder status = Status.newBuilder().setObservedGeneration(artist.resource().getGeneration());
    Set<String> wanted = new HashSet<>();
    int n = 0;
    for (String title : titles) {
      ID albumId = Ids.of(DemoTypes.ALBUM, artist.id().getTenancy(), albumName(artist.id().getName(), title));
      if (!wanted.add(albumId.getName())) {
        continue; // two titles with the same slug
      }
      // snippet:start write-album
      client.write(Resource.newBuilder()
          .setId(albumId)
          .setOwner(artist.id())
          .setData(Any.pack(Album.newBuilder().setName(title).build()))
          .build());
      // snippet:end write-album
      Conditions.set(status, Conditions.about(
          Conditions.isTrue("Album" + (++n), "Created", "album \"" + title + "\" exists"), Ids.reference(albumId)));
    }
    for (Resource album : client.listByOwner(artist.id())) {
      if (album.getId().getType().equals(DemoTypes.ALBUM) && !wanted.contains(album.getId().getName())) {
        deleteQuietly(client, album.getId());
      }
    }
    // snippet:start status
    Conditions.set(status, Conditions.isTrue("Accepted", "Accepted", n + " album(s) in place"));
    Status desired = status.build();
    if (!Statuses.equal(artist.resource(), STATUS_KEY, desired)) {
      client.writeStatus(artist.id(), STATUS_KEY, desired);
      tools.events().normal(artist.resource(), "Reconciled", n + " album(s) in place");
    }
    // snippet:end status
  }

  /** {@code <artist>-<title slug>}, cut to a DNS label. */
  static String albumName(String artist, String title) {
    String slug = (artist + "-" + title).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    slug = slug.length() > 63 ? slug.substring(0, 63) : slug;
    return slug.replaceAll("^-+|-+$", "");
  }

  private static void deleteQuietly(SetpointClient client, ID id) {
    try {
      client.delete(id);
    } catch (SetpointException e) {
      if (!e.isNotFound()) {
        throw e;
      }
    }
  }
}
