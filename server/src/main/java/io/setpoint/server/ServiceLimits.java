package io.setpoint.server;

/**
 * Request limits of the resource service.
 *
 * @param maxResourceBytes the largest encoded resource a write may store
 * @param defaultPageSize the page size of a List that gives none
 * @param maxPageSize the largest page a List may ask for
 */
public record ServiceLimits(int maxResourceBytes, int defaultPageSize, int maxPageSize) {
  /** 1 MiB resources, pages of 1,000 by default and 10,000 at most. */
  public static final ServiceLimits DEFAULT = new ServiceLimits(1 << 20, 1_000, 10_000);

  public ServiceLimits {
    if (maxResourceBytes < 1 || defaultPageSize < 1 || maxPageSize < defaultPageSize) {
      throw new IllegalArgumentException(
          "limits must be positive and maxPageSize at least defaultPageSize: " + this);
    }
  }
}
