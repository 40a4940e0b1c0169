package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The UI's operations pages in a real browser: the cluster page of a three-member durable
 * cluster marks a stopped follower unreachable within 5 s; the charts plot the writes a test makes;
 * a resource is created from YAML after a dry run shows a validation error, and an edit that lost
 * a race shows the conflict.
 */
@EnabledIf(value = "io.setpoint.cli.Browser#installed", disabledReason = Browser.MISSING)
class WebUiOpsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @RegisterExtension final CliAgent agent = new CliAgent();
  @RegisterExtension final Browser browser = new Browser();
  @TempDir Path dir;
  private final List<CliRun> members = new ArrayList<>();

  @AfterEach
  void stopMembers() throws InterruptedException {
    ClusterArgs.stopAll(members);
  }

  @Test
  void theClusterPageShowsThreeMembersAndTheirLeaderAndMarksAStoppedFollowerUnreachableWithinFiveSeconds()
      throws Exception {
    ClusterArgs cluster = new ClusterArgs(dir, 3);
    int[] api = cluster.apiPorts();
    for (int i = 0; i < 3; i++) {
      members.add(CliRun.start(cluster.member(i)));
    }
    for (int port : api) {
      ClusterArgs.awaitReady(port, Duration.ofSeconds(60));
    }
    String leader = await().atMost(WAIT).ignoreExceptions()
        .until(() -> json(api[0], "/api/operator/cluster").get("leader").asText(), name -> !name.isEmpty());
    int leading = Arrays.asList(cluster.name(0), cluster.name(1), cluster.name(2)).indexOf(leader);
    WebDriver ui = browser.open("http://127.0.0.1:" + api[leading] + "/ui/cluster");
    await().atMost(WAIT).ignoreExceptions().until(() -> rows(ui).size() == 3
        && rows(ui).stream().allMatch(r -> !r.getAttribute("data-role").equals("unreachable")));
    assertThat(ui.findElement(By.id("leader")).getText()).isEqualTo(leader);
    assertThat(ui.findElement(By.id("replicated")).getText()).startsWith("yes");
    assertThat(ui.findElement(By.id("readiness")).getAttribute("data-ready")).isEqualTo("true");
    assertThat(ui.findElement(By.id("disk")).getText()).contains("free of").contains(cluster.dataDir(leading).toString());
    assertThat(Long.parseLong(ui.findElement(By.id("commit-index")).getText())).isPositive();
    assertThat(ui.findElement(By.cssSelector("#members tr[data-member='" + leader + "']")).getAttribute("data-role"))
        .isEqualTo("leader");

    // Five seconds from the moment the stop begins, however long the agent takes to stop.
    int follower = (leading + 1) % 3;
    long stopping = System.nanoTime();
    members.get(follower).interruptAndJoin();
    Duration left = Duration.ofSeconds(5).minusNanos(System.nanoTime() - stopping);
    String row = "#members tr[data-member='" + cluster.name(follower) + "']";
    await().atMost(left).ignoreExceptions()
        .until(() -> ui.findElement(By.cssSelector(row)).getAttribute("data-role"), "unreachable"::equals);
    assertThat(ui.findElement(By.cssSelector(row + " .role")).getText()).isEqualTo("unreachable");
    assertThat(ui.findElements(By.cssSelector("#members tr[data-role=unreachable]"))).hasSize(1);
    browser.screenshot("cluster-unreachable");

    // The CLI reads the same status from the gRPC API, and says the same.
    CliRun status = CliRun.run("operator", "status", "-address", "127.0.0.1:" + api[leading]);
    assertThat(status.code()).as(status.toString()).isZero();
    assertThat(status.out()).contains("leader:        " + leader).contains("ready:         yes");
    assertThat(status.out().lines().filter(l -> l.startsWith(cluster.name(follower) + " ")))
        .singleElement().asString().contains("unreachable");
  }

  @Test
  void theChartsPlotTheWritesMadeAndTheirLatency() throws Exception {
    int port = agent.start("agent", "-dev", "-no-demo-controllers", "-port", "0", "-meter-sample-interval", "250ms");
    WebDriver ui = browser.open("http://127.0.0.1:" + port + "/ui/cluster");
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("replicated")).getText()
        .startsWith("no: this agent runs the in-memory store"));
    assertThat(rows(ui)).hasSize(1);
    CliRun status = CliRun.run("operator", "status", "-address", "127.0.0.1:" + port);
    assertThat(status.code()).as(status.toString()).isZero();
    assertThat(status.out()).contains("answered by:   memory (in-memory store: one member, not replicated)")
        .contains("ready:         yes").contains("disk:          no data directory");
    int writes = 0;
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      // Batches of growing size, each in a sample interval of its own, so the chart has a shape.
      for (int batch = 1; batch <= 4; batch++) {
        int sampled = json(port, "/api/operator/metrics").get("samples").size();
        for (int i = 0; i < batch * 10; i++, writes++) {
          client.write(artist(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "chart-" + writes), "A"));
        }
        await().atMost(WAIT).until(() -> json(port, "/api/operator/metrics").get("samples").size() >= sampled + 2);
      }
    }
    int written = writes;
    // Every write counted once in the samples the writes chart draws; no other writer runs.
    await().atMost(WAIT).ignoreExceptions().until(() -> countsDrawn(ui) == written);
    WebElement latency = ui.findElement(By.cssSelector("svg[data-chart=latency] g[data-series=writeLatencyP99Ms]"));
    assertThat(Arrays.stream(latency.getAttribute("data-values").split(",", -1)).filter(v -> !v.isEmpty())
        .mapToDouble(Double::parseDouble)).isNotEmpty().allMatch(ms -> ms > 0);
    assertThat(ui.findElements(By.cssSelector("svg[data-chart=writes] polyline, svg[data-chart=writes] circle")))
        .isNotEmpty();
    assertThat(ui.findElements(By.cssSelector("svg.chart"))).hasSize(6);
    browser.screenshot("charts");
  }

  @Test
  void aResourceCreatedFromYamlAfterADryRunShowsItsValidationError() throws Exception {
    int port = agent.start("agent", "-dev", "-port", "0");
    WebDriver ui = browser.open("http://127.0.0.1:" + port + "/ui/r/demo/v2/Artist");
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("new-resource")).isDisplayed());
    ui.findElement(By.id("new-resource")).click();
    WebElement yaml = await().atMost(WAIT).ignoreExceptions()
        .until(() -> ui.findElement(By.id("yaml")), t -> t.getAttribute("value").startsWith("data:"));
    ui.findElement(By.id("name")).sendKeys("ella");
    setText(ui, yaml, "data:\n  name: Ella Fitzgerald\n  label: Not A Label\n");
    ui.findElement(By.id("dry-run")).click();
    WebElement violation = await().atMost(WAIT).ignoreExceptions()
        .until(() -> ui.findElement(By.cssSelector("#violations li[data-rule=dns-label]")), WebElement::isDisplayed);
    assertThat(violation.getAttribute("data-field")).endsWith("label");
    assertThat(violation.getText()).contains("must name a demo.v1.RecordLabel");
    browser.screenshot("yaml-editor");

    setText(ui, yaml, "data:\n  name: Ella Fitzgerald\n  discography: [Ella and Louis]\n");
    ui.findElement(By.id("dry-run")).click();
    await().atMost(WAIT).ignoreExceptions()
        .until(() -> ui.findElement(By.id("admitted")).getText(), t -> t.contains("name: Ella Fitzgerald"));
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      assertThat(client.listAll(DemoTypes.ARTIST, Tenancies.of("default", "default")).stream().map(r -> r.getId().getName())).doesNotContain("ella");
      ui.findElement(By.id("save")).click();
      await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("saved")).getText(), t -> t.startsWith("Saved"));
      Resource stored = client.read(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "ella"));
      assertThat(stored.getData().unpack(io.setpoint.demo.v2.Artist.class).getDiscographyList())
          .containsExactly("Ella and Louis");
    }
  }

  @Test
  void anEditThatLostARaceShowsTheConflictAndSavesOnceReloaded() throws Exception {
    int port = agent.start("agent", "-dev", "-no-demo-controllers", "-port", "0");
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      io.setpoint.api.v1.ID id = Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "sarah");
      client.write(artist(id, "Sarah Vaughan"));
      WebDriver ui = browser.open("http://127.0.0.1:" + port + "/ui/r/demo/v2/Artist/sarah?partition=default&namespace=default");
      await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("edit")).isDisplayed());
      ui.findElement(By.id("edit")).click();
      WebElement yaml = await().atMost(WAIT).ignoreExceptions()
          .until(() -> ui.findElement(By.id("yaml")), t -> t.getAttribute("value").contains("Sarah Vaughan"));
      String loaded = yaml.getAttribute("value");

      // Another writer gets in between the load and the save.
      Resource other = client.write(artist(id, "Sassy"));
      setText(ui, yaml, loaded.replace("Sarah Vaughan", "Sarah Lois Vaughan"));
      ui.findElement(By.id("save")).click();
      WebElement conflict = await().atMost(WAIT).ignoreExceptions()
          .until(() -> ui.findElement(By.id("conflict")), WebElement::isDisplayed);
      assertThat(conflict.getText()).startsWith("Conflict: the resource changed since this version was loaded");
      assertThat(client.read(id).getData().unpack(io.setpoint.demo.v2.Artist.class).getName()).isEqualTo("Sassy");
      browser.screenshot("yaml-conflict");

      ui.findElement(By.id("reload")).click();
      await().atMost(WAIT).ignoreExceptions().until(() -> yaml.getAttribute("value").contains("version: \"" + other.getVersion() + "\""));
      setText(ui, yaml, yaml.getAttribute("value").replace("Sassy", "Sarah Lois Vaughan"));
      ui.findElement(By.id("save")).click();
      await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("saved")).getText(), t -> t.startsWith("Saved"));
      assertThat(client.read(id).getData().unpack(io.setpoint.demo.v2.Artist.class).getName()).isEqualTo("Sarah Lois Vaughan");
    }
  }

  private static Resource artist(io.setpoint.api.v1.ID id, String name) {
    return Resource.newBuilder().setId(id)
        .setData(com.google.protobuf.Any.pack(io.setpoint.demo.v2.Artist.newBuilder().setName(name).build())).build();
  }

  /** Replaces a textarea's text as typing would, in one step (typing hundreds of keys is slow). */
  private static void setText(WebDriver ui, WebElement area, String text) {
    ((JavascriptExecutor) ui).executeScript("arguments[0].value = arguments[1];", area, text);
  }

  private static List<WebElement> rows(WebDriver ui) {
    return ui.findElements(By.cssSelector("#members tbody tr"));
  }

  /** The writes of every sample the writes chart draws, added up. */
  private static long countsDrawn(WebDriver ui) {
    String counts = ui.findElement(By.cssSelector("svg[data-chart=writes]")).getAttribute("data-counts");
    return Arrays.stream(counts.split(",")).filter(c -> !c.isEmpty()).mapToLong(Long::parseLong).sum();
  }

  private static JsonNode json(int port, String path) throws Exception {
    HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200) {
      throw new IllegalStateException(answer.statusCode() + " " + answer.body());
    }
    return JSON.readTree(answer.body());
  }
}
