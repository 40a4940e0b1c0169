package io.setpoint.resource;

/** What a caller may be allowed to do. */
public enum Permission {
  READ("read"),
  WRITE("write"),
  LIST("list"),
  OPERATOR_READ("operator:read"),
  OPERATOR_WRITE("operator:write");

  private final String label;

  Permission(String label) {
    this.label = label;
  }

  /** The name policies and error messages use, e.g. {@code operator:read}. */
  public String label() {
    return label;
  }
}
