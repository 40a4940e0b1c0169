package io.setpoint.bench;

import io.setpoint.loadgen.EtcdProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/** The options of the benchmarks that run etcd beside Setpoint: which binary, or none. */
final class EtcdOptions {
  @Option(names = "-etcd", paramLabel = "PATH", defaultValue = "/usr/bin/etcd",
      description = "The etcd binary (default: ${DEFAULT-VALUE}).")
  Path binary;

  @Option(names = "-no-etcd", description = "Run Setpoint only.")
  boolean off;

  /** Whether etcd runs: not turned off, and installed. */
  boolean runs() {
    return !off && EtcdProcess.installed(binary);
  }

  /** "etcd 3.4.23" when etcd runs, else "etcd". */
  String label() {
    return runs() ? "etcd " + version(binary) : "etcd";
  }

  /** Says so when etcd was asked for but is not installed, and Setpoint is reported alone. */
  void reportMissing(PrintWriter out) {
    if (!off && !runs()) {
      out.println("etcd is not installed at " + binary + " (Debian: apt-get install etcd-server); reporting Setpoint alone.");
    }
  }

  /** "3.4.23", from {@code etcd --version}; "?" if it cannot be read. */
  static String version(Path etcd) {
    try {
      Process process = new ProcessBuilder(etcd.toString(), "--version").redirectErrorStream(true).start();
      String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      process.waitFor(10, TimeUnit.SECONDS);
      Matcher m = Pattern.compile("etcd Version: (\\S+)").matcher(text);
      return m.find() ? m.group(1) : "?";
    } catch (IOException e) {
      return "?";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }
}
