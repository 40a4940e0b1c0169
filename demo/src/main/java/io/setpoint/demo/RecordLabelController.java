package io.setpoint.demo;

import io.setpoint.api.Ids;
import io.setpoint.api.Statuses;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Request;
import io.setpoint.controller.Result;
import io.setpoint.controller.cache.Index;
import io.setpoint.demo.v2.Artist;
import io.setpoint.resource.Hooks;
import java.util.List;

/**
 * Keeps, in the status of every {@code demo.v1.RecordLabel}, how many artists are signed to it,
 * counted through a cache index over artists by label, with no call to the server.
 */
public final class RecordLabelController {
  /** The status key the controller writes. */
  public static final String STATUS_KEY = "demo.setpoint.io/label";
  /** The index of artists by {@code partition/label}. */
  static final String BY_LABEL = "byLabel";

  private RecordLabelController() {}

  /** The controller, for a manager to run. */
  public static Controller controller() {
    // snippet:start index-and-watch
    return Controller.forType(DemoTypes.RECORD_LABEL)
        .named("demo-record-label")
        .index(DemoTypes.ARTIST, Index.of(BY_LABEL, RecordLabelController::labelKey))
        .watch(DemoTypes.ARTIST, (tools, artist) -> {
          String label = Hooks.decode(artist, Artist.class).data().getLabel();
          return label.isEmpty()
              ? List.of()
              : List.of(Request.of(Ids.of(DemoTypes.RECORD_LABEL,
                  Tenancies.partition(artist.getId().getTenancy().getPartition()), label)));
        })
        // snippet:end index-and-watch
        .reconciler((ctx, tools, req) -> {
          Resource label = tools.cache().get(req.id()).orElse(null);
          if (label == null) {
            return Result.done();
          }
          // snippet:start list-by-index
          int signed = tools.cache().listByIndex(DemoTypes.ARTIST, BY_LABEL,
              Index.key(req.id().getTenancy().getPartition(), req.id().getName())).size();
          // snippet:end list-by-index
          Status status = Conditions.set(Status.newBuilder().setObservedGeneration(label.getGeneration()),
              Conditions.isTrue("Signed", "Counted", signed + " artist(s) signed")).build();
          if (!Statuses.equal(label, STATUS_KEY, status)) {
            tools.client().writeStatus(label.getId(), STATUS_KEY, status);
          }
          return Result.done();
        });
  }

  private static String labelKey(Resource artist) {
    String label = Hooks.decode(artist, Artist.class).data().getLabel();
    return label.isEmpty() ? null : Index.key(artist.getId().getTenancy().getPartition(), label);
  }
}
