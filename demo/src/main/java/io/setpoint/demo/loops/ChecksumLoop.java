package io.setpoint.demo.loops;

import io.setpoint.controller.LoopRunner;
import io.setpoint.controller.Result;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.loop.Loop.Handler;
import io.setpoint.controller.loop.Loop.ListerWatcher;
import io.setpoint.controller.loop.Loop.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A generic loop over the files of a directory: every file {@code f} gets a sidecar {@code
 * .checksums/f.sha256} holding its SHA-256, kept right as the file changes and removed when the
 * file goes. The files are not Setpoint resources; the loop is the same engine as a controller's.
 *
 * <p>Run it: {@code java -cp ... io.setpoint.demo.loops.ChecksumLoop /some/dir}, then add, edit and
 * remove files there.
 */
public final class ChecksumLoop {
  private static final Logger log = LoggerFactory.getLogger(ChecksumLoop.class);

  /** The directory, inside the watched one, that holds the checksums. */
  public static final String SIDECARS = ".checksums";

  /** What the store says about one file: its name and the SHA-256 of its contents, in hex. */
  public record FileState(String name, String sha256) {}

  private ChecksumLoop() {}

  /** The loop over {@code dir}; with {@code watch}, changes are seen at once, else at each list. */
  public static Loop<String, FileState> loop(Path dir, boolean watch, Duration resync) {
    // The keys are the files, and also the checksums: a file deleted while the loop was not
    // running has a checksum but no file, so it is listed and handled as absent.
    ListerWatcher<String> files = () -> names(dir);
    Store<String, FileState> store = name -> read(dir, name);
    Handler<String, FileState> handler = Handler.of(
        (ctx, file) -> {
          writeChecksum(dir, file);
          return Result.done();
        },
        (ctx, name) -> {
          Files.deleteIfExists(sidecar(dir, name));
          return Result.done();
        });
    return Loop.named("checksums")
        .listerWatcher(watch ? ListerWatcher.of(files, new DirectoryWatch(dir)) : files)
        .store(store)
        .handler(handler)
        .resync(resync)
        .concurrency(2)
        .handleTimeout(Duration.ofSeconds(30))
        .build();
  }

  /** The names of the regular files of {@code dir}, and of those that have a checksum. */
  static Set<String> names(Path dir) throws IOException {
    Set<String> names = new TreeSet<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.filter(Files::isRegularFile).forEach(f -> names.add(f.getFileName().toString()));
    }
    Path sidecars = dir.resolve(SIDECARS);
    if (Files.isDirectory(sidecars)) {
      try (Stream<Path> sums = Files.list(sidecars)) {
        sums.map(p -> p.getFileName().toString())
            .filter(n -> n.endsWith(".sha256"))
            .forEach(n -> names.add(n.substring(0, n.length() - ".sha256".length())));
      }
    }
    return names;
  }

  /** The file's current state, read now; empty when it is not (or no longer) a regular file. */
  static Optional<FileState> read(Path dir, String name) throws IOException {
    Path file = dir.resolve(name);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(new FileState(name, sha256(Files.readAllBytes(file))));
    } catch (NoSuchFileException e) {
      return Optional.empty(); // deleted between the check and the read
    }
  }

  /** The sidecar that holds the checksum of {@code name}. */
  public static Path sidecar(Path dir, String name) {
    return dir.resolve(SIDECARS).resolve(name + ".sha256");
  }

  private static void writeChecksum(Path dir, FileState file) throws IOException {
    Path sidecar = sidecar(dir, file.name());
    String line = file.sha256() + "  " + file.name() + "\n";
    // Compare before writing: an unchanged file leaves its sidecar alone (idempotent handling).
    if (Files.exists(sidecar) && Files.readString(sidecar, StandardCharsets.UTF_8).equals(line)) {
      return;
    }
    Files.createDirectories(sidecar.getParent());
    Path tmp = Files.createTempFile(sidecar.getParent(), "sum", ".tmp");
    Files.writeString(tmp, line, StandardCharsets.UTF_8);
    // .tmp names do not end in .sha256, so a crash here never lists a bogus key.
    Files.move(tmp, sidecar, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** Keeps the checksums of the directory named by the first argument until interrupted. */
  public static void main(String[] args) throws InterruptedException {
    Path dir = Path.of(args.length > 0 ? args[0] : ".");
    try (LoopRunner running = LoopRunner.start(loop(dir, true, Duration.ofSeconds(30)))) {
      log.info("keeping {} in step; Ctrl-C to stop", dir.toAbsolutePath().resolve(SIDECARS));
      new CountDownLatch(1).await();
    }
  }
}
