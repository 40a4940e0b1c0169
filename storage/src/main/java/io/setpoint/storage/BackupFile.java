package io.setpoint.storage;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Timestamp;
import io.setpoint.api.operator.v1.BackupHeader;
import io.setpoint.api.operator.v1.BackupTrailer;
import io.setpoint.api.v1.Resource;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The snapshot file of a backup ({@code setpoint snapshot save}): the magic line {@code
 * SETPOINT-SNAPSHOT}, a length-delimited {@link BackupHeader}, its {@code count} length-delimited
 * resources, and a {@link BackupTrailer} with the SHA-256 of every byte before it. A file that is
 * cut short, has bytes after its trailer, or fails its checksum is refused whole, never half read.
 */
public final class BackupFile {
  /** The format this version writes and reads. */
  public static final int FORMAT = 1;
  private static final byte[] MAGIC = "SETPOINT-SNAPSHOT\n".getBytes(StandardCharsets.US_ASCII);

  /**
   * A snapshot file read and checked.
   *
   * @param sha256 the checksum it carries (and matched), in hex
   */
  public record Contents(BackupHeader header, List<Resource> resources, String sha256) {}

  private BackupFile() {}

  /** Writes {@code snapshot} as a snapshot file to {@code out}, naming {@code node} as its source. */
  public static void write(OutputStream out, StoreSnapshot snapshot, String node, Instant taken) throws IOException {
    MessageDigest sha256 = sha256();
    OutputStream buffered = new BufferedOutputStream(out, 1 << 16);
    DigestOutputStream digested = new DigestOutputStream(buffered, sha256);
    digested.write(MAGIC);
    BackupHeader.newBuilder()
        .setFormat(FORMAT)
        .setRevision(snapshot.revision())
        .setCount(snapshot.size())
        .setNode(node)
        .setTaken(Timestamp.newBuilder().setSeconds(taken.getEpochSecond()).setNanos(taken.getNano()))
        .build()
        .writeDelimitedTo(digested);
    // Each resource as the store holds it, encoded: what writeDelimitedTo would write, without decoding.
    CodedOutputStream resources = CodedOutputStream.newInstance(digested, 1 << 16);
    for (ByteString resource : snapshot.encoded()) {
      resources.writeUInt32NoTag(resource.size());
      resources.writeRawBytes(resource);
    }
    resources.flush();
    digested.flush();
    BackupTrailer.newBuilder()
        .setSha256(ByteString.copyFrom(sha256.digest()))
        .build()
        .writeDelimitedTo(buffered);
    buffered.flush();
  }

  /**
   * Reads a snapshot file whole and checks it.
   *
   * @throws IOException naming what is wrong: not a snapshot file, another format, cut short,
   *     bytes after the end, or a checksum that does not match
   */
  public static Contents read(InputStream in) throws IOException {
    MessageDigest sha256 = sha256();
    DigestInputStream digested = new DigestInputStream(in, sha256);
    byte[] magic = digested.readNBytes(MAGIC.length);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException("not a Setpoint snapshot file (it does not start with SETPOINT-SNAPSHOT)");
    }
    BackupHeader header = parse(() -> BackupHeader.parseDelimitedFrom(digested), "its header");
    if (header.getFormat() != FORMAT) {
      throw new IOException("snapshot format " + header.getFormat() + " is not one this version reads (" + FORMAT + ")");
    }
    if (Long.compareUnsigned(header.getCount(), Integer.MAX_VALUE) > 0) {
      throw new IOException("the header counts " + Long.toUnsignedString(header.getCount()) + " resources, too many");
    }
    int count = (int) header.getCount();
    List<Resource> resources = new ArrayList<>(Math.min(count, 1 << 20));
    for (int i = 0; i < count; i++) {
      int n = i;
      resources.add(parse(() -> Resource.parseDelimitedFrom(digested), "resource " + (n + 1) + " of " + count));
    }
    byte[] computed = sha256.digest();
    digested.on(false);
    BackupTrailer trailer = parse(() -> BackupTrailer.parseDelimitedFrom(digested), "its checksum");
    if (digested.read() != -1) {
      throw new IOException("the file goes on after its checksum: it is not one snapshot file");
    }
    if (!Arrays.equals(trailer.getSha256().toByteArray(), computed)) {
      throw new IOException("checksum mismatch: the file holds SHA-256 " + HexFormat.of().formatHex(trailer.getSha256().toByteArray())
          + " but its contents hash to " + HexFormat.of().formatHex(computed) + "; the file is damaged");
    }
    return new Contents(header, resources, HexFormat.of().formatHex(computed));
  }

  private interface Parse<T> {
    T next() throws IOException;
  }

  /** One delimited message, or an IOException saying the file ended or is damaged there. */
  private static <T> T parse(Parse<T> parse, String what) throws IOException {
    T message;
    try {
      message = parse.next();
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("the file is damaged at " + what + ": " + e.getMessage(), e);
    }
    if (message == null) {
      throw new EOFException("the file ends before " + what + ": it was cut short");
    }
    return message;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
