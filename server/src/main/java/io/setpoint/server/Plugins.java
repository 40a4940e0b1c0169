package io.setpoint.server;

import io.setpoint.server.plugin.SetpointPlugin;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/** Finds the {@link SetpointPlugin}s in the jars of a directory. */
final class Plugins {
  private Plugins() {}

  /**
   * The plugins of every {@code .jar} in {@code dir}, in the order of the jars' names, loaded by
   * one class loader whose parent is the agent's (so plugins share Setpoint's and protobuf's
   * classes with it).
   *
   * @throws IllegalArgumentException with one line naming the directory, jar or class that cannot
   *     be used, and why
   */
  public static List<SetpointPlugin> load(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("-plugins " + dir + ": " + (Files.exists(dir) ? "not a directory" : "no such directory"));
    }
    List<Path> jars;
    try (Stream<Path> files = Files.list(dir)) {
      jars = files.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList();
    } catch (IOException e) {
      throw new IllegalArgumentException("-plugins " + dir + ": cannot list it: " + e.getMessage(), e);
    }
    if (jars.isEmpty()) {
      throw new IllegalArgumentException("-plugins " + dir + ": holds no .jar file");
    }
    List<URL> urls = new ArrayList<>();
    for (Path jar : jars) {
      try (JarFile opened = new JarFile(jar.toFile())) {
        if (opened.getEntry("META-INF/services/" + SetpointPlugin.class.getName()) == null) {
          throw new IllegalArgumentException("plugin jar " + jar + " has no META-INF/services/"
              + SetpointPlugin.class.getName() + " naming its plugin class");
        }
        urls.add(jar.toUri().toURL());
      } catch (MalformedURLException e) {
        throw new IllegalArgumentException("plugin jar " + jar + ": " + e.getMessage(), e);
      } catch (IOException e) {
        throw new IllegalArgumentException("plugin jar " + jar + " cannot be opened: " + e.getMessage(), e);
      }
    }
    URLClassLoader loader = new URLClassLoader("setpoint-plugins", urls.toArray(URL[]::new), Plugins.class.getClassLoader());
    List<SetpointPlugin> plugins = new ArrayList<>();
    try {
      ServiceLoader.load(SetpointPlugin.class, loader).forEach(plugins::add);
    } catch (ServiceConfigurationError e) {
      throw new IllegalArgumentException("a plugin in " + dir + " cannot be loaded: " + rootMessage(e), e);
    }
    return List.copyOf(plugins);
  }

  private static String rootMessage(Throwable e) {
    String message = e.getMessage();
    Throwable cause = e.getCause();
    return cause == null ? message : message + " (" + cause + ")";
  }
}
