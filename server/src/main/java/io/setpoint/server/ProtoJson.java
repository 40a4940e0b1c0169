package io.setpoint.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import io.setpoint.api.Echo;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.resource.Registration;
import io.setpoint.resource.ValidationException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Protobuf's canonical JSON mapping for the gateway, with one departure: a resource's {@code data}
 * is the type's message without {@code @type}, because the type is in the path. Reading accepts an
 * {@code @type} that names the type's message, so a document read can be written back as is.
 * Parse failures are {@link ValidationException}s naming the field that broke, such as {@code
 * resource.data.tracks[1].length_seconds} or an unknown {@code resource.data.nmae}.
 */
final class ProtoJson {
  private static final String AT_TYPE = "@type";
  private static final String TYPE_URL_PREFIX = "type.googleapis.com/";

  private final JsonFormat.Parser parser;
  private final JsonFormat.Printer printer;

  ProtoJson(List<Registration<?>> types) {
    JsonFormat.TypeRegistry.Builder registry = JsonFormat.TypeRegistry.newBuilder();
    types.forEach(reg -> registry.add(reg.descriptor()));
    JsonFormat.TypeRegistry typeRegistry = registry.build();
    this.parser = JsonFormat.parser().usingTypeRegistry(typeRegistry);
    this.printer = JsonFormat.printer().usingTypeRegistry(typeRegistry).omittingInsignificantWhitespace();
  }

