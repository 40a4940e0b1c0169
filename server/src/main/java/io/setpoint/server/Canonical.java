package io.setpoint.server;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Message;
import com.google.protobuf.UnsafeByteOperations;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Deterministic protobuf encoding, so that equal messages (maps included) have equal bytes. */
final class Canonical {
  private Canonical() {}

  static ByteString bytes(Message message) {
    byte[] out = new byte[message.getSerializedSize()];
    CodedOutputStream stream = CodedOutputStream.newInstance(out);
    stream.useDeterministicSerialization();
    try {
      message.writeTo(stream);
      stream.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException("encoding into an array cannot fail", e);
    }
    return UnsafeByteOperations.unsafeWrap(out);
  }
}
