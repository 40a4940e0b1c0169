package io.setpoint.storage.raft;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.UnsafeByteOperations;
import io.setpoint.storage.engine.StoreEngine.Applied;
import io.setpoint.storage.engine.StoreEngine.RetainedHistory;
import io.setpoint.storage.raft.v1.AppliedRequest;
import io.setpoint.storage.raft.v1.RetainedChange;
import io.setpoint.storage.raft.v1.SnapshotHeader;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.util.MD5FileUtil;

/**
 * The layout of a snapshot file: a length-delimited {@link SnapshotHeader}, then exactly {@code
 * count} length-delimited resources and {@code requests} length-delimited {@link AppliedRequest}s,
 * then {@code bases} resources and {@code changes} {@link RetainedChange}s (the retained history),
 * then the end of the file. A file that ends early or late is rejected rather than half-loaded.
 * Files of format 1, written before the history was kept, are read as retaining none.
 */
final class SnapshotFile {
  static final int FORMAT = 2;
  private static final int WITHOUT_HISTORY = 1;
  private static final int BUFFER = 1 << 16;
  /** The suffix of a snapshot file while it is being written. */
  private static final String TEMPORARY = ".writing";

  /**
   * What a snapshot holds: the store revision, the live resources then (encoded, as the store holds
   * them), the writes with a request id the store remembered, oldest first, and the history it
   * retained, so that watches resume across a restart.
   */
  record Contents(long revision, List<ByteString> resources, List<Applied> requests, RetainedHistory history) {
    /** A snapshot that remembers no request and retains no history. */
    Contents(long revision, List<ByteString> resources) {
      this(revision, resources, List.of(), RetainedHistory.none(revision));
    }
  }

  private SnapshotFile() {}

