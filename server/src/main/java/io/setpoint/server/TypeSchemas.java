package io.setpoint.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.setpoint.api.v1.Resource;
import io.setpoint.resource.Registration;
import java.util.Map;
import java.util.TreeMap;

/**
 * JSON Schemas (draft 2020-12, which OpenAPI 3.1 also uses) of protobuf messages as the canonical
 * JSON mapping writes them: lowerCamelCase property names, 64-bit integers as strings (numbers are
 * accepted too), enums by name, well-known types in their special forms. Every message schema is
 * a named definition referenced with {@code $ref}, so recursive messages are fine.
 */
final class TypeSchemas {
  private final String refPrefix;
  private final Map<String, ObjectNode> definitions = new TreeMap<>();

  /** @param refPrefix where definitions live, e.g. {@code #/$defs/} or {@code #/components/schemas/} */
  TypeSchemas(String refPrefix) {
    this.refPrefix = refPrefix;
  }

  /** Every definition made so far, by name. */
  Map<String, ObjectNode> definitions() {
    return definitions;
  }

  /** A reference to {@code name}, which must be (or become) a definition. */
  ObjectNode ref(String name) {
    return Json.object().put("$ref", refPrefix + name);
  }

  /** A reference to the schema of {@code message}, defining it (and what it uses) if new. */
  ObjectNode message(Descriptor message) {
    String name = message.getFullName();
    if (!definitions.containsKey(name)) {
      ObjectNode schema = Json.object().put("type", "object").put("title", name);
      definitions.put(name, schema); // before the fields: a message may contain itself
      ObjectNode properties = schema.putObject("properties");
      for (FieldDescriptor f : message.getFields()) {
        properties.set(f.getJsonName(), field(f));
      }
      schema.put("additionalProperties", false);
    }
    return ref(name);
  }

  /**
   * A reference to the schema {@code name} of a resource as the gateway writes it: a {@code
   * Resource} whose {@code data} is the fields of {@code reg}'s message without {@code @type}, or
   * of any type's message when {@code reg} is null.
   */
  ObjectNode resource(Registration<?> reg, String name) {
    if (!definitions.containsKey(name)) {
      message(Resource.getDescriptor());
      ObjectNode schema = definitions.get(Resource.getDescriptor().getFullName()).deepCopy();
      schema.put("title", name);
      ((ObjectNode) schema.get("properties")).set("data", reg != null
          ? message(reg.descriptor())
          : Json.object().put("type", "object").put("description", "the fields of the data message of id.type"));
      definitions.put(name, schema);
    }
    return ref(name);
  }

  private ObjectNode field(FieldDescriptor f) {
    if (f.isMapField()) {
      FieldDescriptor value = f.getMessageType().findFieldByName("value");
      ObjectNode map = Json.object().put("type", "object");
      map.set("additionalProperties", single(value));
      return map;
    }
    if (f.isRepeated()) {
      ObjectNode array = Json.object().put("type", "array");
      array.set("items", single(f));
      return array;
    }
    return single(f);
  }

  private ObjectNode single(FieldDescriptor f) {
    return switch (f.getType()) {
      case INT32, SINT32, SFIXED32 -> Json.object().put("type", "integer").put("format", "int32");
      case UINT32, FIXED32 -> Json.object().put("type", "integer").put("format", "uint32").put("minimum", 0);
      case INT64, SINT64, SFIXED64 -> types("string", "integer").put("format", "int64");
      case UINT64, FIXED64 -> types("string", "integer").put("format", "uint64");
      case FLOAT -> types("number", "string").put("format", "float");
      case DOUBLE -> types("number", "string").put("format", "double");
      case BOOL -> Json.object().put("type", "boolean");
      case STRING -> Json.object().put("type", "string");
      case BYTES -> Json.object().put("type", "string").put("contentEncoding", "base64");
      case ENUM -> enumeration(f);
      case MESSAGE, GROUP -> wellKnownOr(f.getMessageType());
    };
  }

  private static ObjectNode enumeration(FieldDescriptor f) {
    if (f.getEnumType().getFullName().equals("google.protobuf.NullValue")) {
      return Json.object().put("type", "null");
    }
    ObjectNode schema = Json.object().put("type", "string");
    ArrayNode names = schema.putArray("enum");
    f.getEnumType().getValues().stream().map(EnumValueDescriptor::getName).forEach(names::add);
    return schema;
  }

  private ObjectNode wellKnownOr(Descriptor message) {
    return switch (message.getFullName()) {
      case "google.protobuf.Timestamp" -> Json.object().put("type", "string").put("format", "date-time");
      case "google.protobuf.Duration" -> Json.object().put("type", "string").put("pattern", "^-?[0-9]+(\\.[0-9]{1,9})?s$");
      case "google.protobuf.FieldMask" -> Json.object().put("type", "string");
      case "google.protobuf.Struct" -> Json.object().put("type", "object");
      case "google.protobuf.ListValue" -> Json.object().put("type", "array");
      case "google.protobuf.Value" -> Json.object();
      case "google.protobuf.Any" -> {
        ObjectNode any = Json.object().put("type", "object");
        any.putObject("properties").putObject("@type").put("type", "string");
        any.putArray("required").add("@type");
        yield any;
      }
      case "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
          "google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
          "google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue" ->
          single(message.findFieldByName("value"));
      default -> message(message);
    };
  }

  private static ObjectNode types(String... types) {
    ObjectNode schema = Json.object();
    ArrayNode list = schema.putArray("type");
    for (String t : types) {
      list.add(t);
    }
    return schema;
  }
}
