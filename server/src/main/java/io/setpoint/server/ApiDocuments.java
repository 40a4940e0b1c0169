package io.setpoint.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.Registration;
import java.util.List;
import java.util.Locale;

/**
 * The gateway's description of itself, generated from the registry: {@code GET /api/types} (each
 * type served, with the JSON Schema of its data) and {@code GET /api/openapi.json} (an OpenAPI 3.1
 * document with the routes of every type and schemas from the protobuf descriptors).
 */
final class ApiDocuments {
  private static final String JSON = "application/json";
  private static final String GENERIC_RESOURCE = "Resource";
  private static final String ERROR = "Error";

  private ApiDocuments() {}

  /** The path of a type's collection, {@code /api/demo/v2/Artist}. */
  static String path(Type type) {
    return "/api/" + type.getGroup() + "/" + type.getGroupVersion() + "/" + type.getKind();
  }

  /** {@code {"types": [...]}}: each served type with its scope, path and data schema. */
  static ObjectNode types(List<Registration<?>> served) {
    ObjectNode doc = Json.object();
    ArrayNode types = doc.putArray("types");
    for (Registration<?> reg : served) {
      TypeSchemas schemas = new TypeSchemas("#/$defs/");
      ObjectNode schema = Json.object().put("$schema", "https://json-schema.org/draft/2020-12/schema");
      schema.setAll(schemas.message(reg.descriptor()));
      schema.putObject("$defs").setAll(schemas.definitions());
      ObjectNode type = types.addObject()
          .put("type", Types.format(reg.type()))
          .put("group", reg.type().getGroup())
          .put("groupVersion", reg.type().getGroupVersion())
          .put("kind", reg.type().getKind())
          .put("scope", reg.scope().name())
          .put("dataMessage", reg.dataMessageName())
          .put("path", path(reg.type()));
      type.set("schema", schema);
    }
    return doc;
  }

  /** The OpenAPI 3.1 document of every served type's routes. */
  static ObjectNode openApi(List<Registration<?>> served) {
    TypeSchemas schemas = new TypeSchemas("#/components/schemas/");
    ObjectNode doc = Json.object().put("openapi", "3.1.0");
    doc.putObject("info")
        .put("title", "Setpoint HTTP API")
        .put("version", "v1")
        .put("description", "Typed resources over HTTP/JSON: the resource service of Setpoint in protobuf's "
            + "canonical JSON mapping, with each resource's data written without @type.");
    ObjectNode paths = doc.putObject("paths");
    paths.putObject("/api/types").set("get", operation("listTypes", "The types this server serves, with the JSON Schema of their data",
        List.of(), response(Json.object().put("type", "object"))));
    paths.putObject("/api/openapi.json").set("get", operation("openApi", "This document",
        List.of(), response(Json.object().put("type", "object"))));
    for (Registration<?> reg : served) {
      addPaths(paths, schemas, reg);
    }
    ObjectNode components = doc.putObject("components").putObject("schemas");
    components.set(ERROR, errorSchema());
    components.setAll(schemas.definitions());
    return doc;
  }

  private static void addPaths(ObjectNode paths, TypeSchemas schemas, Registration<?> reg) {
    String typeName = Types.format(reg.type());
    String base = path(reg.type());
    String suffix = capitalize(reg.type().getGroup()) + capitalize(reg.type().getGroupVersion()) + reg.type().getKind();
    ObjectNode resource = schemas.resource(reg, typeName);
    ObjectNode generic = schemas.resource(null, GENERIC_RESOURCE);
    List<ObjectNode> tenancy = tenancyParameters(reg.scope());

    ObjectNode listSchema = Json.object().put("type", "object").put("title", typeName + "List");
    ObjectNode listProperties = listSchema.putObject("properties");
    listProperties.putObject("resources").put("type", "array").set("items", resource);
    listProperties.putObject("nextPageToken").put("type", "string").put("description", "absent on the last page");
    listProperties.putObject("revision").put("type", "string").put("format", "uint64");
    schemas.definitions().put(typeName + "List", listSchema);

    ObjectNode list = operation("list" + suffix,
        "Lists " + typeName + " resources; with watch=true, streams the matching ones as server-sent events",
        concat(tenancy, List.of(
            query("name_prefix", "Only names starting with this", string()),
            query("page_size", "At most this many per page (0: the server default)", Json.object().put("type", "integer").put("minimum", 0)),
            query("page_token", "The nextPageToken of the previous page", string()),
            query("consistent", "A linearizable read instead of the default eventually consistent one", bool()),
            query("hash_ranges", "Only resources whose shard hash falls in one of these ranges, START-END (half-open,"
                + " within 0-4294967296) separated by commas", string()),
            query("watch", "Stream a snapshot, an end_of_snapshot event, then every change (text/event-stream); "
                + "resume with the Last-Event-ID header", bool()))),
        response(schemas.ref(typeName + "List")));
    ((ObjectNode) list.get("responses").get("200").get("content"))
        .putObject("text/event-stream").putObject("schema").put("type", "string");
    paths.putObject(base).set("get", list);

    ObjectNode item = paths.putObject(base + "/{name}");
    item.putArray("parameters").add(path("name", "The resource's name (a DNS label)"));
    item.set("get", operation("read" + suffix, "Reads one " + typeName,
        concat(tenancy, List.of(uid(false), query("consistent", "A linearizable read", bool()))), response(resource)));
    ObjectNode put = operation("write" + suffix, "Creates or updates one " + typeName
            + "; with version (query, body or If-Match), only if it is still the stored version;"
            + " with If-None-Match: *, only if the name is free",
        concat(tenancy, List.of(uid(false), version(), ifMatch(), fence(), header(Preconditions.IF_NONE_MATCH,
            "*: create only; 409 ALREADY_EXISTS if the name is taken"))), response(resource));
    put.set("requestBody", body(resource));
    item.set("put", put);
    item.set("delete", operation("delete" + suffix, "Deletes one " + typeName + " (absent is success)",
        concat(tenancy, List.of(uid(false), version(), ifMatch(), fence())), response(Json.object().put("type", "object"))));

    ObjectNode status = paths.putObject(base + "/{name}/status/{key}");
    status.putArray("parameters")
        .add(path("name", "The resource's name"))
        .add(path("key", "The status key, such as demo.setpoint.io/artist (its slash may be sent as is or as %2F)"));
    ObjectNode writeStatus = operation("writeStatus" + suffix, "Replaces one status entry of one " + typeName,
        concat(tenancy, List.of(uid(true), version(), ifMatch(), fence())), response(resource));
    writeStatus.set("requestBody", body(schemas.message(Status.getDescriptor())));
    status.set("put", writeStatus);

    ObjectNode owned = paths.putObject(base + "/{name}/owned");
    owned.putArray("parameters").add(path("name", "The owner's name"));
    ObjectNode ownedSchema = Json.object().put("type", "object");
    ownedSchema.putObject("properties").putObject("resources").put("type", "array").set("items", generic);
    owned.set("get", operation("listOwnedBy" + suffix, "Lists the resources one " + typeName + " owns directly",
        concat(tenancy, List.of(uid(false))), response(ownedSchema)));
  }

