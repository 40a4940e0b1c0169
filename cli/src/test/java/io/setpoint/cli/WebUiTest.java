package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The web UI in a real browser against {@code setpoint agent -dev}: what the CLI writes appears
 * live, the ownership graph matches what the server says the resource owns, the controllers page
 * shows reconciles with their triggers, queues a manual one and shows a plugin controller's faults,
 * and with ACLs on a token sees only what it may read.
 */
@EnabledIf(value = "io.setpoint.cli.Browser#installed", disabledReason = Browser.MISSING)
class WebUiTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension final CliAgent agent = new CliAgent();
  @RegisterExtension final Browser browser = new Browser();

  @Test
  void anArtistAppliedThroughTheCliAppearsLiveAcceptedWithAnOwnershipGraphOfItAndWhatItOwns() throws Exception {
    String address = "127.0.0.1:" + agent.start("agent", "-dev", "-port", "0");
    WebDriver ui = browser.open("http://" + address + "/ui/r/demo/v2/Artist");
    awaitLive(ui);
    // Gone if the page reloads: the changes below must arrive through the open watch.
    js(ui).executeScript("window.setpointTestMark = 'not reloaded'");

    CliRun applied = CliRun.runWithStdin("""
        id: {type: demo.v2.Artist, name: coltrane}
        data: {name: John Coltrane, discography: [Giant Steps, Blue Train, A Love Supreme]}
        """, "resource", "apply", "-f", "-", "-address", address);
    long appliedAt = System.nanoTime();
    assertThat(applied.code()).as(applied.toString()).isZero();
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(
            By.cssSelector("#resources tr[data-name=coltrane] .chip[data-condition=Accepted]")).getAttribute("data-state"),
        "TRUE"::equals);
    System.out.printf("WebUiTest: Accepted=TRUE shown %d ms after the CLI's apply returned%n",
        (System.nanoTime() - appliedAt) / 1_000_000);
    assertThat(mark(ui)).isEqualTo("not reloaded");
    browser.screenshot("artists");

    ui.findElement(By.cssSelector("#resources tr[data-name=coltrane] a")).click();
    try (SetpointClient client = SetpointClient.connect(address)) {
      ID coltrane = client.read(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "coltrane")).getId();
      await().atMost(WAIT).ignoreExceptions().until(() -> graphNames(ui).equals(ownedAndSelf(client, coltrane)));
      Set<String> shown = graphNames(ui);
      assertThat(shown).contains("coltrane", "coltrane-giant-steps", "coltrane-blue-train", "coltrane-a-love-supreme");
      assertThat(ui.findElements(By.cssSelector("#graph .node"))).hasSize(shown.size());
      assertThat(ui.findElement(By.cssSelector("#ownership p")).getText())
          .isEqualTo(shown.size() + " resource(s): this one and " + (shown.size() - 1) + " it owns.");
    }
    assertThat(ui.findElement(By.cssSelector("#conditions tr[data-condition=Accepted] .chip")).getText()).isEqualTo("TRUE");
    assertThat(mark(ui)).isEqualTo("not reloaded");
    browser.screenshot("artist");
  }

  @Test
  void theControllersPageShowsAReconcileWithTheWriteThatCausedItAndReconcileNowQueuesAManualOne() throws Exception {
    String address = "127.0.0.1:" + agent.start("agent", "-dev", "-port", "0");
    WebDriver ui = browser.open("http://" + address + "/ui/controllers");
    CliRun applied = CliRun.runWithStdin("""
        id: {type: demo.v2.Artist, name: nina}
        data: {name: Nina Simone}
        """, "resource", "apply", "-f", "-", "-address", address);
    assertThat(applied.code()).as(applied.toString()).isZero();

    String key = "demo.v2.Artist/default/default/nina";
    String row = "#recent tr[data-controller=demo-artist][data-key='" + key + "']";
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElements(By.cssSelector(row + " [data-trigger=EVENT]")).stream()
        .anyMatch(t -> t.getText().startsWith("EVENT upsert " + key + "@")));
    WebElement controller = ui.findElement(By.cssSelector("#controllers tr[data-controller=demo-artist]"));
    assertThat(controller.findElements(By.tagName("td")).get(4).getText()).isEqualTo("2"); // workers
    assertThat(Long.parseLong(controller.findElement(By.cssSelector(".total")).getText())).isPositive();
    assertThat(ui.findElements(By.cssSelector(row + " [data-trigger=MANUAL]"))).isEmpty();
    browser.screenshot("controllers");

    ui.findElement(By.cssSelector(row + " button.reconcile-now")).click();
    await().atMost(WAIT).ignoreExceptions()
        .until(() -> ui.findElement(By.id("reconcile-result")).getText(), "Queued Artist nina for demo-artist."::equals);
    await().atMost(WAIT).ignoreExceptions()
        .until(() -> !ui.findElements(By.cssSelector(row + " [data-trigger=MANUAL]")).isEmpty());
  }

  /** A plugin controller whose filter has a bug: each Artist event is let through as a fault. */
  private static final String PICKY_PLUGIN = """
      package acme.plugin;

      import io.setpoint.controller.Controller;
      import io.setpoint.controller.Result;
      import io.setpoint.controller.Manager;
      import io.setpoint.demo.DemoTypes;
      import io.setpoint.server.plugin.SetpointPlugin;

      public final class PickyPlugin implements SetpointPlugin {
        @Override
        public void controllers(Manager manager) {
          manager.register(Controller.forType(DemoTypes.ARTIST).named("picky")
              .filter(event -> { throw new AssertionError("a filter's bug"); })
              .reconciler((ctx, tools, req) -> Result.done()));
        }
      }
      """;

  @Test
  void theControllersPageShowsAControllersFaultsAndTheLastOne(@TempDir Path dir) throws Exception {
    Path plugins = Files.createDirectories(dir.resolve("plugins"));
    PluginJars.build(dir.resolve("build"), plugins.resolve("picky.jar"), Map.of("acme.plugin.PickyPlugin", PICKY_PLUGIN),
        List.of("acme.plugin.PickyPlugin"));
    String address = "127.0.0.1:" + agent.start("agent", "-dev", "-port", "0", "-plugins", plugins.toString());
    WebDriver ui = browser.open("http://" + address + "/ui/controllers");
    CliRun applied = CliRun.runWithStdin("""
        id: {type: demo.v2.Artist, name: odd}
        data: {name: Odd}
        """, "resource", "apply", "-f", "-", "-address", address);
    assertThat(applied.code()).as(applied.toString()).isZero();

    String row = "#controllers tr[data-controller=picky]";
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.cssSelector(row + " .last-fault")).getText(),
        text -> text.contains("filter failed (upsert of demo.v2.Artist/default/default/odd"));
    WebElement faults = ui.findElement(By.cssSelector(row + " .faults"));
    assertThat(Long.parseLong(faults.getText())).isPositive();
    assertThat(faults.getAttribute("class")).contains("error");
    assertThat(ui.findElement(By.cssSelector(row + " .last-fault")).getText()).contains("AssertionError: a filter's bug");
    assertThat(ui.findElement(By.cssSelector("#controllers tr[data-controller=demo-artist] .faults")).getText()).isEqualTo("0");
    browser.screenshot("controller-faults");
  }

  @Test
  void withAclsOnTheUiAsksForATokenAndShowsOnlyWhatTheTokenMayRead() throws Exception {
    String address = "127.0.0.1:" + agent.start("agent", "-dev", "-acls", "-port", "0");
    CliRun bootstrap = CliRun.run("acl", "bootstrap", "-address", address);
    assertThat(bootstrap.code()).as(bootstrap.toString()).isZero();
    String management = bootstrap.out().lines().filter(l -> l.startsWith("Secret:")).findFirst().orElseThrow()
        .substring("Secret:".length()).trim();
    CliRun policy = CliRun.runWithStdin("""
        id: {type: acl.v1.Policy, name: n-artists}
        data:
          rules:
            - {type: demo.v2.Artist, permissions: [list]}
            - {type: demo.v2.Artist, name_prefix: n, permissions: [read]}
        """, "resource", "apply", "-f", "-", "-token", management, "-address", address);
    assertThat(policy.code()).as(policy.toString()).isZero();
    CliRun token = CliRun.run("acl", "token", "create", "-policy", "n-artists", "-secret-only",
        "-token", management, "-address", address);
    assertThat(token.code()).as(token.toString()).isZero();
    for (String name : List.of("nina", "nat", "miles")) {
      CliRun artist = CliRun.runWithStdin("id: {type: demo.v2.Artist, name: " + name + "}\ndata: {name: " + name + "}\n",
          "resource", "apply", "-f", "-", "-token", management, "-address", address);
      assertThat(artist.code()).as(artist.toString()).isZero();
    }

    WebDriver ui = browser.open("http://" + address + "/ui/");
    WebElement secret = await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("token")), e -> true);
    secret.sendKeys(token.out().trim());
    ui.findElement(By.id("sign-in")).click();

    // The types it may list, with what it may read of them counted; nothing else.
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(
        By.cssSelector("#types tr[data-type='demo.v2.Artist'] .count")).getText(), "2"::equals);
    assertThat(ui.findElements(By.cssSelector("#types tbody tr")))
        .extracting(row -> row.getAttribute("data-type")).containsExactly("demo.v2.Artist");
    browser.screenshot("types-with-token");

    ui.findElement(By.linkText("demo.v2.Artist")).click();
    await().atMost(WAIT).ignoreExceptions().until(() -> rowNames(ui), Set.of("nat", "nina")::equals);
    // Signing out forgets the token: the next view asks for one again.
    ui.findElement(By.id("sign-out")).click();
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("token")).isDisplayed());
  }

  private static void awaitLive(WebDriver ui) {
    await().atMost(WAIT).ignoreExceptions()
        .until(() -> ui.findElement(By.id("live")).getAttribute("data-state"), "live"::equals);
  }

  private static JavascriptExecutor js(WebDriver ui) {
    return (JavascriptExecutor) ui;
  }

  private static Object mark(WebDriver ui) {
    return js(ui).executeScript("return window.setpointTestMark");
  }

  private static Set<String> rowNames(WebDriver ui) {
    return ui.findElements(By.cssSelector("#resources tbody tr")).stream()
        .map(row -> row.getAttribute("data-name")).collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> graphNames(WebDriver ui) {
    return ui.findElements(By.cssSelector("#graph .node")).stream()
        .map(node -> node.getAttribute("data-name")).collect(Collectors.toCollection(TreeSet::new));
  }

  /** The resource and everything it owns, transitively, as the server lists them. */
  private static Set<String> ownedAndSelf(SetpointClient client, ID root) {
    Set<String> out = new TreeSet<>();
    out.add(root.getName());
    for (Resource child : client.listByOwner(root)) {
      out.addAll(ownedAndSelf(client, child.getId()));
    }
    return out;
  }
}
