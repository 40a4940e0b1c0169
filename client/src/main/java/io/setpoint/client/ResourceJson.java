package io.setpoint.client;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ListTypesResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.TypeInfo;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Converts between resources and their JSON document form, for any type a server serves, using
 * the descriptors from {@code TypeService.ListTypes} (no generated classes needed: data messages
 * are handled as {@link com.google.protobuf.DynamicMessage}s).
 *
 * <pre>{@code
 * {
 *   "id": {
 *     "type": "demo.v2.Artist",            // or {"group": "demo", "group_version": "v2", "kind": "Artist"}
 *     "name": "miles",
 *     "tenancy": {"partition": "default", "namespace": "default"},
 *     "uid": "01J..."                       // optional
 *   },
 *   "owner": {...},                         // optional, an id like the one above (with its uid)
 *   "version": "12",                        // optional: a compare-and-swap write
 *   "metadata": {"team": "jazz"},
 *   "data": {"name": "Miles Davis", "genre": "GENRE_JAZZ"}
 * }
 * }</pre>
 *
 * <p>{@code data} holds the fields of the type's data message in the protobuf JSON mapping, without
 * an {@code @type} (one that names the type's message is accepted). {@link #print(Resource)}
 * writes the same shape, with the type in its string form and the server's fields ({@code uid},
 * {@code version}, {@code generation}, {@code status}) filled in. Instances are immutable and
 * thread-safe.
 */
public final class ResourceJson {
  private static final String TYPE_URL_PREFIX = "type.googleapis.com/";
  private static final String AT_TYPE = "@type";
  /**
   * Well-known types whose JSON is a single value: inside {@code data} they take one field,
   * {@code value}, and protobuf's parser ignores any other, so they are checked here.
   */
  private static final Set<String> SINGLE_VALUE_TYPES = Set.of(
      "google.protobuf.StringValue", "google.protobuf.BytesValue", "google.protobuf.BoolValue",
      "google.protobuf.Int32Value", "google.protobuf.Int64Value", "google.protobuf.UInt32Value",
      "google.protobuf.UInt64Value", "google.protobuf.FloatValue", "google.protobuf.DoubleValue",
      "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask",
      "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue");
  private static final Gson PRETTY = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();

  private final Map<Type, TypeInfo> types;
  private final JsonFormat.Parser parser;
  private final JsonFormat.Printer printer;

  private ResourceJson(Map<Type, TypeInfo> types, JsonFormat.TypeRegistry registry) {
    this.types = types;
    this.parser = JsonFormat.parser().usingTypeRegistry(registry);
    this.printer = JsonFormat.printer().usingTypeRegistry(registry).omittingInsignificantWhitespace();
  }

  /**
   * The converter for the types (and data message descriptors) a server listed.
   *
   * @throws IllegalArgumentException when the descriptors do not form a consistent set
   */
  public static ResourceJson of(ListTypesResponse response) {
    Map<Type, TypeInfo> types = new LinkedHashMap<>();
    for (TypeInfo info : response.getTypesList()) {
      types.put(info.getType(), info);
    }
    JsonFormat.TypeRegistry.Builder registry = JsonFormat.TypeRegistry.newBuilder();
    for (FileDescriptor file : buildFiles(response.getDescriptors()).values()) {
      registry.add(file.getMessageTypes());
    }
    return new ResourceJson(types, registry.build());
  }

  /** The types this converter knows, in the server's order. */
  public List<TypeInfo> types() {
    return List.copyOf(types.values());
  }

  /** What the server said about {@code type}, if it serves it. */
  public Optional<TypeInfo> type(Type type) {
    return Optional.ofNullable(types.get(type));
  }

