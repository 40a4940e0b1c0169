package io.setpoint.server;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.ValidationException;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals the store's page tokens before they leave the server, and opens them when they come back.
 * The store's own token names the last key of a page in clear, so a caller allowed to list but
 * not to read a type could page one by one and learn every name; sealed, a token is opaque, and
 * one that was altered, cut short, made up, issued by another cluster or issued for another
 * listing is refused as an invalid {@code page_token}.
 *
 * <p>Sealing is AES-256-GCM, with the listing (type, tenancy, name prefix) as associated data.
 * Each token has its own key, derived from the cluster's key and a random 128-bit salt with
 * HMAC-SHA256, so one cluster key seals any number of tokens without GCM's nonce-reuse limit.
 *
 * <p>The cluster's key is a random 256-bit key stored in the store itself, under a type that no
 * server registers (so no API can read, list or watch it), created by whichever member first needs
 * it with a create-if-absent compare-and-swap. Every member of a cluster so uses the same key: a
 * client may continue a listing on another member after a failover, and tokens survive restarts
 * of a durable store. A per-process key would break both; a key derived from configuration would
 * need a secret that every member is given, which Setpoint does not have.
 */
final class PageTokens {
  /** The type of the one resource holding the cluster's key; never registered, so never served. */
  static final Type KEY_TYPE = Types.of("core", "v1", "PageTokenKey");
  static final ID KEY_ID = Ids.of(KEY_TYPE, Tenancies.CLUSTER, "page-tokens");
  private static final byte FORMAT = 1;
  private static final int SALT_BYTES = 16;
  private static final int TAG_BITS = 128;
  /** No sealed token of a valid listing comes near this; longer input is refused unread. */
  private static final int MAX_TOKEN_CHARS = 4096;
  private static final byte[] NONCE = new byte[12];
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Backend backend;
  private volatile SecretKey clusterKey;

  PageTokens(Backend backend) {
    this.backend = backend;
  }

  /** {@code raw}, the store's token for a listing of {@code type} in {@code tenancy}, sealed. */
  String seal(String raw, Type type, Tenancy tenancy, String namePrefix) {
    if (raw.isEmpty()) {
      return raw;
    }
    byte[] salt = new byte[SALT_BYTES];
    RANDOM.nextBytes(salt);
    try {
      Cipher gcm = cipher(Cipher.ENCRYPT_MODE, key(true), salt, type, tenancy, namePrefix);
      byte[] sealed = gcm.doFinal(raw.getBytes(StandardCharsets.UTF_8));
      ByteBuffer out = ByteBuffer.allocate(1 + SALT_BYTES + sealed.length).put(FORMAT).put(salt).put(sealed);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(out.array());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JVM has AES-GCM and HMAC-SHA256", e);
    }
  }

  /**
   * The store's token inside {@code token}, which must have been sealed by this cluster for the
   * same listing.
   *
   * @throws ValidationException on {@code page_token} for any other token
   */
  String open(String token, Type type, Tenancy tenancy, String namePrefix) {
    if (token.isEmpty()) {
      return token;
    }
    byte[] bytes;
    try {
      bytes = token.length() > MAX_TOKEN_CHARS ? null : Base64.getUrlDecoder().decode(token);
    } catch (IllegalArgumentException e) {
      bytes = null;
    }
    if (bytes == null || bytes.length <= 1 + SALT_BYTES || bytes[0] != FORMAT) {
      throw notIssued();
    }
    SecretKey key = key(false);
    if (key == null) {
      throw notIssued(); // this cluster has never sealed a token
    }
    byte[] salt = Arrays.copyOfRange(bytes, 1, 1 + SALT_BYTES);
    try {
      Cipher gcm = cipher(Cipher.DECRYPT_MODE, key, salt, type, tenancy, namePrefix);
      byte[] raw = gcm.doFinal(bytes, 1 + SALT_BYTES, bytes.length - 1 - SALT_BYTES);
      return new String(raw, StandardCharsets.UTF_8);
    } catch (AEADBadTagException e) {
      throw notIssued();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JVM has AES-GCM and HMAC-SHA256", e);
    }
  }

  private static Cipher cipher(int mode, SecretKey clusterKey, byte[] salt, Type type, Tenancy tenancy, String namePrefix)
      throws GeneralSecurityException {
    Mac hmac = Mac.getInstance("HmacSHA256");
    hmac.init(clusterKey);
    // Each derived key seals exactly one token, so a fixed nonce never repeats under a key.
    SecretKey tokenKey = new SecretKeySpec(hmac.doFinal(salt), "AES");
    Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
    gcm.init(mode, tokenKey, new GCMParameterSpec(TAG_BITS, NONCE));
    gcm.updateAAD(listing(type, tenancy, namePrefix));
    return gcm;
  }

  /** What a token is bound to; names and prefixes never hold NUL, so the joining is unambiguous. */
  private static byte[] listing(Type type, Tenancy tenancy, String namePrefix) {
    String listing = FORMAT + "\0" + Types.format(type) + "\0" + tenancy.getPartition() + "\0"
        + tenancy.getNamespace() + "\0" + namePrefix;
    return listing.getBytes(StandardCharsets.UTF_8);
  }

  private static ValidationException notIssued() {
    return ValidationException.of("page_token", "page-token",
        "was not issued for this listing; pass the next_page_token of the previous page unchanged, with the same type, tenancy and name_prefix");
  }

  /**
   * The cluster's key, read once and then kept: it never changes. Only sealing creates it; opening
   * a token before any was sealed finds none.
   */
  private SecretKey key(boolean create) {
    SecretKey key = clusterKey;
    if (key != null) {
      return key;
    }
    synchronized (this) {
      if (clusterKey == null) {
        Resource stored = stored(Consistency.EVENTUAL);
        if (stored == null) {
          // This member may lag behind one that created it: ask the leader before creating.
          stored = stored(Consistency.STRONG);
        }
        if (stored == null && create) {
          stored = created();
        }
        if (stored != null) {
          clusterKey = decode(stored);
        }
      }
      return clusterKey;
    }
  }

  private Resource stored(Consistency consistency) {
    try {
      return backend.read(consistency, KEY_ID);
    } catch (StorageException e) {
      if (e.reason() == StorageException.Reason.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  /** Creates the key; when another member won the race to create it, that one is the key. */
  private Resource created() {
    byte[] key = new byte[32];
    RANDOM.nextBytes(key);
    Resource fresh = Resource.newBuilder()
        .setId(KEY_ID.toBuilder().setUid(Long.toHexString(RANDOM.nextLong())))
        .setGeneration("1")
        .setData(Any.pack(BytesValue.of(ByteString.copyFrom(key))))
        .build();
    try {
      return backend.writeCas(fresh);
    } catch (StorageException e) {
      if (e.reason() != StorageException.Reason.CAS_FAILURE && e.reason() != StorageException.Reason.WRONG_UID) {
        throw e;
      }
      return backend.read(Consistency.STRONG, KEY_ID);
    }
  }

  private static SecretKey decode(Resource stored) {
    try {
      byte[] key = stored.getData().unpack(BytesValue.class).getValue().toByteArray();
      if (key.length != 32) {
        throw new IllegalStateException(Ids.format(KEY_ID) + " holds " + key.length + " bytes, not a 256-bit key");
      }
      return new SecretKeySpec(key, "HmacSHA256");
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(Ids.format(KEY_ID) + " does not hold a key", e);
    }
  }
}
