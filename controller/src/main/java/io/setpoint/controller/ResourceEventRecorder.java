package io.setpoint.controller;

import com.github.f4b6a3.ulid.UlidCreator;
import com.google.protobuf.Any;
import com.google.protobuf.Timestamp;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.core.v1.Event;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.Tools.EventRecorder;
import io.setpoint.resource.CoreTypes;
import java.time.Clock;
import java.time.Instant;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Records events as {@code core.v1.Event} resources owned by their subject. */
final class ResourceEventRecorder implements EventRecorder {
  /** The type of event resources. */
  static final Type EVENT = CoreTypes.EVENT;
  private static final Logger log = LoggerFactory.getLogger(ResourceEventRecorder.class);

  private final SetpointClient client;
  private final String controller;
  private final Clock clock;

  ResourceEventRecorder(SetpointClient client, String controller, Clock clock) {
    this.client = client;
    this.controller = controller;
    this.clock = clock;
  }

  @Override
  public void normal(Resource subject, String reason, String message) {
    record(subject, Event.Severity.SEVERITY_NORMAL, reason, message);
  }

  @Override
  public void warning(Resource subject, String reason, String message) {
    record(subject, Event.Severity.SEVERITY_WARNING, reason, message);
  }

  private void record(Resource subject, Event.Severity severity, String reason, String message) {
    Instant now = clock.instant();
    Event event = Event.newBuilder()
        .setSeverity(severity)
        .setReason(reason)
        .setMessage(message)
        .setSubject(Ids.reference(subject.getId()))
        .setController(controller)
        .setTime(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()))
        .build();
    String name = UlidCreator.getMonotonicUlid().toString().toLowerCase(Locale.ROOT);
    try {
      client.write(Resource.newBuilder()
          .setId(Ids.of(EVENT, Tenancies.CLUSTER, name))
          .setOwner(subject.getId())
          .setData(Any.pack(event))
          .build());
    } catch (SetpointException e) {
      // Events are informational: failing to record one must not fail the reconcile.
      log.warn("could not record event {} on {}: {}", reason, Ids.format(subject.getId()), e.getMessage());
    }
  }
}
