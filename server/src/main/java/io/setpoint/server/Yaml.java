package io.setpoint.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import io.setpoint.resource.ValidationException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Resources as YAML on the gateway's resource routes, for people editing them (the UI's editor,
 * curl): a PUT with {@code Content-Type: application/yaml} sends the same document as its JSON,
 * written as YAML, and {@code Accept: application/yaml} on a read or a PUT answers the resource as
 * YAML. Errors stay JSON. The YAML is read into the same tree as JSON would be, then parsed by the
 * same protobuf mapping, so both say the same things about a bad document.
 */
final class Yaml {
  static final MediaType YAML = MediaType.parse("application/yaml; charset=utf-8");
  private static final YAMLMapper MAPPER = YAMLMapper.builder(YAMLFactory.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
      .build();

  private Yaml() {}

  /** Whether the request's body is YAML ({@code application/yaml}, {@code application/x-yaml}, {@code text/yaml}). */
  static boolean sent(AggregatedHttpRequest req) {
    MediaType type = req.contentType();
    return type != null && isYaml(type);
  }

  /** Whether the request asks for YAML in its {@code Accept}. */
  static boolean asked(AggregatedHttpRequest req) {
    String accept = req.headers().get(HttpHeaderNames.ACCEPT);
    if (accept == null) {
      return false;
    }
    for (String part : accept.split(",")) {
      try {
        if (isYaml(MediaType.parse(part.trim()))) {
          return true;
        }
      } catch (IllegalArgumentException e) {
        // Not a media type: what else it asks for decides.
      }
    }
    return false;
  }

  private static boolean isYaml(MediaType type) {
    return (type.type().equals("application") && (type.subtype().equals("yaml") || type.subtype().equals("x-yaml")))
        || (type.type().equals("text") && type.subtype().equals("yaml"));
  }

  /**
   * The YAML body as the JSON the gateway reads; a body that is not one YAML mapping is a {@code
   * path} violation with rule {@code yaml}, naming the line and column.
   */
  static byte[] toJson(byte[] body, String path) {
    JsonNode node;
    try {
      node = MAPPER.readTree(new String(body, StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      throw ValidationException.of(path, "yaml", "the request body is not valid YAML: " + e.getOriginalMessage()
          + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
              + e.getLocation().getColumnNr() + ")"));
    }
    if (!(node instanceof ObjectNode)) {
      throw ValidationException.of(path, "yaml", "the request body must be a YAML mapping (a resource document)");
    }
    return Json.write(node).getBytes(StandardCharsets.UTF_8);
  }

  /** {@code node} as a {@code 200 OK} YAML answer. */
  static HttpResponse ok(JsonNode node) {
    try {
      return HttpResponse.of(HttpStatus.OK, YAML, MAPPER.writeValueAsString(node));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("a JSON tree always serializes", e);
    }
  }
}
