package io.setpoint.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Plugin jars built by a test the way a user builds one: Java sources compiled against Setpoint's
 * classes, packed with a {@code META-INF/services} file. Nothing prebuilt is checked in.
 */
final class PluginJars {
  /** {@code plug.v1.Note}: a note (StringValue) defaulted by a mutate hook, refused when it says "forbidden". */
  static final String NOTES_PLUGIN = """
      package acme.plugin;

      import com.google.protobuf.StringValue;
      import io.setpoint.api.Statuses.Conditions;
      import io.setpoint.api.Types;
      import io.setpoint.api.v1.Resource;
      import io.setpoint.api.v1.Scope;
      import io.setpoint.api.v1.Status;
      import io.setpoint.api.v1.Type;
      import io.setpoint.controller.Controller;
      import io.setpoint.controller.Result;
      import io.setpoint.controller.Manager;
      import io.setpoint.resource.Hooks;
      import io.setpoint.resource.Registration;
      import io.setpoint.resource.Registry;
      import io.setpoint.server.plugin.SetpointPlugin;

      public final class NotesPlugin implements SetpointPlugin {
        public static final Type NOTE = Types.of("plug", "v1", "Note");

        @Override
        public void types(Registry registry) {
          registry.register(Registration.of(NOTE, StringValue.class).scope(Scope.SCOPE_CLUSTER)
              .mutate(Hooks.decodeAndMutate(StringValue.class, v -> v.getValue().isEmpty() ? StringValue.of("(blank)") : v))
              .validate(Hooks.decodeAndValidate(StringValue.class, (note, v) -> {
                if (note.data().getValue().contains("forbidden")) {
                  v.add("value", "no-forbidden", "must not say forbidden");
                }
              }))
              .build());
        }

        @Override
        public void controllers(Manager manager) {
          manager.register(Controller.forType(NOTE).named("note-reader").reconciler((ctx, tools, req) -> {
            Resource note = tools.client().read(req.id());
            tools.client().writeStatus(note.getId(), "plug.example.com/reader",
                Conditions.set(Status.newBuilder().setObservedGeneration(note.getGeneration()),
                    Conditions.isTrue("Read", "Read", "read by the plugin")).build());
            return Result.done();
          }));
        }
      }
      """;

  private PluginJars() {}

  /** Compiles {@code sources} (class name to source) into {@code jar}, naming {@code services} as plugins. */
  static Path build(Path work, Path jar, Map<String, String> sources, List<String> services) throws IOException {
    Path src = Files.createDirectories(work.resolve("src"));
    Path classes = Files.createDirectories(work.resolve("classes"));
    List<String> files = new java.util.ArrayList<>();
    for (Map.Entry<String, String> source : sources.entrySet()) {
      Path file = src.resolve(source.getKey().replace('.', '/') + ".java");
      Files.createDirectories(file.getParent());
      Files.writeString(file, source.getValue());
      files.add(file.toString());
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<String> args = new java.util.ArrayList<>(List.of("-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
        "--release", "21", "-proc:none"));
    args.addAll(files);
    int code = javac.run(null, null, null, args.toArray(String[]::new));
    if (code != 0) {
      throw new IllegalStateException("the plugin sources do not compile (javac exit " + code + ")");
    }
    Files.createDirectories(jar.getParent());
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> compiled = Files.walk(classes)) {
      for (Path file : (Iterable<Path>) compiled.filter(Files::isRegularFile)::iterator) {
        out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
        Files.copy(file, out);
        out.closeEntry();
      }
      if (!services.isEmpty()) {
        out.putNextEntry(new JarEntry("META-INF/services/io.setpoint.server.plugin.SetpointPlugin"));
        OutputStream entry = out;
        entry.write(String.join("\n", services).concat("\n").getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    }
    return jar;
  }
}
