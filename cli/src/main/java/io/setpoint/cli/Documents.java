package io.setpoint.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Resource documents as text: reads JSON or YAML input into JSON documents (one per resource), and
 * turns JSON documents into the output formats.
 */
final class Documents {
  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final ObjectMapper YAML = new YAMLMapper(YAMLFactory.builder()
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
      .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
      .build());

  private Documents() {}

  /**
   * The resource documents in {@code text}, each as JSON. JSON input (starting with {@code {} or
   * {@code [}) may hold one document, several in a row, or arrays of them; YAML input may hold
   * several {@code ---}-separated documents or sequences of them.
   *
   * @param source names the input in messages
   * @throws CliException when the text is not JSON or YAML, or holds something else than objects
   */
  static List<String> read(String text, String source) {
    String trimmed = text.stripLeading();
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
      try {
        return read(JSON, text, source);
      } catch (CliException notJson) {
        try {
          return read(YAML, text, source); // YAML flow style also starts with a brace
        } catch (CliException notYamlEither) {
          throw notJson;
        }
      }
    }
    return read(YAML, text, source);
  }

  private static List<String> read(ObjectMapper mapper, String text, String source) {
    List<String> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> values = mapper.readerFor(JsonNode.class).readValues(text)) {
      while (values.hasNextValue()) {
        JsonNode value = values.nextValue();
        for (JsonNode document : value.isArray() ? value : List.of(value)) {
          if (document.isNull() || document.isMissingNode()) {
            continue; // an empty YAML document, e.g. after a trailing ---
          }
          if (!document.isObject()) {
            throw new CliException(source + ": document " + (documents.size() + 1) + " is not an object but " + document.getNodeType().toString().toLowerCase());
          }
          documents.add(JSON.writeValueAsString(document));
        }
      }
    } catch (JsonProcessingException e) {
      throw new CliException(source + ": not valid " + (mapper == JSON ? "JSON" : "YAML") + ": " + e.getOriginalMessage() + where(e.getLocation()), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (documents.isEmpty()) {
      throw new CliException(source + ": no resource documents found");
    }
    return documents;
  }

  private static String where(JsonLocation location) {
    return location == null || location.getLineNr() < 0
        ? ""
        : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
  }

  /** A JSON array of already indented JSON documents, in the same style. */
  static String jsonArray(List<String> documents) {
    if (documents.isEmpty()) {
      return "[]";
    }
    return documents.stream()
        .map(d -> d.lines().map(line -> "  " + line).collect(Collectors.joining("\n")))
        .collect(Collectors.joining(",\n", "[\n", "\n]"));
  }

  /** A watch event as one line of JSON: {@code {"event", "revision", "resource"}}. */
  static String event(String event, String revision, String resourceJson) {
    ObjectNode node = JSON.createObjectNode().put("event", event).put("revision", revision);
    try {
      if (resourceJson != null) {
        node.set("resource", JSON.readTree(resourceJson));
      }
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** One JSON document on one line. */
  static String compact(String json) {
    try {
      return JSON.writeValueAsString(JSON.readTree(json));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** A JSON document as one YAML document, starting with {@code ---}. */
  static String yaml(String json) {
    try {
      return YAML.writeValueAsString(JSON.readTree(json));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
  }
}
