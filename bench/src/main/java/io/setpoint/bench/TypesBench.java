package io.setpoint.bench;

import build.buf.validate.DoubleRules;
import build.buf.validate.FieldRules;
import build.buf.validate.Int32Rules;
import build.buf.validate.RepeatedRules;
import build.buf.validate.StringRules;
import build.buf.validate.ValidateProto;
import com.google.protobuf.Any;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldOptions;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.TypeDefinition;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.bench.garden.Leaf;
import io.setpoint.bench.garden.Plant;
import io.setpoint.bench.garden.PlantOuterClass;
import io.setpoint.client.SetpointClient;
import io.setpoint.resource.Hooks;
import io.setpoint.resource.Registration;
import io.setpoint.server.Agent;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The cost of a type defined at runtime: writes/s of garden.v1.Plant applied as a definition whose
 * checks are protovalidate rules, against the same message compiled in with the same checks as a
 * Java validate hook. Each variant runs in a JVM of its own (this command started again with
 * {@code -variant}), with an in-memory agent and closed-loop gRPC clients over loopback in that
 * JVM, so the first seconds after the agent starts (reported next to the warm rate) include the
 * same JIT work for both.
 */
@Command(
    name = "types",
    description = {
      "Writes/s of a type applied at runtime (protovalidate rules) against the same message",
      "compiled in with a Java hook; in-memory agents in this process, clients over loopback."
    })
final class TypesBench implements Callable<Integer> {
  private static final Type PLANT = Types.of("garden", "v1", "Plant");
  private static final Tenancy TENANCY = Tenancies.of("default", "default");
  private static final Set<String> COLORS = Set.of("green", "yellow", "red");

  @Spec private CommandSpec spec;

  @Option(names = "-clients", paramLabel = "N", defaultValue = "8",
      description = "Closed-loop clients, one write in flight each (default: ${DEFAULT-VALUE}).")
  private int clients;

  @Option(names = "-cold", paramLabel = "SECONDS", defaultValue = "10",
      description = "Seconds measured from the agent's start (default: ${DEFAULT-VALUE}).")
  private int cold;

  @Option(names = "-warmup", paramLabel = "SECONDS", defaultValue = "20",
      description = "Further seconds of load before the warm window (default: ${DEFAULT-VALUE}).")
  private int warmup;

  @Option(names = "-duration", paramLabel = "SECONDS", defaultValue = "10",
      description = "Seconds of the warm window (default: ${DEFAULT-VALUE}).")
  private int duration;

  @Option(names = "-variant", paramLabel = "VARIANT", hidden = true,
      description = "runtime or compiled: measure only that, in this JVM, and print one RESULT line.")
  private String variant;