  /**
   * Writes {@code contents} to {@code target} durably: to a temporary file, synced, then renamed
   * into place and the directory synced, so a crash leaves either no file or a whole one. A write
   * that fails (say the disk is full) removes its temporary file, which would otherwise hold on to
   * the space it took; one left by a crash is removed by {@link #deleteLeftovers}.
   */
  static void write(Path target, Contents contents) throws IOException {
    Path tmp = temporary(target);
    SnapshotHeader header =
        SnapshotHeader.newBuilder()
            .setFormat(FORMAT)
            .setRevision(contents.revision())
            .setCount(contents.resources().size())
            .setRequests(contents.requests().size())
            .setFloor(contents.history().floor())
            .setBases(contents.history().bases().size())
            .setChanges(contents.history().changes().size())
            .build();
    try {
      try (FileChannel channel =
              FileChannel.open(
                  tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
          OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER)) {
        header.writeDelimitedTo(out);
        // The resources as the store holds them, encoded: the bytes writeDelimitedTo would write.
        CodedOutputStream coded = CodedOutputStream.newInstance(out, BUFFER);
        for (ByteString resource : contents.resources()) {
          writeDelimited(coded, resource);
        }
        for (Applied applied : contents.requests()) {
          coded.writeMessageNoTag(AppliedRequest.newBuilder()
              .setRequestId(applied.requestId())
              .setStored(applied.encoded())
              .build());
        }
        for (ByteString base : contents.history().bases()) {
          writeDelimited(coded, base);
        }
        for (RetainedHistory.Change change : contents.history().changes()) {
          coded.writeMessageNoTag(RetainedChange.newBuilder()
              .setRevision(change.revision())
              .setResource(change.encoded())
              .setDeleted(change.deleted())
              .build());
        }
        coded.flush();
        out.flush();
        channel.force(true);
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      deleteQuietly(tmp, e);
      throw e;
    }
    syncDirectory(target.getParent());
  }

  private static void writeDelimited(CodedOutputStream out, ByteString message) throws IOException {
    out.writeUInt32NoTag(message.size());
    out.writeRawBytes(message);
  }

  /**
   * Deletes the temporary files of snapshots whose writing a crash interrupted in {@code dir}; they
   * are never read, only take space.
   *
   * @return the files deleted
   */
  static List<Path> deleteLeftovers(Path dir) throws IOException {
    List<Path> deleted = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return deleted;
    }
    try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(dir, "*" + TEMPORARY)) {
      for (Path leftover : leftovers) {
        Files.deleteIfExists(leftover);
        deleted.add(leftover);
      }
    }
    return deleted;
  }

  static Path temporary(Path target) {
    return target.resolveSibling(target.getFileName() + TEMPORARY);
  }

  private static void deleteQuietly(Path file, Exception failure) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  /** Reads a file written by {@link #write}. */
  static Contents read(Path file) throws IOException {
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), BUFFER)) {
      return read(in, file);
    }
  }

  /** Reads the contents of {@code file}, a file written by {@link #write}, from {@code in}. */
  private static Contents read(InputStream in, Path file) throws IOException {
    SnapshotHeader header = SnapshotHeader.parseDelimitedFrom(in);
    if (header == null || (header.getFormat() != FORMAT && header.getFormat() != WITHOUT_HISTORY)) {
      throw new IOException(file + " is not a snapshot of format " + WITHOUT_HISTORY + " or " + FORMAT + ": " + header);
    }
    List<ByteString> resources = readResources(in, file, header.getCount(), "resources");
    List<Applied> requests = readDelimited(in, file, header.getRequests(), "requests", AppliedRequest.parser()::parseDelimitedFrom)
        .stream().map(r -> new Applied(r.getRequestId(), r.getStored())).toList();
    RetainedHistory history = RetainedHistory.none(header.getRevision());
    if (header.getFormat() == FORMAT) {
      List<ByteString> bases = readResources(in, file, header.getBases(), "bases");
      List<RetainedHistory.Change> changes = readDelimited(in, file, header.getChanges(), "changes",
          RetainedChange.parser()::parseDelimitedFrom).stream()
          .map(c -> new RetainedHistory.Change(c.getRevision(), c.getResource(), c.getDeleted())).toList();
      history = new RetainedHistory(header.getFloor(), bases, changes);
    }
    if (in.read() != -1) {
      throw new IOException(file + " holds more than its " + resources.size() + " resources, "
          + requests.size() + " requests and " + history.changes().size() + " retained changes");
    }
    return new Contents(header.getRevision(), resources, requests, history);
  }

  /**
   * The {@code claimed} length-delimited resources next in {@code in}, kept encoded (the store
   * decodes each as it restores it), all of them or an exception.
   */
  private static List<ByteString> readResources(InputStream in, Path file, long claimed, String what)
      throws IOException {
    return readDelimited(in, file, claimed, what, SnapshotFile::readRaw);
  }

  /** One length-delimited message as its bytes; null at the end of the file. */
  private static ByteString readRaw(InputStream in) throws IOException {
    int first = in.read();
    if (first == -1) {
      return null;
    }
    int size = CodedInputStream.readRawVarint32(first, in);
    byte[] bytes = in.readNBytes(size);
    if (bytes.length != size) {
      throw new IOException("a message of " + size + " bytes is cut short after " + bytes.length);
    }
    return UnsafeByteOperations.unsafeWrap(bytes);
  }

  /** Reads one length-delimited message, or null at the end of the input. */
  private interface Delimited<T> {
    T read(InputStream in) throws IOException;
  }

  /** The {@code claimed} length-delimited messages next in {@code in}, all of them or an exception. */
  private static <T> List<T> readDelimited(
      InputStream in, Path file, long claimed, String what, Delimited<T> parser) throws IOException {
    if (claimed > Integer.MAX_VALUE) {
      throw new IOException(file + " claims " + claimed + " " + what);
    }
    int count = (int) claimed;
    List<T> read = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      T message = parser.read(in);
      if (message == null) {
        throw new IOException(file + " ends after " + i + " of " + count + " " + what);
      }
      read.add(message);
    }
    return read;
  }

  /**
   * Reads a file written by {@link #write} after checking it against the checksum Ratis keeps
   * beside it ({@code FILE.md5}).
   *
   * @throws IOException naming the file and what is wrong with it: no checksum file, a checksum
   *     that does not match, or contents that do not parse
   */
  static Contents readVerified(Path file) throws IOException {
    MD5Hash stored = MD5FileUtil.readStoredMd5ForFile(file.toFile());
    if (stored == null) {
      throw new IOException("its checksum file " + MD5FileUtil.getDigestFileForFile(file.toFile()) + " is missing");
    }
    // One pass: the checksum is computed as the file is parsed, and checked before it is used.
    MessageDigest md5 = md5();
    Contents contents;
    try (InputStream in = new DigestInputStream(new BufferedInputStream(Files.newInputStream(file), BUFFER), md5)) {
      try {
        contents = read(in, file);
      } catch (IOException e) {
        // Damage shows as a parse failure first; the checksum of the whole file says which it is.
        checkSum(MD5FileUtil.computeMd5ForFile(file.toFile()), stored);
        throw new IOException("its contents do not parse (" + e.getMessage() + ")", e);
      }
    }
    checkSum(MD5Hash.newInstance(md5.digest()), stored);
    return contents;
  }

  private static void checkSum(MD5Hash computed, MD5Hash stored) throws IOException {
    if (!computed.equals(stored)) {
      throw new IOException("its MD5 checksum is " + computed + ", not the " + stored + " recorded when it was written");
    }
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has MD5", e);
    }
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
