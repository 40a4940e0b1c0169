package io.setpoint.server;

import io.opentelemetry.api.trace.SpanContext;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The trace of the latest write of each recently written resource, so that the watch events of the
 * change carry it to the controllers they wake: a reconcile then joins the trace of the write that
 * caused it. Recorded when the write arrives, before the store commits it, so no event can go out
 * first. Bounded to the last {@value #SIZE} resources written; only writes this member received are
 * known here, and of two writes of one resource at once the event may carry the later one's trace.
 */
final class WriteTraces {
  static final int SIZE = 4096;

  private final Map<String, String> byResource = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
      return size() > SIZE;
    }
  };

  /** False until a write is recorded: watches then skip the lookup (say, tracing that samples nothing). */
  private volatile boolean any;

  /**
   * Records that the write of the resource {@link #key} names, traced by {@code span}, is under way;
   * a span sampled out is not recorded, as the reconcile it woke would be sampled out with it.
   */
  public void record(String key, SpanContext span) {
    if (!span.isValid() || !span.isSampled()) {
      return;
    }
    any = true;
    String traceparent = "00-" + span.getTraceId() + "-" + span.getSpanId() + "-" + span.getTraceFlags().asHex();
    synchronized (byResource) {
      byResource.remove(key);
      byResource.put(key, traceparent);
    }
  }

  /** The W3C {@code traceparent} of the latest write of {@code id} recorded here, or null. */
  public String traceparent(ID id) {
    if (!any) {
      return null;
    }
    String key = key(id); // outside the lock every watch's stream takes
    synchronized (byResource) {
      return byResource.get(key);
    }
  }

  /** How a resource is named here, and in a write span's {@code setpoint.resource}: its id without the uid. */
  public static String key(ID id) {
    return Ids.format(Ids.withoutUid(id));
  }
}
