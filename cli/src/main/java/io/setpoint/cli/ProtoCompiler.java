package io.setpoint.cli;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.ExtensionRegistry;
import io.setpoint.api.v1.AnnotationsProto;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Compiles a .proto file to a descriptor set with the protoc shipped in the distribution (the
 * release that matches the protobuf-java the server runs), so users install nothing. The imports
 * every Setpoint type may use (the Setpoint protos, {@code google/protobuf/*.proto},
 * protovalidate's {@code buf/validate/validate.proto}) are copied out of the jars on the class
 * path into a temporary include directory.
 */
final class ProtoCompiler {
  /** Set to use another protoc than the distribution's. */
  static final String PROTOC_ENV = "SETPOINT_PROTOC";
  /** Resources that mark the roots of the importable protos: every .proto under their root is copied. */
  private static final Map<String, String> IMPORT_ROOTS = Map.of(
      "setpoint/resource/v1/annotations.proto", "setpoint",
      "google/protobuf/descriptor.proto", "google/protobuf",
      "buf/validate/validate.proto", "buf/validate");
  private static final long TIMEOUT_SECONDS = 60;

  private ProtoCompiler() {}

  /**
   * The descriptor set of {@code file} and everything it imports, dependencies first.
   *
   * @param includes further import directories, searched after the file's own directory
   * @throws CliException with protoc's own message when the file does not compile
   */
  static FileDescriptorSet compile(Path file, List<Path> includes) {
    if (!Files.isRegularFile(file)) {
      throw new CliException("cannot read " + file + ": " + (Files.isDirectory(file) ? "it is a directory" : "no such file"));
    }
    Path protoc = protoc();
    Path work = null;
    try {
      work = Files.createTempDirectory("setpoint-protoc");
      Path imports = Files.createDirectory(work.resolve("include"));
      copyImports(imports);
      Path out = work.resolve("set.pb");
      Path dir = file.toAbsolutePath().getParent();
      List<String> command = new ArrayList<>(List.of(protoc.toString(), "-I" + dir));
      includes.forEach(i -> command.add("-I" + i.toAbsolutePath()));
      command.addAll(List.of("-I" + imports, "--include_imports", "--descriptor_set_out=" + out,
          file.getFileName().toString()));
      Process run = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String output;
      try (InputStream in = run.getInputStream()) {
        output = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      }
      if (!run.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        run.destroyForcibly();
        throw new CliException("protoc did not finish compiling " + file + " within " + TIMEOUT_SECONDS + " s");
      }
      if (run.exitValue() != 0) {
        throw new CliException(file + " does not compile:" + System.lineSeparator() + output);
      }
      ExtensionRegistry extensions = ExtensionRegistry.newInstance();
      AnnotationsProto.registerAllExtensions(extensions);
      return FileDescriptorSet.parseFrom(Files.readAllBytes(out), extensions);
    } catch (IOException e) {
      throw new CliException("cannot compile " + file + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted while compiling " + file, e);
    } finally {
      deleteQuietly(work);
    }
  }

  /** Whether the file named {@code name} is one of those the distribution provides for import. */
  static boolean bundled(String name) {
    return IMPORT_ROOTS.values().stream().anyMatch(root -> name.startsWith(root + "/"));
  }

  /** The protoc to run: {@value #PROTOC_ENV}, else the one next to the distribution's jars. */
  static Path protoc() {
    String override = System.getenv(PROTOC_ENV);
    if (override != null && !override.isBlank()) {
      Path given = Path.of(override);
      if (!Files.isExecutable(given)) {
        throw new CliException(PROTOC_ENV + "=" + override + " is not an executable file");
      }
      return given;
    }
    Path shipped = distributionDir().resolve("protoc").resolve("protoc");
    if (!Files.isRegularFile(shipped)) {
      throw new CliException("the distribution has no protoc at " + shipped
          + "; rebuild it (./mvnw install -pl cli -am) or set " + PROTOC_ENV + " to a protoc binary");
    }
    if (!Files.isExecutable(shipped) && !shipped.toFile().setExecutable(true)) {
      throw new CliException(shipped + " is not executable and cannot be made so; set " + PROTOC_ENV);
    }
    return shipped;
  }

  /** The build directory the CLI runs from: the one holding setpoint-cli.jar, or the classes in a build. */
  private static Path distributionDir() {
    try {
      Path code = Path.of(ProtoCompiler.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return code.getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException("the CLI's own location is not a path", e);
    }
  }

  private static void copyImports(Path into) throws IOException {
    for (Map.Entry<String, String> root : IMPORT_ROOTS.entrySet()) {
      URL marker = ProtoCompiler.class.getClassLoader().getResource(root.getKey());
      if (marker == null) {
        throw new IllegalStateException("the class path holds no " + root.getKey());
      }
      URI uri;
      try {
        uri = marker.toURI();
      } catch (URISyntaxException e) {
        throw new IOException(e);
      }
      if (uri.getScheme().equals("jar")) {
        FileSystem jar;
        boolean opened = false;
        try {
          jar = FileSystems.newFileSystem(uri, Map.of());
          opened = true;
        } catch (FileSystemAlreadyExistsException e) {
          jar = FileSystems.getFileSystem(uri);
        }
        try {
          copyTree(jar.getPath(root.getValue()), into.resolve(root.getValue()));
        } finally {
          if (opened) {
            jar.close();
          }
        }
      } else {
        Path markerFile = Path.of(uri);
        Path base = markerFile;
        for (int i = root.getKey().split("/").length; i > root.getValue().split("/").length; i--) {
          base = base.getParent();
        }
        copyTree(base, into.resolve(root.getValue()));
      }
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".proto"))::iterator) {
        Path target = to.resolve(from.relativize(source).toString());
        Files.createDirectories(target.getParent());
        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is not worth failing the command for
    }
  }
}
