package io.setpoint.api.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.setpoint.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsFilesTest {
  @TempDir Path dir;

  @Test
  void loadsACertificateItsKeyAndTheCa() {
    TestCertificates ca = TestCertificates.create(dir);
    TlsFiles files = ca.issue("server", "localhost", "127.0.0.1");

    TlsFiles.Loaded loaded = files.load();

    assertThat(loaded.chain()).hasSize(1);
    assertThat(loaded.chain().get(0).getSubjectX500Principal().getName()).isEqualTo("CN=server");
    assertThat(loaded.trusted()).containsExactly(ca.caCertificate());
    assertThat(loaded.keyManagerFactory().getKeyManagers()).isNotEmpty();
    assertThat(loaded.trustManagerFactory().getTrustManagers()).isNotEmpty();
    assertThat(TlsFiles.of(files.certificate(), files.privateKey()).load().trusted()).isEmpty();
  }

  @Test
  void aKeyOfAnotherCertificateIsRefusedNamingBothFiles() {
    TestCertificates ca = TestCertificates.create(dir);
    TlsFiles server = ca.issue("server");
    TlsFiles other = ca.issue("other");

    assertThatThrownBy(() -> TlsFiles.of(server.certificate(), other.privateKey()).load())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(other.privateKey().toString())
        .hasMessageContaining(server.certificate().toString())
        .hasMessageContaining("does not belong to the certificate");
  }

  @Test
  void missingAndNonPemFilesAreNamed() throws Exception {
    TlsFiles server = TestCertificates.create(dir).issue("server");
    Path missing = dir.resolve("missing.pem");
    Path text = Files.writeString(dir.resolve("text.pem"), "hello\n");

    assertThatThrownBy(() -> TlsFiles.of(missing, server.privateKey()).load())
        .hasMessageStartingWith(missing + ": cannot read the file");
    assertThatThrownBy(() -> TlsFiles.of(text, server.privateKey()).load())
        .hasMessage(text + ": not a PEM file (no -----BEGIN ...----- block)");
    // A certificate where the key should be, and the other way round.
    assertThatThrownBy(() -> TlsFiles.of(server.certificate(), server.certificate()).load())
        .hasMessage(server.certificate() + ": holds no PEM private key (-----BEGIN PRIVATE KEY-----)");
    assertThatThrownBy(() -> TlsFiles.of(server.privateKey(), server.privateKey()).load())
        .hasMessage(server.privateKey() + ": holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    assertThatThrownBy(() -> server.withTrustedCa(text).load()).hasMessageStartingWith(text + ": ");
  }

  @Test
  void readsPkcs1RsaKeysAndExplainsSec1AndEncryptedOnes() throws Exception {
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    KeyPair keys = rsa.generateKeyPair();
    byte[] pkcs1 = PrivateKeyInfo.getInstance(keys.getPrivate().getEncoded()).parsePrivateKey().toASN1Primitive().getEncoded();
    Path pkcs1File = dir.resolve("rsa.pem");
    TestCertificates.writePem(pkcs1File, "RSA PRIVATE KEY", pkcs1);

    PrivateKey read = Pem.privateKey(pkcs1File);
    assertThat(read.getEncoded()).isEqualTo(keys.getPrivate().getEncoded());

    Path sec1 = dir.resolve("ec.pem");
    TestCertificates.writePem(sec1, "EC PRIVATE KEY", new byte[] {0x30, 0x00});
    assertThatThrownBy(() -> Pem.privateKey(sec1)).hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
    Path encrypted = dir.resolve("enc.pem");
    TestCertificates.writePem(encrypted, "ENCRYPTED PRIVATE KEY", new byte[] {0x30, 0x00});
    assertThatThrownBy(() -> Pem.privateKey(encrypted)).hasMessageContaining("is encrypted");
  }
}
