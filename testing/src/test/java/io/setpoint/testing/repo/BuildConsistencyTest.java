package io.setpoint.testing.repo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What users build against stays in step with the build: the BOM lists every module but the
 * distribution at the parent's version and inherits nothing, nothing skips install or deploy, and
 * examples/ uses the parent's versions (above all protobuf's: protoc must match protobuf-java), as
 * the Spring Boot example does with its Boot.
 */
class BuildConsistencyTest {
  private static final Path ROOT = RepoRoot.find();

  @Test
  void theBomManagesEveryModuleAtTheParentsVersionAndHasNoParent() throws Exception {
    Element parent = pom(ROOT.resolve("pom.xml"));
    Element bom = pom(ROOT.resolve("bom/pom.xml"));
    String version = child(parent, "version").getTextContent();

    assertThat(children(bom, "parent")).as("the BOM's <parent>").isEmpty();
    assertThat(child(bom, "version").getTextContent()).isEqualTo(version);
    List<String> managed = new ArrayList<>();
    for (Element dependency : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
      assertThat(child(dependency, "groupId").getTextContent()).isEqualTo("io.setpoint");
      assertThat(child(dependency, "version").getTextContent()).isEqualTo("${project.version}");
      managed.add(child(dependency, "artifactId").getTextContent());
    }
    List<String> modules = new ArrayList<>();
    for (Element module : children(child(parent, "modules"), "module")) {
      // dist makes the tar.gz and the image users install, not an artifact to build against.
      if (!module.getTextContent().equals("bom") && !module.getTextContent().equals("dist")) {
        modules.add(child(pom(ROOT.resolve(module.getTextContent()).resolve("pom.xml")), "artifactId").getTextContent());
      }
    }
    assertThat(managed).containsAll(modules);
    assertThat(modules).contains("setpoint-testing");
  }

  @Test
  void noModuleSkipsInstallOrDeploy() throws IOException {
    try (Stream<Path> poms = Files.walk(ROOT, 2)) {
      List<String> skipping = poms
          .filter(p -> p.getFileName().toString().equals("pom.xml") && !p.startsWith(ROOT.resolve("examples")))
          .filter(p -> {
            try {
              String text = Files.readString(p);
              return text.contains("install.skip") || text.contains("deploy.skip") || text.contains("<skip>");
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          })
          .map(p -> ROOT.relativize(p).toString())
          .toList();
      assertThat(skipping).isEmpty();
    }
  }

  @Test
  void theExamplesUseTheParentsVersions() throws Exception {
    Element parent = pom(ROOT.resolve("pom.xml"));
    Element examples = pom(ROOT.resolve("examples/pom.xml"));
    Map<String, String> parentProperties = properties(parent);
    Map<String, String> exampleProperties = properties(examples);

    assertThat(exampleProperties.get("setpoint.version")).isEqualTo(child(parent, "version").getTextContent());
    assertThat(exampleProperties).containsKey("protobuf.version");
    exampleProperties.forEach((name, value) -> {
      if (parentProperties.containsKey(name)) {
        assertThat(value).as("examples/pom.xml's " + name).isEqualTo(parentProperties.get(name));
      }
    });
    assertThat(children(examples, "parent")).as("examples/pom.xml's <parent>").isEmpty();
  }

  @Test
  void theSpringBootExampleBuildsOnTheBootAndProtobufThatSetpointPins() throws Exception {
    Element parent = pom(ROOT.resolve("pom.xml"));
    Element example = pom(ROOT.resolve("examples/spring-boot/pom.xml"));
    Map<String, String> parentProperties = properties(parent);
    Map<String, String> exampleProperties = properties(example);

    Element boot = child(example, "parent");
    assertThat(child(boot, "artifactId").getTextContent()).isEqualTo("spring-boot-starter-parent");
    assertThat(child(boot, "version").getTextContent()).isEqualTo(parentProperties.get("spring-boot.version"));
    assertThat(exampleProperties.get("setpoint.version")).isEqualTo(child(parent, "version").getTextContent());
    assertThat(exampleProperties.get("protobuf.version")).isEqualTo(parentProperties.get("protobuf.version"));
  }

  private static Map<String, String> properties(Element pom) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (Node n = child(pom, "properties").getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e) {
        properties.put(e.getTagName(), e.getTextContent().strip());
      }
    }
    return properties;
  }

  private static Element pom(Path file) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile()).getDocumentElement();
  }

  private static Element child(Element parent, String name) {
    List<Element> found = children(parent, name);
    assertThat(found).as("<" + name + "> under <" + parent.getTagName() + ">").hasSize(1);
    return found.get(0);
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        found.add(e);
      }
    }
    return found;
  }
}
