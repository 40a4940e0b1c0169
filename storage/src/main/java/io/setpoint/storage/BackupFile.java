package io.setpoint.storage;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UnsafeByteOperations;
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
import java.util.function.Consumer;

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
   * A snapshot file read and checked, its resources as encoded in the file.
   *
   * @param sha256 the checksum it carries (and matched), in hex
   */
  public record Contents(BackupHeader header, List<ByteString> encoded, String sha256) {
    public Contents {
      encoded = List.copyOf(encoded);
    }

    /**
     * The resources, decoded now.
     *
     * @throws IOException when one does not parse as a resource
     */
    public List<Resource> resources() throws IOException {
      List<Resource> resources = new ArrayList<>(encoded.size());
      for (int i = 0; i < encoded.size(); i++) {
        resources.add(decode(encoded.get(i), i, encoded.size()));
      }
      return resources;
    }
  }

  /**
   * What a snapshot file read and checked holds, without its resources.
   *
   * @param count how many resources it holds
   * @param sha256 the checksum it carries (and matched), in hex
   */
  public record Summary(BackupHeader header, long count, String sha256) {}

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
    List<ByteString> resources = new ArrayList<>();
    Summary summary = read(in, resources::add);
    return new Contents(summary.header(), resources, summary.sha256());
  }

  /**
   * Reads a snapshot file and checks its framing and checksum, handing {@code each} resource, as
   * encoded in the file, to {@code each} as it is read: a large file is checked without holding
   * it. The resources are not parsed here; whatever {@code each} received is only valid if this
   * returns normally.
   *
   * @throws IOException naming what is wrong: not a snapshot file, another format, cut short,
   *     bytes after the end, or a checksum that does not match
   */
  public static Summary read(InputStream in, Consumer<ByteString> each) throws IOException {
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
    for (int i = 0; i < count; i++) {
      each.accept(next(digested, i, count));
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
    return new Summary(header, count, HexFormat.of().formatHex(computed));
  }

  /** Resource {@code i} of {@code count}: its length, then as many bytes. */
  private static ByteString next(InputStream in, int i, int count) throws IOException {
    String what = "resource " + (i + 1) + " of " + count;
    int first = in.read();
    if (first == -1) {
      throw new EOFException("the file ends before " + what + ": it was cut short");
    }
    int size;
    try {
      size = CodedInputStream.readRawVarint32(first, in);
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("the file is damaged at " + what + ": " + e.getMessage(), e);
    }
    if (size < 0) {
      throw new IOException("the file is damaged at " + what + ": a negative length");
    }
    byte[] bytes = in.readNBytes(size);
    if (bytes.length != size) {
      throw new EOFException("the file ends inside " + what + ": it was cut short");
    }
    return UnsafeByteOperations.unsafeWrap(bytes);
  }

  /** Resource {@code i} of {@code count}, decoded. */
  static Resource decode(ByteString encoded, int i, int count) throws IOException {
    try {
      return Resource.parseFrom(encoded);
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("the file is damaged at resource " + (i + 1) + " of " + count + ": " + e.getMessage(), e);
    }
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
