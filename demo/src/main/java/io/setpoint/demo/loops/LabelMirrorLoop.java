package io.setpoint.demo.loops;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.LoopRunner;
import io.setpoint.controller.Result;
import io.setpoint.controller.TerminalException;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.loop.Loop.Change;
import io.setpoint.controller.loop.Loop.Handler;
import io.setpoint.controller.loop.Loop.ListerWatcher;
import io.setpoint.controller.loop.Loop.Store;
import io.setpoint.controller.source.Source;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A generic loop that mirrors objects that are not resources into resources (seed 003's "convert
 * objects to resources"): a <em>label catalogue</em>, a directory with one {@code <name>.properties}
 * file per record label, becomes {@code demo.v1.RecordLabel} resources in one partition.
 *
 * <pre>
 * # labels/motown.properties
 * name=Motown Records
 * description=Detroit, 1959
 * </pre>
 *
 * <p>Each mirrored resource is marked with the metadata {@code mirrored-by: <loop name>} (and
 * {@code mirrored-from: <file>}); the loop creates and updates it while its file exists, deletes it
 * when the file goes, and never touches a label it did not mark. It lists both sides, the files and
 * the marked resources, so a label whose file was removed while the loop was not running is deleted
 * at the next start.
 *
 * <p>Run it against {@code ./setpoint agent -dev}: {@code java -cp ... io.setpoint.demo.loops.LabelMirrorLoop
 * labels localhost:8500}. With ACLs on, pass a token in {@code SETPOINT_TOKEN} whose policy grants
 * {@code read}, {@code write} and {@code list} on {@code demo.v1.RecordLabel}.
 */
public final class LabelMirrorLoop {
  private static final Logger log = LoggerFactory.getLogger(LabelMirrorLoop.class);

  /** The loop's default name, and so the default value of the {@link #MIRRORED_BY} marker. */
  public static final String NAME = "label-mirror";
  /** The metadata key that marks a resource as this loop's: its value is the loop's name. */
  public static final String MIRRORED_BY = "mirrored-by";
  /** The metadata key that names the catalogue file a resource was mirrored from. */
  public static final String MIRRORED_FROM = "mirrored-from";
  /** The suffix of catalogue files; the rest of the file name is the resource's name. */
  public static final String SUFFIX = ".properties";

  private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";

  /** One catalogue entry, as the store reads it: the resource name and the label to mirror. */
  public record Entry(String key, RecordLabel label) {}

  private LabelMirrorLoop() {}

  /** The loop named {@value #NAME}, mirroring {@code dir} into the {@code default} partition. */
  public static Loop<String, Entry> loop(Path dir, SetpointClient client, boolean watch, Duration resync) {
    return loop(NAME, dir, client, Tenancies.DEFAULT, watch, resync);
  }

  /**
   * The loop called {@code name}, mirroring the catalogue in {@code dir} into RecordLabels of
   * {@code partition} through {@code client}; with {@code watch}, file changes are seen at once,
   * else at each list (every {@code resync}).
   */
  public static Loop<String, Entry> loop(
      String name, Path dir, SetpointClient client, String partition, boolean watch, Duration resync) {
    Mirror mirror = new Mirror(name, client, partition);
    // The keys are the catalogue's entries and the resources this loop marked: a resource whose
    // entry vanished while the loop was not running is listed, found absent, and deleted.
    ListerWatcher<String> both = () -> {
      Set<String> keys = catalogueKeys(dir);
      keys.addAll(mirror.mirroredNames());
      return keys;
    };
    Store<String, Entry> catalogue = key -> readEntry(dir, key);
    Handler<String, Entry> handler = Handler.of(
        (ctx, entry) -> mirror.upsert(entry),
        (ctx, key) -> mirror.deleteIfMirrored(key));
    return Loop.named(name)
        .listerWatcher(watch ? ListerWatcher.of(both, catalogueWatch(dir)) : both)
        .store(catalogue)
        .handler(handler)
        .resync(resync)
        .concurrency(2)
        .handleTimeout(Duration.ofSeconds(30))
        .build();
  }

  /** The RecordLabel that mirrors {@code key} in {@code partition}. */
  public static ID id(String partition, String key) {
    return Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition(partition), key);
  }

  /** The keys of the catalogue: the files {@code <key>.properties} whose key is a DNS label. */
  static Set<String> catalogueKeys(Path dir) throws IOException {
    Set<String> keys = new TreeSet<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.filter(Files::isRegularFile)
          .map(f -> keyOf(f.getFileName().toString()))
          .flatMap(Optional::stream)
          .forEach(keys::add);
    }
    return keys;
  }

  /** The key a catalogue file name stands for, if it is one ({@code motown.properties}: motown). */
  static Optional<String> keyOf(String fileName) {
    if (!fileName.endsWith(SUFFIX)) {
      return Optional.empty(); // editor backups, temporary files, anything else
    }
    String key = fileName.substring(0, fileName.length() - SUFFIX.length());
    if (!key.matches(DNS_LABEL)) {
      log.warn("catalogue file {} is not mirrored: {} is not a resource name (a DNS label)", fileName, key);
      return Optional.empty();
    }
    return Optional.of(key);
  }

  /** The catalogue entry behind {@code key}, read now; empty when its file is gone. */
  static Optional<Entry> readEntry(Path dir, String key) throws IOException, TerminalException {
    Path file = dir.resolve(key + SUFFIX);
    if (!key.matches(DNS_LABEL) || !Files.isRegularFile(file)) {
      return Optional.empty();
    }
    Properties properties = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(in);
    } catch (NoSuchFileException e) {
      return Optional.empty(); // deleted between the check and the read
    }
    String labelName = properties.getProperty("name", "").strip();
    if (labelName.isEmpty()) {
      // Retrying cannot fix the file; its next change (a watch event, or the next list) will.
      throw new TerminalException(file.getFileName() + " has no name=...; a RecordLabel needs one");
    }
    return Optional.of(new Entry(key, RecordLabel.newBuilder()
        .setName(labelName)
        .setDescription(properties.getProperty("description", "").strip())
        .build()));
  }

  /** The real-time half: the directory's file events, as the keys of the files. */
  private static Source<Change<String>> catalogueWatch(Path dir) {
    DirectoryWatch files = new DirectoryWatch(dir);
    return sink -> files.start(change ->
        keyOf(change.key()).ifPresent(key -> sink.accept(new Change<>(change.kind(), key))));
  }

  /** The resource side: what the loop marked, and how it writes and deletes. */
  private record Mirror(String name, SetpointClient client, String partition) {

    Set<String> mirroredNames() {
      Set<String> names = new TreeSet<>();
      for (Resource r : client.listAll(DemoTypes.RECORD_LABEL, Tenancies.partition(partition))) {
        if (ours(r)) {
          names.add(r.getId().getName());
        }
      }
      return names;
    }

    Result upsert(Entry entry) throws TerminalException, InvalidProtocolBufferException {
      ID id = id(partition, entry.key());
      Optional<Resource> existing = client.findConsistent(id);
      if (existing.isPresent() && !ours(existing.get())) {
        // Made by someone else (by hand, or another mirror): not ours to overwrite.
        throw new TerminalException(Ids.format(id) + " exists and is not marked "
            + MIRRORED_BY + ": " + name + "; " + entry.key() + SUFFIX + " is not mirrored");
      }
      String from = entry.key() + SUFFIX;
      if (existing.isPresent()) {
        Resource current = existing.get();
        // Compare before writing: lists, retries and restarts hand the same entry again.
        if (current.getData().unpack(RecordLabel.class).equals(entry.label())
            && from.equals(current.getMetadataMap().get(MIRRORED_FROM))) {
          return Result.done();
        }
      }
      Resource.Builder desired = Resource.newBuilder().setId(id);
      existing.ifPresent(current -> desired
          .setVersion(current.getVersion())
          .putAllMetadata(current.getMetadataMap())); // others' metadata stays; statuses are not ours to send
      desired.putMetadata(MIRRORED_BY, name)
          .putMetadata(MIRRORED_FROM, from)
          .setData(Any.pack(entry.label()));
      // An update is a compare-and-swap on the version read above (ABORTED, and so retried, if the
      // resource changed meanwhile); a create is a blind write.
      Resource written = client.write(desired.build());
      log.info("{} {} from {}", existing.isPresent() ? "updated" : "created", Ids.format(written.getId()), from);
      return Result.done();
    }

    Result deleteIfMirrored(String key) {
      Optional<Resource> existing = client.findConsistent(id(partition, key));
      if (existing.isPresent() && ours(existing.get())) {
        Resource r = existing.get();
        client.delete(r.getId(), r.getVersion());
        log.info("deleted {}: {}{} is gone", Ids.format(r.getId()), key, SUFFIX);
      }
      return Result.done();
    }

    private boolean ours(Resource r) {
      return name.equals(r.getMetadataMap().get(MIRRORED_BY));
    }

  }

  /**
   * Mirrors the catalogue directory named by the first argument (default {@code labels}, created
   * if missing) into the agent at the second ({@code localhost:8500}), in the partition named by
   * the third ({@code default}), until stopped. Sends {@code SETPOINT_TOKEN} when set.
   */
  public static void main(String[] args) throws IOException, InterruptedException {
    Path dir = Files.createDirectories(Path.of(args.length > 0 ? args[0] : "labels"));
    String address = args.length > 1 ? args[1] : "localhost:8500";
    String partition = args.length > 2 ? args[2] : Tenancies.DEFAULT;
    SetpointClient client = SetpointClient.builder().address(address).token(System.getenv("SETPOINT_TOKEN")).build();
    LoopRunner running = LoopRunner.start(loop(NAME, dir, client, partition, true, Duration.ofSeconds(30)));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      running.close(); // drains the handlings under way before the connection goes
      client.close();
      stopped.countDown();
    }, "label-mirror-shutdown"));
    log.info("mirroring {}/*{} into demo.v1.RecordLabel (partition {}) at {}; Ctrl-C to stop",
        dir.toAbsolutePath(), SUFFIX, partition, address);
    stopped.await();
  }
}
