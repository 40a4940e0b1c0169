package io.setpoint.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import io.setpoint.cli.CliRun;
import io.setpoint.loadgen.EtcdProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code setpoint bench scale} at 2,000 resources against a real durable agent and a real etcd,
 * each a process of its own: every row of both tables is there, and the figures agree with one
 * another and with what was loaded (every resource listed, one watch event each, backups that hold
 * every document). Timings are printed, not checked. etcd and etcdctl must be installed (Debian's
 * etcd-server and etcd-client): the test fails without them rather than test half the command.
 */
@Timeout(120)
class ScaleBenchTest {
  private static final Path ETCDCTL = Path.of("/usr/bin/etcdctl");
  /** The description in each 200 B document: what every backup must hold at least, per resource. */
  private static final int DESCRIPTION_BYTES = 200 - ScaleLoad.MIN_BYTES;

  @Test
  void measuresBothSystemsAndTheFiguresAgreeWithWhatWasLoaded() throws IOException {
    assertThat(EtcdProcess.installed(EtcdProcess.DEFAULT_BINARY))
        .as("etcd must be installed at %s (Debian: apt-get install etcd-server)", EtcdProcess.DEFAULT_BINARY).isTrue();
    assertThat(Files.isExecutable(ETCDCTL)).as("etcdctl must be installed at %s (Debian: apt-get install etcd-client)", ETCDCTL)
        .isTrue();
    Set<String> before = benchDirs();

    CliRun run = CliRun.run("bench", "scale", "-sizes", "2k");

    assertThat(run.code()).as(run.toString()).isZero();
    String out = run.out();
    assertThat(out)
        .contains("sizes 2k; 64 writes in flight over HTTP/1.1, 200 B JSON documents; pages of 1,000")
        .contains("setpoint (raft), 2k resources: starting on an empty data directory")
        .contains("etcd 3.4", "  wrote 2,000 in ")
        .doesNotContain("failed", "not measured");

    String setpoint = section(out, "setpoint \\(raft\\):");
    assertThat(count(setpoint, "list, resources")).isEqualTo(2000);
    assertThat(count(setpoint, "list, pages")).isEqualTo(2);
    assertThat(count(setpoint, "watch snapshot, events")).isEqualTo(2000);
    // The snapshot file counts every resource of the store: the Artists and what the agent keeps of its own.
    assertThat(count(setpoint, "backup, resources in it")).isGreaterThanOrEqualTo(2000);
    assertThat(total(setpoint, "live heap, after the load")).isGreaterThan(total(setpoint, "live heap, empty"));
    assertCommonRows(setpoint);

    String etcd = section(out, "etcd [0-9.]+:");
    assertThat(count(etcd, "list, resources")).isEqualTo(2000);
    assertThat(count(etcd, "list, pages")).isEqualTo(2);
    assertThat(etcd).doesNotContain("live heap", "watch snapshot", "resources in it");
    assertCommonRows(etcd);

    String ratios = section(out, "setpoint / etcd \\(.*");
    for (String row : new String[] {"load, writes/s", "RSS, after the load", "data dir, after the load", "backup, file",
        "list, time", "restart to ready"}) {
      assertThat(total(ratios, row)).as(row).isPositive();
    }
    assertThat(ratios).doesNotContain("list, resources", "watch snapshot");
    // Each server's directory (data, log, backup file) is gone with it.
    assertThat(benchDirs()).isSubsetOf(before);
  }

  /** The rows both systems have, with figures that agree with the load. */
  private static void assertCommonRows(String table) {
    assertThat(total(table, "load, writes/s")).isPositive();
    assertThat(total(table, "load, time")).isPositive();
    // 2,000 writes at the rate printed take the time printed, to the rounding of both.
    assertThat(2000 / total(table, "load, writes/s")).isCloseTo(total(table, "load, time"),
        withPercentage(5));
    for (String row : new String[] {"RSS, empty", "RSS, after the load", "RSS, after the restart", "data dir, empty",
        "data dir, after the load", "backup, time", "list, time", "start to ready, empty", "stop, SIGTERM to exit",
        "restart to ready"}) {
      assertThat(total(table, row)).as(row).isPositive();
    }
    assertThat(total(table, "data dir, after the load")).isGreaterThanOrEqualTo(total(table, "data dir, empty"));
    // Every backup holds every document's description, at least.
    assertThat(perResource(table, "backup, file")).isGreaterThanOrEqualTo(DESCRIPTION_BYTES);
  }

