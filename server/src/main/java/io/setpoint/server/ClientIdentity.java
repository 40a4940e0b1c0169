package io.setpoint.server;

import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;

/**
 * Who a verified client certificate says its holder is: its SPIFFE IDs (URI subject alternative
 * names with the {@code spiffe} scheme) and its subject distinguished name. Tokens list such
 * identities ({@code acl.v1.Token.identities}); {@link #keys()} are what those are matched by.
 */
record ClientIdentity(List<String> spiffeIds, X500Principal subject) {
  static final String SPIFFE_SCHEME = "spiffe://";
  private static final int URI_SAN = 6;
  private static final int MAX_SPIFFE_ID = 2048;
  private static final Pattern TRUST_DOMAIN = Pattern.compile("^[a-z0-9._-]+$");
  private static final Pattern PATH_SEGMENT = Pattern.compile("^[A-Za-z0-9._-]+$");

  /**
   * The identity of the verified peer of {@code session}, or empty when there is no TLS session or
   * the client sent no certificate. The TLS handshake has verified the certificate (against the
   * agent's {@code -tls-ca}) before any request is read.
   */
  static Optional<ClientIdentity> of(SSLSession session) {
    if (session == null) {
      return Optional.empty();
    }
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException none) {
      return Optional.empty();
    }
    if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
      return Optional.empty();
    }
    List<String> spiffe = new ArrayList<>();
    try {
      Collection<List<?>> names = leaf.getSubjectAlternativeNames();
      if (names != null) {
        for (List<?> name : names) {
          if (name.size() == 2 && name.get(0) instanceof Integer kind && kind == URI_SAN
              && name.get(1) instanceof String uri && uri.startsWith(SPIFFE_SCHEME)) {
            spiffe.add(uri);
          }
        }
      }
    } catch (CertificateParsingException unreadable) {
      // no usable alternative names: the subject still identifies the certificate
    }
    return Optional.of(new ClientIdentity(List.copyOf(spiffe), leaf.getSubjectX500Principal()));
  }

  /** The keys a token's identities are matched by, SPIFFE IDs first, then the subject. */
  List<String> keys() {
    List<String> keys = new ArrayList<>();
    spiffeIds.forEach(id -> keys.add(spiffeKey(id)));
    if (!subject.getName().isEmpty()) {
      keys.add(subjectKey(subject));
    }
    return keys;
  }

  /** For error messages: {@code spiffe://example.org/ci, subject CN=alice,O=Team A}. */
  String describe() {
    List<String> parts = new ArrayList<>(spiffeIds);
    parts.add("subject " + (subject.getName().isEmpty() ? "(empty)" : subject.getName()));
    return String.join(", ", parts);
  }

  /**
   * The matching key of an identity a token lists.
   *
   * @throws IllegalArgumentException saying why it is neither a SPIFFE ID nor a distinguished name
   */
  static String key(String identity) {
    if (identity.regionMatches(true, 0, SPIFFE_SCHEME, 0, SPIFFE_SCHEME.length())) {
      checkSpiffeId(identity);
      return spiffeKey(identity);
    }
    X500Principal subject;
    try {
      subject = new X500Principal(identity);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("\"" + identity + "\" must be a SPIFFE ID (spiffe://trust-domain/path) "
          + "or a certificate subject such as CN=alice,O=Team A (" + e.getMessage() + ")");
    }
    if (subject.getName().isEmpty()) {
      throw new IllegalArgumentException("must not be empty: give a SPIFFE ID or a certificate subject");
    }
    return subjectKey(subject);
  }

  private static void checkSpiffeId(String id) {
    String problem = null;
    String rest = id.substring(SPIFFE_SCHEME.length());
    int slash = rest.indexOf('/');
    String domain = slash < 0 ? rest : rest.substring(0, slash);
    if (!id.startsWith(SPIFFE_SCHEME)) {
      problem = "the scheme must be lowercase spiffe://";
    } else if (id.length() > MAX_SPIFFE_ID) {
      problem = "must be at most " + MAX_SPIFFE_ID + " characters";
    } else if (!TRUST_DOMAIN.matcher(domain).matches()) {
      problem = "the trust domain \"" + domain + "\" must be lowercase letters, digits, ., _ and -";
    } else if (slash >= 0) {
      for (String segment : rest.substring(slash + 1).split("/", -1)) {
        if (!PATH_SEGMENT.matcher(segment).matches() || segment.equals(".") || segment.equals("..")) {
          problem = "the path segment \"" + segment + "\" must be non-empty letters, digits, ., _ and - (not . or ..)";
          break;
        }
      }
    }
    if (problem != null) {
      throw new IllegalArgumentException("\"" + id + "\" is not a SPIFFE ID: " + problem);
    }
  }

  private static String spiffeKey(String id) {
    return "spiffe " + id;
  }

  private static String subjectKey(X500Principal subject) {
    return "subject " + subject.getName(X500Principal.CANONICAL);
  }
}