  /**
   * The JSON object of a request body.
   *
   * @param path the request field the body is, for error messages ({@code resource})
   */
  static ObjectNode object(byte[] body, String path) {
    if (body.length == 0) {
      throw ValidationException.of(path, "required", "the request body must be a JSON object");
    }
    String text;
    try {
      text = Utf8.decode(body);
    } catch (IllegalArgumentException e) {
      throw ValidationException.of(path, "utf-8", "the request body is " + e.getMessage());
    }
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw ValidationException.of(path, "json", "the request body is not valid JSON: " + e.getOriginalMessage()
          + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")"));
    } catch (java.io.IOException e) {
      throw new UncheckedIOException("reading from an array cannot fail", e);
    }
    if (!(node instanceof ObjectNode object)) {
      throw ValidationException.of(path, "json", "the request body must be a JSON object, not " + kind(node));
    }
    checkSurrogates(object, path);
    return object;
  }

  /**
   * Refuses a string or key holding half a surrogate pair (a JSON {@code \\u} escape of D800 alone
   * writes one): it is no Unicode text, and protobuf would store it as {@code ?}.
   */
  private static void checkSurrogates(JsonNode node, String path) {
    if (node.isTextual() && Utf8.loneSurrogate(node.asText()) >= 0) {
      throw ValidationException.of(path, "utf-8", "holds a lone surrogate at character "
          + Utf8.loneSurrogate(node.asText()) + ": strings must be Unicode text (a JSON \\u escape of half a pair is not)");
    }
    if (node instanceof ArrayNode items) {
      for (int i = 0; i < items.size(); i++) {
        checkSurrogates(items.get(i), path + "[" + i + "]");
      }
    } else if (node instanceof ObjectNode object) {
      for (Map.Entry<String, JsonNode> e : object.properties()) {
        if (Utf8.loneSurrogate(e.getKey()) >= 0) {
          throw ValidationException.of(path, "utf-8", "a key holds a lone surrogate: keys must be Unicode text");
        }
        checkSurrogates(e.getValue(), path + "." + Echo.bounded(e.getKey(), Echo.MAX_ECHO));
      }
    }
  }

  /** The resource a write's body describes, its data read as {@code reg}'s message. */
  Resource resource(ObjectNode body, Registration<?> reg) {
    ObjectNode json = body.deepCopy();
    JsonNode data = json.get("data");
    if (data != null && !data.isNull()) {
      if (!(data instanceof ObjectNode fields)) {
        throw ValidationException.of("resource.data", "json",
            "must be an object with the fields of " + reg.dataMessageName() + ", not " + kind(data));
      }
      json.set("data", typed(fields, reg));
    }
    Resource.Builder resource = Resource.newBuilder();
    merge(json, resource, "resource", reg);
    return resource.build();
  }

  /** The status a status write's body describes. */
  Status status(ObjectNode body) {
    Status.Builder status = Status.newBuilder();
    merge(body, status, "status", null);
    return status.build();
  }

  /** {@code message} in the canonical mapping, with every resource's data printed without {@code @type}. */
  ObjectNode print(MessageOrBuilder message) {
    ObjectNode tree;
    try {
      tree = (ObjectNode) Json.MAPPER.readTree(printer.print(message));
    } catch (InvalidProtocolBufferException | JsonProcessingException e) {
      throw new IllegalStateException("cannot print a " + message.getDescriptorForType().getFullName(), e);
    }
    untype(tree, message.getDescriptorForType());
    return tree;
  }

  /** Removes {@code @type} from the data of every resource within {@code node}, a {@code type}. */
  private static void untype(JsonNode node, Descriptor type) {
    if (!(node instanceof ObjectNode object)) {
      return;
    }
    if (type.equals(Resource.getDescriptor())) {
      if (object.get("data") instanceof ObjectNode data) {
        data.remove(AT_TYPE);
      }
      return;
    }
    for (FieldDescriptor f : type.getFields()) {
      JsonNode value = object.get(f.getJsonName());
      if (value == null || f.getJavaType() != FieldDescriptor.JavaType.MESSAGE || f.isMapField()) {
        continue;
      }
      if (value instanceof ArrayNode items) {
        items.forEach(item -> untype(item, f.getMessageType()));
      } else {
        untype(value, f.getMessageType());
      }
    }
  }

  /** {@code fields} with the {@code @type} of {@code reg}'s message, checking one given. */
  private static ObjectNode typed(ObjectNode fields, Registration<?> reg) {
    String want = TYPE_URL_PREFIX + reg.dataMessageName();
    JsonNode given = fields.get(AT_TYPE);
    if (given != null) {
      String url = given.isTextual() ? given.asText() : given.toString();
      if (!url.substring(url.lastIndexOf('/') + 1).equals(reg.dataMessageName())) {
        throw ValidationException.of("resource.data", "data-type", "@type " + Echo.quote(url) + " does not match "
            + Types.format(reg.type()) + " (from the path), whose data is " + reg.dataMessageName()
            + "; leave @type out");
      }
    }
    ObjectNode out = Json.object().put(AT_TYPE, want);
    fields.properties().forEach(e -> {
      if (!e.getKey().equals(AT_TYPE)) {
        out.set(e.getKey(), e.getValue());
      }
    });
    return out;
  }

  private void merge(ObjectNode json, Message.Builder into, String path, Registration<?> reg) {
    ValidationException misshapen = shape(json, into.getDescriptorForType(), path, reg);
    if (misshapen != null) {
      throw misshapen;
    }
    try {
      parser.merge(Json.write(json), into);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      ValidationException located = locate(json, into.getDescriptorForType(), path, reg);
      throw located != null ? located : ValidationException.of(path, "json", message(e));
    }
  }

  /**
   * The first unknown field, or value of the wrong JSON kind (an array for a single value, a
   * scalar for a message), in {@code json}, a {@code type}; null when there is none. The protobuf
   * parser is lenient about kinds (it reads {@code ["x"]} as the string {@code x}); this is not.
   */
  private static ValidationException shape(ObjectNode json, Descriptor type, String path, Registration<?> reg) {
    for (Map.Entry<String, JsonNode> entry : json.properties()) {
      String key = entry.getKey();
      JsonNode value = entry.getValue();
      if (key.equals(AT_TYPE) || value.isNull()) {
        continue;
      }
      FieldDescriptor field = field(type, key);
      if (field == null) {
        return unknownField(path, key, type);
      }
      String at = path + "." + field.getName();
      if (field.isMapField()) {
        if (!value.isObject()) {
          return wrongKind(at, "an object", value);
        }
        FieldDescriptor valueField = field.getMessageType().findFieldByName("value");
        for (Map.Entry<String, JsonNode> e : value.properties()) {
          ValidationException problem = single(valueField, e.getValue(), at + "[" + Echo.quote(e.getKey()) + "]", reg);
          if (problem != null) {
            return problem;
          }
        }
      } else if (field.isRepeated()) {
        if (!value.isArray()) {
          return wrongKind(at, "an array", value);
        }
        for (int i = 0; i < value.size(); i++) {
          ValidationException problem = single(field, value.get(i), at + "[" + i + "]", reg);
          if (problem != null) {
            return problem;
          }
        }
      } else {
        ValidationException problem = single(field, value, at, reg);
        if (problem != null) {
          return problem;
        }
      }
    }
    return null;
  }

  private static ValidationException single(FieldDescriptor field, JsonNode value, String at, Registration<?> reg) {
    if (value.isNull()) {
      return null;
    }
    if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
      return value.isContainerNode() ? wrongKind(at, "a single value", value) : null;
    }
    Descriptor inner = nested(field, reg);
    if (inner == null) {
      return null; // a well-known type with its own JSON form: the parser checks it
    }
    return value instanceof ObjectNode object ? shape(object, inner, at, reg) : wrongKind(at, "an object", value);
  }

  private static ValidationException unknownField(String path, String key, Descriptor type) {
    return ValidationException.of(path + "." + Echo.bounded(key, Echo.MAX_ECHO), "unknown-field",
        "unknown field " + Echo.quote(key) + ": " + type.getFullName() + " has " + fieldNames(type));
  }

  private static ValidationException wrongKind(String at, String expected, JsonNode value) {
    return ValidationException.of(at, "json", "must be " + expected + ", not " + kind(value));
  }

  /**
   * Finds the field that made a parse fail by parsing the fields of {@code json} one at a time,
   * and descending into the first that fails. Null when every field parses on its own.
   */
  private ValidationException locate(ObjectNode json, Descriptor type, String path, Registration<?> reg) {
    for (Map.Entry<String, JsonNode> entry : json.properties()) {
      String key = entry.getKey();
      JsonNode value = entry.getValue();
      if (key.equals(AT_TYPE)) {
        continue;
      }
      FieldDescriptor field = field(type, key);
      if (field == null) {
        return unknownField(path, key, type);
      }
      String at = path + "." + field.getName();
      String problem = problem(type, key, value);
      if (problem == null) {
        continue;
      }
      Descriptor inner = nested(field, reg);
      if (inner != null && field.isRepeated() && value instanceof ArrayNode items) {
        for (int i = 0; i < items.size(); i++) {
          String itemProblem = problem(type, key, Json.MAPPER.createArrayNode().add(items.get(i)));
          if (itemProblem != null) {
            ValidationException deeper = items.get(i) instanceof ObjectNode item ? locate(item, inner, at + "[" + i + "]", reg) : null;
            return deeper != null ? deeper : ValidationException.of(at + "[" + i + "]", "json", itemProblem);
          }
        }
      } else if (inner != null && !field.isRepeated() && value instanceof ObjectNode object) {
        ValidationException deeper = locate(object, inner, at, reg);
        if (deeper != null) {
          return deeper;
        }
      }
      return ValidationException.of(at, "json", problem);
    }
    return null;
  }

  /** Why {@code {key: value}} does not parse as a {@code type}, or null when it does. */
  private String problem(Descriptor type, String key, JsonNode value) {
    ObjectNode single = Json.object();
    single.set(key, value);
    try {
      parser.merge(Json.write(single), DynamicMessage.newBuilder(type));
      return null;
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      return message(e);
    }
  }

  /**
   * The message type to descend into for {@code field}: its own for ordinary messages, the
   * registered data message for a resource's data, none for maps and other well-known types.
   */
  private static Descriptor nested(FieldDescriptor field, Registration<?> reg) {
    if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE || field.isMapField()) {
      return null;
    }
    Descriptor type = field.getMessageType();
    if (type.getFullName().equals("google.protobuf.Any")) {
      return reg != null && field.getContainingType().equals(Resource.getDescriptor()) ? reg.descriptor() : null;
    }
    return type.getFile().getPackage().equals("google.protobuf") ? null : type;
  }

  private static FieldDescriptor field(Descriptor type, String key) {
    FieldDescriptor byName = type.findFieldByName(key);
    if (byName != null) {
      return byName;
    }
    return type.getFields().stream().filter(f -> f.getJsonName().equals(key)).findFirst().orElse(null);
  }

  private static String fieldNames(Descriptor type) {
    return type.getFields().isEmpty()
        ? "no fields"
        : "the fields " + type.getFields().stream().map(FieldDescriptor::getJsonName).collect(Collectors.joining(", "));
  }

  private static String message(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static String kind(JsonNode node) {
    return switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> "an object";
    };
  }

}