  @Test
  void aSizeThatIsNoNumberIsAUsageErrorNamingTheOption() {
    CliRun run = CliRun.run("bench", "scale", "-sizes", "10k,lots");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("Invalid value for option '-sizes'",
        "expected a number of resources such as 2000, 10k or 1m, was 'lots'");
  }

  @Test
  void aSizeOfNoResourcesIsAUsageError() {
    CliRun run = CliRun.run("bench", "scale", "-sizes", "0k");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("Invalid value for option '-sizes'", "a size must be from 1 to 999999999 resources, was '0k'");
  }

  @Test
  void aSizeTooLargeForTheNamesIsAUsageError() {
    CliRun run = CliRun.run("bench", "scale", "-sizes", "1000m");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("Invalid value for option '-sizes'", "a size must be from 1 to 999999999 resources, was '1000m'");
  }

  @Test
  void noWritesInFlightIsAUsageError() {
    CliRun run = CliRun.run("bench", "scale", "-in-flight", "0");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-in-flight must be positive, was 0");
  }

  @Test
  void documentsTooSmallForANameAreAUsageError() {
    CliRun run = CliRun.run("bench", "scale", "-value-bytes", "20");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-value-bytes must be at least " + ScaleLoad.MIN_BYTES
        + " (a document with an empty description), was 20");
  }

  @Test
  void aZeroTimeoutIsAUsageError() {
    CliRun run = CliRun.run("bench", "scale", "-timeout", "0s");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-timeout must be positive, was 0.0 s");
  }

  @Test
  void sizesReadAndPrintWithTheirSuffixes() {
    ScaleSize sizes = new ScaleSize();
    assertThat(sizes.convert("2000")).isEqualTo(2000);
    assertThat(sizes.convert("10k")).isEqualTo(10_000);
    assertThat(sizes.convert("1M")).isEqualTo(1_000_000);
    assertThat(ScaleSize.label(10_000)).isEqualTo("10k");
    assertThat(ScaleSize.label(10_000_000)).isEqualTo("10m");
    assertThat(ScaleSize.label(2_500)).isEqualTo("2,500");
  }

  @Test
  void eachDocumentIsExactlyTheSizeAskedAndItsOwn() {
    assertThat(ScaleLoad.document(7, 200)).hasSize(200)
        .startsWith("{\"data\":{\"name\":\"artist-000000007\",\"description\":\"").endsWith("\"}}")
        .isNotEqualTo(ScaleLoad.document(8, 200).replace("000000008", "000000007"));
    assertThat(ScaleLoad.document(7, ScaleLoad.MIN_BYTES)).endsWith("\"description\":\"\"}}");
  }

  /** The table whose title line matches {@code title}, up to the blank line after it. */
  private static String section(String out, String title) {
    Matcher m = Pattern.compile("^" + title + "$", Pattern.MULTILINE).matcher(out);
    assertThat(m.find()).as("no table %s in:%n%s", title, out).isTrue();
    int end = out.indexOf("\n\n", m.start());
    return out.substring(m.start(), end < 0 ? out.length() : end);
  }

  private static Matcher row(String table, String label) {
    Matcher m = Pattern.compile("^" + Pattern.quote(label)
            + " +(-?[0-9][0-9,.]*)(?:x| s| MiB|/s)?(?: +(-?[0-9][0-9,.]*)(?:x| us| B))?$", Pattern.MULTILINE)
        .matcher(table);
    assertThat(m.find()).as("no row '%s' in:%n%s", label, table).isTrue();
    return m;
  }

  private static double total(String table, String label) {
    return Double.parseDouble(row(table, label).group(1).replace(",", ""));
  }

  private static long count(String table, String label) {
    return (long) total(table, label);
  }

  private static double perResource(String table, String label) {
    String per = row(table, label).group(2);
    assertThat(per).as("row '%s' has no figure per resource in:%n%s", label, table).isNotNull();
    return Double.parseDouble(per.replace(",", ""));
  }

  private static Set<String> benchDirs() throws IOException {
    try (Stream<Path> all = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return all.map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith("setpoint-bench-setpoint-") || name.startsWith("setpoint-bench-etcd-"))
          .collect(Collectors.toSet());
    }
  }
}
