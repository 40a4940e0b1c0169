/**
 * TLS material from PEM files, shared by the agent's API port, the client and the Raft peers:
 * {@link io.setpoint.api.tls.TlsFiles} names the files, and reads and checks them with the JDK
 * alone (package-private: {@code Pem} parses them, {@code Der} rewraps PKCS#1 keys), so every
 * transport (Armeria, grpc-netty-shaded, Ratis) gets the same keys and the same error messages.
 * See docs/security.md.
 */
package io.setpoint.api.tls;
