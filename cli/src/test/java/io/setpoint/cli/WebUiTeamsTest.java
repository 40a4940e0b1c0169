package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.server.AclTypes;
import io.setpoint.server.Agent;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The two-team example of docs/security.md in a real browser: an agent with ACLs on, and the
 * tokens of team-a and team-b, each with a policy on the demo types of its own namespace of
 * partition default. Signed in with one team's token, the UI's lists (at load and live), resource
 * pages, YAML editor and cluster page show none of the other team's resources and refuse to write
 * them, with the server's permission-denied message. One agent and one browser for the class.
 */
@EnabledIf(value = "io.setpoint.cli.Browser#installed", disabledReason = Browser.MISSING)
class WebUiTeamsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String DENIED = "Not allowed with this token: permission denied: the token lacks ";
  /** Each team's artists (name and data name) and albums, written with the management token. */
  private static final Map<String, Map<String, String>> ARTISTS = Map.of(
      "team-a", Map.of("a-nina", "Nina Simone", "a-ella", "Ella Fitzgerald"),
      "team-b", Map.of("b-miles", "Miles Davis", "b-sarah", "Sarah Vaughan", "b-chet", "Chet Baker"));
  private static final Map<String, List<String>> ALBUMS = Map.of(
      "team-a", List.of("a-pastel-blues"),
      "team-b", List.of("b-kind-of-blue", "b-sketches-of-spain"));
  /** The artist of each team whose page the other team opens. */
  private static final Map<String, String> OPENED = Map.of("team-a", "a-nina", "team-b", "b-miles");

  private static final Browser browser = new Browser();
  private static Agent agent;
  private static String base;
  private static SetpointClient management;
  private static final Map<String, String> tokens = new HashMap<>();

  @BeforeAll
  static void agentTeamsAndTheirResources() {
    agent = Agent.builder().port(0).types(DemoTypes::register).start();
    String address = "127.0.0.1:" + agent.port();
    base = "http://" + address;
    String secret;
    try (SetpointClient anonymous = SetpointClient.connect(address)) {
      secret = anonymous.bootstrapAcls().getSecret();
    }
    management = SetpointClient.builder().address(address).token(secret).build();
    for (String team : List.of("team-a", "team-b")) {
      // The policy of docs/security.md's example: the demo types in default/TEAM, no prod- artists.
      management.write(resource(Ids.of(AclTypes.POLICY, team), Policy.newBuilder()
          .setDescription(team + " may do everything with the demo types in its namespace")
          .addRules(Rule.newBuilder().setType("demo.*.*").setPartition("default").setNamespace(team)
              .addAllPermissions(List.of("read", "write", "list")))
          .addRules(Rule.newBuilder().setType("demo.v2.Artist").setNamespace(team).setNamePrefix("prod-")
              .addPermissions("write").setEffect("deny"))
          .build()));
      tokens.put(team, management.createToken(CreateTokenRequest.newBuilder().setName(team).addPolicies(team).build())
          .getSecret());
      ARTISTS.get(team).forEach((name, shown) -> management.write(artist(team, name, shown)));
      for (String album : ALBUMS.get(team)) {
        management.write(resource(Ids.of(DemoTypes.ALBUM, Tenancies.of("default", team), album),
            Album.newBuilder().setName(album).build()));
      }
    }
  }

  @AfterAll
  static void stop() {
    browser.quit();
    if (management != null) {
      management.close();
    }
    if (agent != null) {
      agent.close();
    }
  }

  @ParameterizedTest(name = "{0} does not see {1}''s")
  @CsvSource({"team-a, team-b", "team-b, team-a"})
  void theListsInEveryNamespaceShowTheTeamsOwnResourcesAndCountOnlyThose(String team, String other) {
    Set<String> own = names(DemoTypes.ARTIST, team);
    Set<String> others = names(DemoTypes.ARTIST, other);
    assertThat(own).isNotEmpty();
    assertThat(others).isNotEmpty().doesNotContainAnyElementsOf(own);

    // The types page counts, in every tenancy, what the token may read: its own namespace's.
    WebDriver ui = signIn(team, "/ui/");
    await().atMost(WAIT).ignoreExceptions().until(() -> count(ui, "demo.v2.Artist"), String.valueOf(own.size())::equals);
    assertThat(count(ui, "demo.v2.Album")).isEqualTo(String.valueOf(names(DemoTypes.ALBUM, team).size()));

    ui.findElement(By.linkText("demo.v2.Artist")).click();
    awaitLive(ui);
    await().atMost(WAIT).ignoreExceptions().until(() -> rowNames(ui), own::equals);
    assertThat(ui.findElements(By.cssSelector("#resources tbody tr a")))
        .extracting(WebElement::getText).allMatch(shown -> shown.startsWith("default/" + team + "/"));
    assertThat(ui.findElement(By.id("count")).getText()).isEqualTo(own.size() + " shown of " + own.size());
    String page = ui.findElement(By.id("view")).getText();
    others.forEach(name -> assertThat(page).doesNotContain(name));

    // Asking for the other namespace only is refused, and says so.
    ui.get(base + "/ui/r/demo/v2/Artist?namespace=" + other);
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("live")).getAttribute("data-state"), "failed"::equals);
    assertThat(ui.findElement(By.cssSelector("#view .error")).getText())
        .isEqualTo(DENIED + "\"list\" on demo.v2.Artist in */" + other);
    assertThat(ui.findElements(By.cssSelector("#resources tbody tr"))).isEmpty();
  }

  @ParameterizedTest(name = "{0} cannot open {1}''s")
  @CsvSource({"team-a, team-b", "team-b, team-a"})
  void theOtherTeamsResourceOpenedByItsAddressShowsPermissionDeniedAndNoneOfItsData(String team, String other)
      throws Exception {
    // The team's own artist, the same way: its data is shown (so the page does show data it may read).
    String mine = OPENED.get(team);
    WebDriver ui = signIn(team, resourcePage(team, mine));
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.cssSelector("#data pre")).getText(),
        text -> text.contains(ARTISTS.get(team).get(mine)));

    String theirs = OPENED.get(other);
    Resource stored = management.read(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", other), theirs));
    ui.get(base + resourcePage(other, theirs));
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.cssSelector("#facts .error")).getText(),
        (DENIED + "\"list\" on demo.v2.Artist in default/" + other)::equals);
    assertThat(ui.findElement(By.id("live")).getAttribute("data-state")).isEqualTo("failed");
    assertThat(ui.findElement(By.id("data")).getText()).isEmpty();
    assertThat(ui.findElement(By.id("conditions")).getText()).isEmpty();
    assertThat(ui.findElements(By.cssSelector("#graph .node"))).isEmpty();
    String page = ui.findElement(By.tagName("body")).getText();
    assertThat(page).doesNotContain(ARTISTS.get(other).get(theirs)).doesNotContain(stored.getId().getUid())
        .doesNotContain(stored.getVersion());
    browser.screenshot("team-denied-" + team);
  }

  @ParameterizedTest(name = "{0} does not see {1}''s")
  @CsvSource({"team-a, team-b", "team-b, team-a"})
  void anOpenListShowsTheTeamsNewResourceLiveAndNotTheOtherTeams(String team, String other) {
    WebDriver ui = signIn(team, "/ui/r/demo/v2/Artist");
    awaitLive(ui);
    await().atMost(WAIT).ignoreExceptions().until(() -> rowNames(ui), names(DemoTypes.ARTIST, team)::equals);
    // Gone if the page reloads: what appears below must come through the open watch.
    js(ui).executeScript("window.setpointTestMark = 'not reloaded'");

    // The other team's first: once the team's own (written after it) is shown, the watch has
    // delivered everything up to it, so the other's absence is not a matter of waiting longer.
    String theirs = other.substring(other.length() - 1) + "-live-while-" + team + "-looks";
    String mine = team.substring(team.length() - 1) + "-live-" + team;
    management.write(artist(other, theirs, "Unseen"));
    management.write(artist(team, mine, "Seen"));
    await().atMost(WAIT).ignoreExceptions().until(() -> rowNames(ui).contains(mine));
    assertThat(rowNames(ui)).doesNotContain(theirs).isEqualTo(names(DemoTypes.ARTIST, team));
    assertThat(names(DemoTypes.ARTIST, other)).contains(theirs);
    assertThat(js(ui).executeScript("return window.setpointTestMark")).isEqualTo("not reloaded");
  }

  @Test
  void theYamlEditorRefusesToWriteIntoTheOtherTeamsNamespaceAndToWriteADeniedName() throws Exception {
    WebDriver ui = signIn("team-a", "/ui/new/demo/v2/Artist");
    newArtist(ui, "a-intruder", "team-b", "data:\n  name: Intruder\n");
    ui.findElement(By.id("dry-run")).click();
    awaitRefusal(ui, "\"write\" on demo.v2.Artist default/team-b/a-intruder");
    ui.findElement(By.id("save")).click();
    awaitRefusal(ui, "\"write\" on demo.v2.Artist default/team-b/a-intruder");
    assertNotStored(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "team-b"), "a-intruder"));
    browser.screenshot("team-write-denied");

    // The deny rule: no prod- artists, even in the team's own namespace.
    ui.get(base + "/ui/new/demo/v2/Artist");
    newArtist(ui, "prod-nina", "team-a", "data:\n  name: Nina Simone\n");
    ui.findElement(By.id("save")).click();
    awaitRefusal(ui, "\"write\" on demo.v2.Artist default/team-a/prod-nina");
    assertNotStored(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "team-a"), "prod-nina"));

    // The same form saves into the team's own namespace: what was refused was the namespace.
    ui.get(base + "/ui/new/demo/v2/Artist");
    newArtist(ui, "a-editor", "team-a", "data:\n  name: Abbey Lincoln\n");
    ui.findElement(By.id("save")).click();
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("saved")).getText(), t -> t.startsWith("Saved"));
    assertThat(management.read(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "team-a"), "a-editor"))
        .getData().unpack(Artist.class).getName()).isEqualTo("Abbey Lincoln");
  }

  @Test
  void theYamlEditorOfTheOtherTeamsResourceShowsNoneOfItAndRefusesTheSave() throws Exception {
    ID miles = Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "team-b"), "b-miles");
    Resource before = management.read(miles);
    WebDriver ui = signIn("team-a", "/ui/edit/demo/v2/Artist/b-miles?partition=default&namespace=team-b");
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.cssSelector("#editor-result .error")).getText(),
        (DENIED + "\"read\" on demo.v2.Artist default/team-b/b-miles")::equals);
    WebElement yaml = ui.findElement(By.id("yaml"));
    assertThat(yaml.getAttribute("value")).isEmpty();
    assertThat(ui.findElement(By.tagName("body")).getText()).doesNotContain("Miles Davis").doesNotContain(before.getVersion());

    // A document typed in anyway is not saved.
    setText(ui, yaml, "data:\n  name: Miles Dewey Davis\n");
    ui.findElement(By.id("save")).click();
    awaitRefusal(ui, "\"write\" on demo.v2.Artist default/team-b/b-miles");
    Resource after = management.read(miles);
    assertThat(after.getVersion()).isEqualTo(before.getVersion());
    assertThat(after.getData().unpack(Artist.class).getName()).isEqualTo("Miles Davis");
  }

  @Test
  void theClusterPageWithoutOperatorReadShowsPermissionDenied() {
    WebDriver ui = signIn("team-a", "/ui/cluster");
    List<String> refused = await().atMost(WAIT).ignoreExceptions().until(
        () -> ui.findElements(By.cssSelector("#view .error")).stream().map(WebElement::getText).toList(),
        messages -> messages.size() == 2);
    assertThat(refused).containsOnly(DENIED + "\"operator:read\"");
    assertThat(ui.findElements(By.id("cluster-facts"))).isEmpty();
    assertThat(ui.findElements(By.id("members"))).isEmpty();
    assertThat(ui.findElements(By.cssSelector("svg.chart"))).isEmpty();
  }

  /** Opens {@code path} signed in afresh with {@code team}'s token, through the sign-in form. */
  private static WebDriver signIn(String team, String path) {
    WebDriver ui = browser.open(base + path);
    js(ui).executeScript("sessionStorage.clear()");
    ui.get(base + path);
    WebElement secret = await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("token")), WebElement::isDisplayed);
    secret.sendKeys(tokens.get(team));
    ui.findElement(By.id("sign-in")).click();
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.id("sign-out")).isDisplayed());
    return ui;
  }

  private static String resourcePage(String namespace, String name) {
    return "/ui/r/demo/v2/Artist/" + name + "?partition=default&namespace=" + namespace;
  }

  /** Fills the new-resource form once it has loaded (its YAML starts with the type's fields). */
  private static void newArtist(WebDriver ui, String name, String namespace, String document) {
    WebElement yaml = await().atMost(WAIT).ignoreExceptions()
        .until(() -> ui.findElement(By.id("yaml")), t -> t.getAttribute("value").startsWith("data:"));
    ui.findElement(By.id("name")).sendKeys(name);
    ui.findElement(By.id("partition")).sendKeys("default");
    ui.findElement(By.id("namespace")).sendKeys(namespace);
    setText(ui, yaml, document);
  }

  private static void awaitRefusal(WebDriver ui, String lacking) {
    await().atMost(WAIT).ignoreExceptions().until(() -> ui.findElement(By.cssSelector("#invalid p")).getText(),
        (DENIED + lacking)::equals);
    assertThat(ui.findElements(By.id("saved"))).isEmpty();
    assertThat(ui.findElements(By.id("admitted"))).isEmpty();
  }

  private static void assertNotStored(ID id) {
    assertThatThrownBy(() -> management.read(id)).isInstanceOfSatisfying(SetpointException.class,
        e -> assertThat(e.isNotFound()).as(e.getMessage()).isTrue());
  }

  /** The names of {@code type} in default/{@code namespace}, as the management token lists them. */
  private static Set<String> names(Type type, String namespace) {
    return management.listAll(type, Tenancies.of("default", namespace)).stream().map(r -> r.getId().getName())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Resource artist(String namespace, String name, String shown) {
    return resource(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", namespace), name), Artist.newBuilder().setName(shown).build());
  }

  private static Resource resource(ID id, Message data) {
    return Resource.newBuilder().setId(id).setData(Any.pack(data)).build();
  }

  private static String count(WebDriver ui, String type) {
    return ui.findElement(By.cssSelector("#types tr[data-type='" + type + "'] .count")).getText();
  }

  private static void awaitLive(WebDriver ui) {
    await().atMost(WAIT).ignoreExceptions()
        .until(() -> ui.findElement(By.id("live")).getAttribute("data-state"), "live"::equals);
  }

  private static Set<String> rowNames(WebDriver ui) {
    return ui.findElements(By.cssSelector("#resources tbody tr")).stream()
        .map(row -> row.getAttribute("data-name")).collect(Collectors.toCollection(TreeSet::new));
  }

  /** Replaces a textarea's text as typing would, in one step. */
  private static void setText(WebDriver ui, WebElement area, String text) {
    js(ui).executeScript("arguments[0].value = arguments[1];", area, text);
  }

  private static JavascriptExecutor js(WebDriver ui) {
    return (JavascriptExecutor) ui;
  }
}
