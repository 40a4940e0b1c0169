package io.setpoint.server;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which tokens (by their secret's hash) list each client certificate identity, kept current by
 * the token mirror's changes, so that a certificate resolves to its token with a map lookup.
 */
final class IdentityIndex implements StoreMirror.Listener<AclView.TokenGrant> {
  private final Map<String, Set<String>> tokensByIdentity = new ConcurrentHashMap<>();

  /** The hashes of the tokens that list {@code key}, a {@link ClientIdentity#key}. */
  List<String> tokens(String key) {
    Set<String> hashes = tokensByIdentity.get(key);
    return hashes == null ? List.of() : List.copyOf(hashes);
  }

  @Override
  public void put(String hash, AclView.TokenGrant previous, AclView.TokenGrant value) {
    // Add before removing, so an identity the token keeps is never missing in between.
    value.identities().forEach(key -> tokensByIdentity.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(hash));
    if (previous != null) {
      previous.identities().stream().filter(key -> !value.identities().contains(key)).forEach(key -> remove(key, hash));
    }
  }

  @Override
  public void removed(String hash, AclView.TokenGrant value) {
    value.identities().forEach(key -> remove(key, hash));
  }

  private void remove(String key, String hash) {
    tokensByIdentity.computeIfPresent(key, (k, hashes) -> {
      hashes.remove(hash);
      return hashes.isEmpty() ? null : hashes;
    });
  }
}
