package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import org.junit.jupiter.api.Test;

/** What a write's trace leaves for its watch events: the traceparent of a sampled write, nothing of one sampled out. */
class WriteTracesTest {
  private static final ID ID = Ids.of(Types.of("demo", "v2", "Artist"), "nina").toBuilder().setUid("01ABC").build();
  private static final String TRACE = "0af7651916cd43dd8448eb211c80319c";
  private static final String SPAN = "b7ad6b7169203331";

  @Test
  void aSampledWriteIsFoundByItsResourceWhateverItsUid() {
    WriteTraces traces = new WriteTraces();
    traces.record(WriteTraces.key(ID), SpanContext.create(TRACE, SPAN, TraceFlags.getSampled(), TraceState.getDefault()));

    assertThat(traces.traceparent(ID.toBuilder().setUid("01OTHER").build()))
        .isEqualTo("00-" + TRACE + "-" + SPAN + "-01");
  }

  @Test
  void aWriteSampledOutOrWithoutATraceLeavesNothing() {
    WriteTraces traces = new WriteTraces();
    traces.record(WriteTraces.key(ID), SpanContext.create(TRACE, SPAN, TraceFlags.getDefault(), TraceState.getDefault()));
    traces.record(WriteTraces.key(ID), SpanContext.getInvalid());

    assertThat(traces.traceparent(ID)).isNull();
  }
}
