package io.setpoint.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.MessageOrBuilder;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import java.io.UncheckedIOException;

/** The gateway's one Jackson mapper, strict when reading, compact when writing; and its JSON answers. */
final class Json {
  /**
   * Rejects duplicate keys and trailing content, and keeps numbers exactly as written (the
   * protobuf parser decides what they may be).
   */
  static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
      .disable(JsonParser.Feature.ALLOW_COMMENTS)
      .build();

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("a JSON tree always serializes", e);
    }
  }

  /** {@code message} in {@code json}'s mapping as a {@code 200 OK} response. */
  static HttpResponse ok(ProtoJson json, MessageOrBuilder message) {
    return response(HttpStatus.OK, json.print(message));
  }

  /** {@code node} as an {@code application/json} response, ending with a newline. */
  static HttpResponse response(HttpStatus status, JsonNode node) {
    return HttpResponse.of(status, MediaType.JSON_UTF_8, write(node) + "\n");
  }
}
