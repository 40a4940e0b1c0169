package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The agent tells Armeria not to compare Netty's versions (see {@link AgentCommand}), because a
 * shaded copy of Netty inside Ratis carries a version file under Netty's own name. So the build
 * checks instead that the Netty the agent runs, every jar with classes under {@code io.netty}, is
 * one version.
 */
class NettyVersionsTest {
  @Test
  void everyUnshadedNettyJarIsOneVersion() throws IOException {
    Map<String, String> versions = new TreeMap<>();
    int shaded = 0;
    for (URL file : Collections.list(getClass().getClassLoader().getResources("META-INF/io.netty.versions.properties"))) {
      JarURLConnection jar = (JarURLConnection) file.openConnection();
      jar.setUseCaches(false);
      try (JarFile opened = jar.getJarFile()) {
        if (opened.stream().noneMatch(entry -> entry.getName().startsWith("io/netty/"))) {
          shaded++;
          continue;
        }
        Properties properties = new Properties();
        try (InputStream in = opened.getInputStream(opened.getEntry("META-INF/io.netty.versions.properties"))) {
          properties.load(in);
        }
        properties.stringPropertyNames().stream().filter(key -> key.endsWith(".version"))
            .forEach(key -> versions.put(opened.getName() + " " + key, properties.getProperty(key)));
      }
    }
    assertThat(shaded).as("version files of shaded Netty copies, the reason for the check").isPositive();
    assertThat(versions.values().stream().distinct()).as("%s", versions).hasSize(1);
  }
}