  @Override
  public Integer call() throws Exception {
    Bench.requirePositive(spec, "-clients", clients);
    Bench.requirePositive(spec, "-cold", cold);
    Bench.requireNotNegative(spec, "-warmup", warmup);
    Bench.requirePositive(spec, "-duration", duration);
    PrintWriter out = spec.commandLine().getOut();
    if (variant != null) {
      if (!variant.equals("runtime") && !variant.equals("compiled")) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "-variant must be runtime or compiled, was " + variant);
      }
      Rates rates = measure(variant.equals("compiled"));
      out.printf(Locale.ROOT, "RESULT %.1f %.1f%n", rates.cold(), rates.warm());
      out.flush();
      return 0;
    }
    out.println(Bench.machine());
    out.printf(Locale.ROOT, "garden.v1.Plant writes, %d clients, in-memory agent; cold: first %d s after start,"
        + " warm: %d s after %d s more%n", clients, cold, duration, warmup);
    Rates runtime = inOwnJvm("runtime");
    Rates compiled = inOwnJvm("compiled");
    out.printf(Locale.ROOT, "runtime type, protovalidate rules: cold %8.0f writes/s, warm %8.0f writes/s%n",
        runtime.cold(), runtime.warm());
    out.printf(Locale.ROOT, "compiled type, Java hook:          cold %8.0f writes/s, warm %8.0f writes/s%n",
        compiled.cold(), compiled.warm());
    out.printf(Locale.ROOT, "runtime / compiled:                cold %9s, warm %9s%n",
        ratio(runtime.cold(), compiled.cold()), ratio(runtime.warm(), compiled.warm()));
    out.flush();
    return 0;
  }

  private record Rates(double cold, double warm) {}

  private static String ratio(double a, double b) {
    return b > 0 ? String.format(Locale.ROOT, "%.2fx", a / b) : "n/a (no compiled writes)";
  }

  /** Runs this benchmark for one variant in a new JVM like this one, and reads its RESULT line. */
  private Rates inOwnJvm(String which) throws IOException, InterruptedException {
    Process child = new ProcessBuilder(Bench.cliCommand(List.of("bench", "types",
        "-variant", which, "-clients", String.valueOf(clients), "-cold", String.valueOf(cold),
        "-warmup", String.valueOf(warmup), "-duration", String.valueOf(duration)))).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = child.waitFor();
    for (String line : output.split("\n")) {
      if (line.startsWith("RESULT ")) {
        String[] parts = line.trim().split(" ");
        return new Rates(Double.parseDouble(parts[1]), Double.parseDouble(parts[2]));
      }
    }
    throw new IllegalStateException("the " + which + " run (exit " + code + ") printed no result: " + output);
  }

  private Rates measure(boolean compiledIn) throws Exception {
    Agent.Builder builder = Agent.builder().port(0).acls(false);
    if (compiledIn) {
      builder.types(registry -> registry.register(Registration.of(PLANT, Plant.class)
          .validate(Hooks.decodeAndValidate(Plant.class, (plant, v) -> check(plant.data(), v)))
          .build()));
    }
    long start = System.nanoTime();
    try (Agent agent = builder.start();
        SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      if (!compiledIn) {
        client.write(definition());
        while (agent.registry().resolve(PLANT).isEmpty()) {
          Thread.sleep(1);
        }
      }
      Load load = new Load(client, clients);
      load.start();
      long coldEnd = start + Duration.ofSeconds(cold).toNanos();
      load.sleepUntil(coldEnd);
      double coldRate = load.writes() / ((System.nanoTime() - start) / 1e9);
      load.sleepUntil(coldEnd + Duration.ofSeconds(warmup).toNanos());
      long before = load.writes();
      long t0 = System.nanoTime();
      load.sleepUntil(t0 + Duration.ofSeconds(duration).toNanos());
      double warmRate = (load.writes() - before) / ((System.nanoTime() - t0) / 1e9);
      load.stop();
      return new Rates(coldRate, warmRate);
    }
  }

  /** The checks of the Java hook, the same as the rules {@link #definition()} declares. */
  private static void check(Plant plant, io.setpoint.resource.Violations v) {
    if (plant.getSpecies().isEmpty()) {
      v.add("species", "string.min_len", "must be at least 1 characters");
    }
    if (plant.getHeightCm() < 0 || plant.getHeightCm() > 10_000) {
      v.add("height_cm", "int32.gte_lte", "must be within 0 and 10000");
    }
    if (plant.getLeavesCount() > 100) {
      v.add("leaves", "repeated.max_items", "must hold at most 100 items");
    }
    for (int i = 0; i < plant.getLeavesCount(); i++) {
      Leaf leaf = plant.getLeaves(i);
      if (!COLORS.contains(leaf.getColor())) {
        v.add("leaves[" + i + "].color", "string.in", "must be green, yellow or red");
      }
      if (!(leaf.getLengthMm() > 0)) {
        v.add("leaves[" + i + "].length_mm", "double.gt", "must be greater than 0");
      }
    }
  }

  /** The definition of garden.v1.Plant, its file given the rules of {@link #check} as buf.validate options. */
  private static Resource definition() {
    FileDescriptorProto.Builder file = PlantOuterClass.getDescriptor().toProto().toBuilder()
        .addDependency("buf/validate/validate.proto");
    for (DescriptorProto.Builder message : file.getMessageTypeBuilderList()) {
      for (FieldDescriptorProto.Builder field : message.getFieldBuilderList()) {
        FieldRules rules = switch (message.getName() + "." + field.getName()) {
          case "Plant.species" -> FieldRules.newBuilder().setString(StringRules.newBuilder().setMinLen(1)).build();
          case "Plant.height_cm" -> FieldRules.newBuilder().setInt32(Int32Rules.newBuilder().setGte(0).setLte(10_000)).build();
          case "Plant.leaves" -> FieldRules.newBuilder().setRepeated(RepeatedRules.newBuilder().setMaxItems(100)).build();
          case "Leaf.color" -> FieldRules.newBuilder().setString(StringRules.newBuilder().addAllIn(COLORS)).build();
          case "Leaf.length_mm" -> FieldRules.newBuilder().setDouble(DoubleRules.newBuilder().setGt(0)).build();
          default -> null;
        };
        if (rules != null) {
          field.setOptions(FieldOptions.newBuilder().setExtension(ValidateProto.field, rules));
        }
      }
    }
    return Resource.newBuilder()
        .setId(Ids.of(Types.TYPE_DEFINITION, Types.definitionName(PLANT)))
        .setData(Any.pack(TypeDefinition.newBuilder().setMessage(Plant.getDescriptor().getFullName())
            .setFiles(FileDescriptorSet.newBuilder().addFile(file)).build()))
        .build();
  }

  /** Closed-loop writers, each updating its own 100 plants in turn. */
  private static final class Load {
    private final SetpointClient client;
    private final List<Thread> threads = new ArrayList<>();
    private final LongAdder written = new LongAdder();
    private final AtomicBoolean running = new AtomicBoolean(true);

    Load(SetpointClient client, int clients) {
      this.client = client;
      for (int c = 0; c < clients; c++) {
        String prefix = "plant-" + c + "-";
        threads.add(Thread.ofPlatform().name("bench-writer-" + c).unstarted(() -> {
          for (long i = 0; running.get(); i++) {
            Plant plant = Plant.newBuilder().setSpecies("fern").setHeightCm((int) (i % 1000))
                .addLeaves(Leaf.newBuilder().setColor("green").setLengthMm(10 + i % 7))
                .addLeaves(Leaf.newBuilder().setColor("red").setLengthMm(3))
                .build();
            client.write(Resource.newBuilder().setId(Ids.of(PLANT, TENANCY, prefix + (i % 100)))
                .setData(Any.pack(plant)).build());
            written.increment();
          }
        }));
      }
    }

    void start() {
      threads.forEach(Thread::start);
    }

    long writes() {
      return written.sum();
    }

    void sleepUntil(long nanoTime) throws InterruptedException {
      long left;
      while ((left = nanoTime - System.nanoTime()) > 0) {
        Thread.sleep(Duration.ofNanos(left));
      }
    }

    void stop() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join();
      }
    }
  }
}
