package io.setpoint.demo;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import io.setpoint.demo.v1.Executive;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import io.setpoint.demo.v2.Track;
import io.setpoint.resource.AclHooks;
import io.setpoint.resource.Hooks;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.Violations;
import java.util.Map;

/**
 * The demo types of {@code agent -dev}, with their admission hooks. Their ACLs are the per-type
 * {@code read}, {@code write} and {@code list} permissions ({@link AclHooks#perType()}), so policies
 * can grant them by type pattern and name prefix.
 */
public final class DemoTypes {
  // snippet:start artist-type
  /** Namespace-scoped; name required, genre defaulted to disco. */
  public static final Type ARTIST = Types.of("demo", "v2", "Artist");
  // snippet:end artist-type
  /** Namespace-scoped; name and every track name required. */
  public static final Type ALBUM = Types.of("demo", "v2", "Album");
  /** Partition-scoped; name required. */
  public static final Type RECORD_LABEL = Types.of("demo", "v1", "RecordLabel");
  /** Cluster-scoped; position required. */
  public static final Type EXECUTIVE = Types.of("demo", "v1", "Executive");

  private DemoTypes() {}

  /** Registers every demo type. */
  public static void register(Registry registry) {
    // snippet:start register-artist
    registry
        .register(
            Registration.of(ARTIST, Artist.class)
                .acls(AclHooks.perType())
                .mutate(Hooks.decodeAndMutate(Artist.class, DemoTypes::defaultGenre))
                .validate(Hooks.decodeAndValidate(Artist.class, (artist, v) -> validateArtist(artist.data(), v)))
                .build())
        // snippet:end register-artist
        .register(
            Registration.of(ALBUM, Album.class)
                .acls(AclHooks.perType())
                .validate(Hooks.decodeAndValidate(Album.class, (album, v) -> validateAlbum(album.data(), v)))
                .build())
        .register(
            Registration.of(RECORD_LABEL, RecordLabel.class)
                .acls(AclHooks.perType())
                .validate(
                    Hooks.decodeAndValidate(
                        RecordLabel.class, (label, v) -> v.requireNonEmpty("name", label.data().getName())))
                .build())
        .register(
            Registration.of(EXECUTIVE, Executive.class)
                .acls(AclHooks.perType())
                .validate(
                    Hooks.decodeAndValidate(
                        Executive.class, (exec, v) -> v.requireNonEmpty("position", exec.data().getPosition())))
                .build());
  }

  private static Artist defaultGenre(Artist artist) {
    return artist.getGenre() == Genre.GENRE_UNSPECIFIED
        ? artist.toBuilder().setGenre(Genre.GENRE_DISCO).build()
        : artist;
  }

  private static void validateArtist(Artist artist, Violations v) {
    v.requireNonEmpty("name", artist.getName());
    if (artist.getGenre() == Genre.UNRECOGNIZED) {
      v.add("genre", "enum", "is not a known genre");
    }
    for (int i = 0; i < artist.getDiscographyCount(); i++) {
      if (artist.getDiscography(i).isBlank()) {
        v.add("discography[" + i + "]", "required", "album title must not be blank");
      }
    }
    if (!artist.getLabel().isEmpty() && !artist.getLabel().matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
      v.add("label", "dns-label", "must name a demo.v1.RecordLabel (a DNS label)");
    }
    for (Map.Entry<String, String> member : artist.getGroupMembersMap().entrySet()) {
      if (member.getKey().isBlank()) {
        v.key("group_members", member.getKey()).add("required", "member name must not be blank");
      }
    }
  }

  private static void validateAlbum(Album album, Violations v) {
    v.requireNonEmpty("name", album.getName());
    if (album.getYearOfRelease() < 0) {
      v.add("year_of_release", "range", "must not be negative");
    }
    // snippet:start validate-tracks
    for (int i = 0; i < album.getTracksCount(); i++) {
      Track track = album.getTracks(i);
      v.index("tracks", i).requireNonEmpty("name", track.getName());
    }
    // snippet:end validate-tracks
  }
}
