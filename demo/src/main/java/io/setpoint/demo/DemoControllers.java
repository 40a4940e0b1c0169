package io.setpoint.demo;

import io.setpoint.controller.Manager;

/** The controllers of {@code agent -dev}. */
public final class DemoControllers {
  private DemoControllers() {}

  /** Registers every demo controller with {@code manager}. */
  public static void register(Manager manager) {
    manager.register(ArtistController.controller());
    manager.register(RecordLabelController.controller());
  }
}