  /**
   * Reads one resource document.
   *
   * @throws IllegalArgumentException naming what is wrong: not JSON, no or unknown type, a field
   *     the type's data message does not have, a value of the wrong kind
   */
  public Resource parse(String document) {
    JsonObject doc;
    try {
      JsonElement root = JsonParser.parseString(document);
      if (!root.isJsonObject()) {
        throw new IllegalArgumentException("a resource document must be a JSON object, not " + kindOf(root));
      }
      doc = root.getAsJsonObject();
    } catch (JsonParseException e) {
      throw new IllegalArgumentException("not valid JSON: " + e.getMessage(), e);
    }
    JsonObject id = object(doc, "id");
    if (id == null) {
      throw new IllegalArgumentException("id is required: {\"type\": \"group.version.Kind\", \"name\": ...}");
    }
    Type type = expandType(id, "id");
    if (type == null) {
      throw new IllegalArgumentException("id.type is required, e.g. \"demo.v2.Artist\"");
    }
    TypeInfo info = types.get(type);
    if (info == null) {
      throw new IllegalArgumentException("unknown type " + Types.format(type) + "; the server serves " + known());
    }
    JsonObject owner = object(doc, "owner");
    if (owner != null) {
      expandType(owner, "owner");
    }
    doc.add("data", dataWithType(doc, info));
    Resource.Builder resource = Resource.newBuilder();
    try {
      parser.merge(doc.toString(), resource);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw new IllegalArgumentException("invalid " + Types.format(type) + " document: " + e.getMessage(), e);
    }
    return resource.build();
  }

  /**
   * Writes a resource as an indented document: the type in its string form, data without
   * {@code @type}, and whatever the server set (uid, version, generation, status).
   *
   * @throws IllegalArgumentException when the resource's data is of a message this converter does
   *     not know
   */
  public String print(Resource resource) {
    String json;
    try {
      json = printer.print(resource);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("cannot print " + resource.getData().getTypeUrl() + ": " + e.getMessage(), e);
    }
    JsonObject doc = JsonParser.parseString(json).getAsJsonObject();
    if (resource.hasId()) {
      collapseType(doc.getAsJsonObject("id"), resource.getId().getType());
    }
    if (resource.hasOwner()) {
      collapseType(doc.getAsJsonObject("owner"), resource.getOwner().getType());
    }
    JsonObject data = object(doc, "data");
    if (data != null) {
      data.remove(AT_TYPE);
    }
    return PRETTY.toJson(doc);
  }

  /**
   * Replaces {@code id.type} given as a string by its object form, and returns the type either
   * way (null when absent).
   */
  private Type expandType(JsonObject id, String path) {
    JsonElement type = id.get("type");
    if (type == null || type.isJsonNull()) {
      return null;
    }
    if (type.isJsonPrimitive() && type.getAsJsonPrimitive().isString()) {
      Type parsed;
      try {
        parsed = Types.parse(type.getAsString());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(path + ".type: " + e.getMessage(), e);
      }
      JsonObject object = new JsonObject();
      object.addProperty("group", parsed.getGroup());
      object.addProperty("groupVersion", parsed.getGroupVersion());
      object.addProperty("kind", parsed.getKind());
      id.add("type", object);
      return parsed;
    }
    if (!type.isJsonObject()) {
      throw new IllegalArgumentException(
          path + ".type must be \"group.version.Kind\" or {group, group_version, kind}, not " + kindOf(type));
    }
    Type.Builder parsed = Type.newBuilder();
    try {
      parser.merge(type.toString(), parsed);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException(path + ".type: " + e.getMessage(), e);
    }
    return parsed.build();
  }

