package io.setpoint.server;

import java.util.regex.Pattern;

/**
 * The syntactic rules of names, labels and keys, shared by every request validator (and the ACL
 * types' validation, which checks names of policies and prefixes of names).
 */
final class Rules {
  /** A DNS label, at most 63 characters: names, partitions and namespaces. */
  public static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");
  /** What a name prefix may hold. */
  public static final Pattern NAME_PREFIX = Pattern.compile("^[-a-z0-9]{0,63}$");
  /** A ULID in canonical Crockford base32. */
  static final Pattern ULID = Pattern.compile("^[0-9A-HJKMNP-TV-Z]{26}$");
  /** A store revision. */
  static final Pattern VERSION = Pattern.compile("^[1-9][0-9]{0,18}$");
  /** Metadata keys: like Kubernetes label keys, at most 253 characters. */
  static final Pattern METADATA_KEY = Pattern.compile("^[A-Za-z0-9]([-A-Za-z0-9_./]{0,251}[A-Za-z0-9])?$");
  /** Status keys, one per controller, e.g. {@code demo.setpoint.io/artist}. */
  static final Pattern STATUS_KEY = Pattern.compile("^[a-z0-9]([-a-z0-9_./]{0,251}[a-z0-9])?$");
  /** The holder of a lease: a manager's identity, such as {@code host-1234-5f2c}. */
  static final Pattern HOLDER = Pattern.compile("^[A-Za-z0-9]([-A-Za-z0-9_.:@]{0,251}[A-Za-z0-9])?$");
  /** A write's request id: the Java client's are 22 characters of base64url. */
  public static final Pattern REQUEST_ID = Pattern.compile("^[A-Za-z0-9._~:-]{1,128}$");
  /** Condition types, e.g. {@code Accepted}. */
  static final Pattern CONDITION_TYPE = Pattern.compile("^[A-Z][A-Za-z0-9]{0,63}$");
  /** Condition reasons, e.g. {@code OK} or {@code MissingAlbum}. */
  static final Pattern CONDITION_REASON = Pattern.compile("^[A-Za-z][A-Za-z0-9_]{0,127}$");

  static final int MAX_METADATA_VALUE = 4096;
  static final int MAX_METADATA_ENTRIES = 64;
  static final int MAX_CONDITIONS = 64;
  static final int MAX_CONDITION_MESSAGE = 4096;
  /** Shard hash ranges in one List or WatchList. */
  static final int MAX_HASH_RANGES = 1024;

  private Rules() {}
}
