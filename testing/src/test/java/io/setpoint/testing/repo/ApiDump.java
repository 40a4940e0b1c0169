package io.setpoint.testing.repo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The public API of one module as text: every type a user can reach (public, and inside public
 * types only), with its public members, and protected ones where a subclass can see them, one line
 * each, sorted, members without their type's name. Types generated from protos are left out (the
 * .proto files are their contract): only types whose source is in the module's {@code
 * src/main/java} count.
 */
final class ApiDump {
  private ApiDump() {}

  /** The dump of the classes in {@code classes} (a directory or a jar) whose sources are under {@code sources}. */
  static String of(Path classes, Path sources, ClassLoader loader) {
    Map<String, List<String>> types = new TreeMap<>();
    for (String name : classNames(classes)) {
      String topLevel = name.contains("$") ? name.substring(0, name.indexOf('$')) : name;
      if (!Files.exists(sources.resolve(topLevel.replace('.', '/') + ".java"))) {
        continue;
      }
      Class<?> type;
      try {
        type = Class.forName(name, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw new AssertionError("cannot load " + name + " from " + classes, e);
      }
      if (reachable(type)) {
        types.put(type.getName(), describe(type));
      }
    }
    StringBuilder out = new StringBuilder();
    types.forEach((name, lines) -> {
      lines.forEach(line -> out.append(line).append('\n'));
      out.append('\n');
    });
    return out.toString();
  }

  /** How many top-level types {@code dump} lists. */
  static long topLevelTypes(String dump) {
    return dump.lines().filter(l -> !l.isEmpty() && !l.startsWith(" ") && !header(l).contains("$")).count();
  }

  private static String header(String line) {
    // "public final class io.setpoint.client.SetpointClient ..." -> the type's name
    return Arrays.stream(line.split(" ")).filter(w -> w.startsWith("io.setpoint.")).findFirst().orElse("");
  }

  private static boolean reachable(Class<?> type) {
    for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
      if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isLocalClass() || t.isSynthetic()) {
        return false;
      }
    }
    return true;
  }

  private static List<String> describe(Class<?> type) {
    List<String> lines = new ArrayList<>();
    StringBuilder header = new StringBuilder(type.toGenericString());
    Type superclass = type.getGenericSuperclass();
    if (superclass != null && superclass != Object.class && superclass != Record.class
        && !(type.isEnum() && superclass.getTypeName().startsWith("java.lang.Enum"))) {
      header.append(" extends ").append(superclass.getTypeName());
    }
    Type[] interfaces = type.getGenericInterfaces();
    if (interfaces.length > 0) {
      header.append(type.isInterface() ? " extends " : " implements ")
          .append(String.join(", ", Arrays.stream(interfaces).map(Type::getTypeName).toList()));
    }
    if (type.isSealed()) {
      header.append(" permits ").append(String.join(", ",
          Arrays.stream(type.getPermittedSubclasses()).map(Class::getName).sorted().toList()));
    }
    lines.add(header.toString());
    boolean subclassable = !Modifier.isFinal(type.getModifiers()) && !type.isEnum() && !type.isRecord();
    List<String> members = new ArrayList<>();
    for (Constructor<?> c : type.getDeclaredConstructors()) {
      if (visible(c, subclassable) && !(type.isEnum())) {
        members.add(c.toGenericString());
      }
    }
    for (Method m : type.getDeclaredMethods()) {
      if (visible(m, subclassable) && !m.isBridge()) {
        members.add(m.toGenericString().replace(type.getName() + "." + m.getName() + "(", m.getName() + "("));
      }
    }
    for (Field f : type.getDeclaredFields()) {
      if (visible(f, subclassable)) {
        members.add(f.toGenericString().replace(type.getName() + "." + f.getName(), f.getName()));
      }
    }
    members.stream().sorted().forEach(m -> lines.add("  " + m));
    return lines;
  }

  private static boolean visible(Member member, boolean subclassable) {
    if (member.isSynthetic() || (member instanceof Executable e && e.isSynthetic())) {
      return false;
    }
    int modifiers = member.getModifiers();
    return Modifier.isPublic(modifiers) || (subclassable && Modifier.isProtected(modifiers));
  }

  private static List<String> classNames(Path classes) {
    if (Files.isDirectory(classes)) {
      return classNamesUnder(classes);
    }
    try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + classes.toUri()), Map.of())) {
      return classNamesUnder(jar.getPath("/"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> classNamesUnder(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.map(root::relativize).map(Path::toString)
          .filter(p -> p.endsWith(".class") && !p.endsWith("module-info.class") && !p.endsWith("package-info.class"))
          .map(p -> p.substring(0, p.length() - ".class".length()).replace('/', '.'))
          .sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