  /** The document's data with the {@code @type} of {@code info}'s message, checking any given. */
  private static JsonObject dataWithType(JsonObject doc, TypeInfo info) {
    JsonElement given = doc.get("data");
    JsonObject data;
    if (given == null || given.isJsonNull()) {
      data = new JsonObject();
    } else if (given.isJsonObject()) {
      data = given.getAsJsonObject().deepCopy();
    } else {
      throw new IllegalArgumentException(
          "data must be an object with the fields of " + info.getDataMessage() + ", not " + kindOf(given));
    }
    JsonElement atType = data.get(AT_TYPE);
    if (atType != null) {
      String url = atType.isJsonPrimitive() ? atType.getAsString() : atType.toString();
      if (!url.substring(url.lastIndexOf('/') + 1).equals(info.getDataMessage())) {
        throw new IllegalArgumentException(
            "data.@type " + url + " does not match " + Types.format(info.getType())
                + ", whose data is " + info.getDataMessage());
      }
      return data;
    }
    if (SINGLE_VALUE_TYPES.contains(info.getDataMessage())) {
      for (String field : data.keySet()) {
        if (!field.equals("value")) {
          throw new IllegalArgumentException("data." + field + ": unknown field; the data of "
              + Types.format(info.getType()) + " is a " + info.getDataMessage() + ", whose one field is value");
        }
      }
    }
    JsonObject typed = new JsonObject();
    typed.addProperty(AT_TYPE, TYPE_URL_PREFIX + info.getDataMessage());
    data.entrySet().forEach(e -> typed.add(e.getKey(), e.getValue()));
    return typed;
  }

  /** Puts the type first, in its string form when well formed, then name, tenancy and uid. */
  private static void collapseType(JsonObject id, Type type) {
    if (id == null) {
      return;
    }
    JsonObject fields = id.deepCopy();
    id.entrySet().clear();
    if (Types.problem(type) == null) {
      id.addProperty("type", Types.format(type));
      fields.remove("type");
    }
    for (String first : List.of("type", "name", "tenancy")) {
      JsonElement value = fields.remove(first);
      if (value != null) {
        id.add(first, value);
      }
    }
    fields.entrySet().forEach(e -> id.add(e.getKey(), e.getValue()));
  }

  private static JsonObject object(JsonObject parent, String field) {
    JsonElement value = parent.get(field);
    if (value == null || value.isJsonNull()) {
      return null;
    }
    if (!value.isJsonObject()) {
      throw new IllegalArgumentException(field + " must be an object, not " + kindOf(value));
    }
    return value.getAsJsonObject();
  }

  private static String kindOf(JsonElement e) {
    if (e.isJsonArray()) {
      return "an array";
    }
    if (e.isJsonNull()) {
      return "null";
    }
    if (e.isJsonPrimitive()) {
      return e.getAsJsonPrimitive().isString() ? "a string" : "the value " + e;
    }
    return "an object";
  }

  private String known() {
    return types.isEmpty()
        ? "no types"
        : types.keySet().stream().map(Types::format).sorted().collect(Collectors.joining(", "));
  }

  /** Builds every file of {@code set}, each after its dependencies, whatever their order. */
  private static Map<String, FileDescriptor> buildFiles(FileDescriptorSet set) {
    Map<String, FileDescriptorProto> protos = new HashMap<>();
    for (FileDescriptorProto file : set.getFileList()) {
      protos.put(file.getName(), file);
    }
    Map<String, FileDescriptor> built = new LinkedHashMap<>();
    for (FileDescriptorProto file : set.getFileList()) {
      build(file.getName(), protos, built, new HashSet<>());
    }
    return built;
  }

  private static FileDescriptor build(
      String name, Map<String, FileDescriptorProto> protos, Map<String, FileDescriptor> built, Set<String> path) {
    FileDescriptor done = built.get(name);
    if (done != null) {
      return done;
    }
    FileDescriptorProto proto = protos.get(name);
    if (proto == null) {
      throw new IllegalArgumentException("descriptor set lacks " + name + ", a dependency of another file");
    }
    if (!path.add(name)) {
      throw new IllegalArgumentException("descriptor set has an import cycle through " + name);
    }
    FileDescriptor[] dependencies =
        proto.getDependencyList().stream().map(dep -> build(dep, protos, built, path)).toArray(FileDescriptor[]::new);
    try {
      FileDescriptor file = FileDescriptor.buildFrom(proto, dependencies);
      built.put(name, file);
      return file;
    } catch (DescriptorValidationException e) {
      throw new IllegalArgumentException("invalid descriptor " + name + ": " + e.getMessage(), e);
    }
  }
}
