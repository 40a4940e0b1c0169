package io.setpoint.api.tls;

import java.io.ByteArrayOutputStream;

/** The little DER encoding {@link Pem} needs: wrapping a PKCS#1 RSA key into PKCS#8. */
final class Der {
  /** AlgorithmIdentifier { rsaEncryption (1.2.840.113549.1.1.1), NULL }. */
  private static final byte[] RSA_ALGORITHM = {
    0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00
  };
  private static final byte[] VERSION_0 = {0x02, 0x01, 0x00};

  private Der() {}

  /** PrivateKeyInfo { version 0, rsaEncryption, OCTET STRING { the PKCS#1 key } }. */
  static byte[] rsaPkcs1ToPkcs8(byte[] pkcs1) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(VERSION_0);
    body.writeBytes(RSA_ALGORITHM);
    body.writeBytes(tlv(0x04, pkcs1));
    return tlv(0x30, body.toByteArray());
  }

  private static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int length = value.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.writeBytes(value);
    return out.toByteArray();
  }
}