  private static List<ObjectNode> tenancyParameters(Scope scope) {
    return switch (scope) {
      case SCOPE_NAMESPACE -> List.of(
          query("partition", "The partition (default: default; * in lists and watches: all)", string()),
          query("namespace", "The namespace (default: default; * in lists and watches: all)", string()));
      case SCOPE_PARTITION -> List.of(
          query("partition", "The partition (default: default; * in lists and watches: all)", string()));
      default -> List.of();
    };
  }

  private static ObjectNode operation(String id, String summary, List<ObjectNode> parameters, ObjectNode responses) {
    ObjectNode op = Json.object().put("operationId", id).put("summary", summary);
    if (!parameters.isEmpty()) {
      parameters.forEach(op.putArray("parameters")::add);
    }
    op.set("responses", responses);
    return op;
  }

  private static ObjectNode response(ObjectNode schema) {
    ObjectNode responses = Json.object();
    responses.putObject("200").put("description", "OK")
        .putObject("content").putObject(JSON).set("schema", schema);
    responses.putObject("default").put("description", "An error; the HTTP status follows from code")
        .putObject("content").putObject(JSON).putObject("schema").put("$ref", "#/components/schemas/" + ERROR);
    return responses;
  }

  private static ObjectNode body(ObjectNode schema) {
    ObjectNode body = Json.object().put("required", true);
    body.putObject("content").putObject(JSON).set("schema", schema);
    return body;
  }

  private static ObjectNode query(String name, String description, ObjectNode schema) {
    ObjectNode p = Json.object().put("name", name).put("in", "query").put("description", description);
    p.set("schema", schema);
    return p;
  }

  private static ObjectNode header(String name, String description) {
    ObjectNode p = Json.object().put("name", name).put("in", "header").put("description", description);
    p.set("schema", string());
    return p;
  }

  private static ObjectNode ifMatch() {
    return header(Preconditions.IF_MATCH, "VERSION or \"VERSION\": like the version parameter (409 otherwise)");
  }

  private static ObjectNode fence() {
    return header(Preconditions.FENCE, "LEASE/HOLDER/EPOCH: act only while that leader-election lease"
        + " (core.v1.Lease) is held by HOLDER at EPOCH (412 FAILED_PRECONDITION otherwise)");
  }

  private static ObjectNode path(String name, String description) {
    ObjectNode p = Json.object().put("name", name).put("in", "path").put("required", true).put("description", description);
    p.set("schema", string());
    return p;
  }

  private static ObjectNode uid(boolean required) {
    ObjectNode p = query("uid", required
        ? "The uid of the incarnation whose status this is (required)"
        : "Only the incarnation with this uid", string());
    return required ? p.put("required", true) : p;
  }

  private static ObjectNode version() {
    return query("version", "Compare-and-swap: act only if this is the stored version (409 otherwise)", string());
  }

  private static ObjectNode errorSchema() {
    ObjectNode schema = Json.object().put("type", "object").put("title", ERROR);
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("code").put("type", "string").put("description", "The gRPC status code name, e.g. INVALID_ARGUMENT");
    properties.putObject("message").put("type", "string");
    properties.putObject("field").put("type", "string").put("description", "The path of the first field violation");
    ObjectNode violation = properties.putObject("violations").put("type", "array").putObject("items").put("type", "object");
    ObjectNode vp = violation.putObject("properties");
    vp.set("field", string());
    vp.set("rule", string());
    vp.set("description", string());
    schema.putArray("required").add("code").add("message");
    return schema;
  }

  private static List<ObjectNode> concat(List<ObjectNode> a, List<ObjectNode> b) {
    return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
  }

  private static ObjectNode string() {
    return Json.object().put("type", "string");
  }

  private static ObjectNode bool() {
    return Json.object().put("type", "boolean");
  }

  private static String capitalize(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }
}
