package io.setpoint.client;

/** A parsed {@code host:port}, one agent of a client's address. */
record HostPort(String host, int port) {
  /**
   * Parses {@code address}, {@code host:port} with an IPv6 host in brackets.
   *
   * @throws IllegalArgumentException when it is not {@code host:port} with a port in 1..65535
   */
  static HostPort parse(String address) {
    int colon = address.lastIndexOf(':');
    String host = colon < 0 ? "" : address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = -1;
    if (colon >= 0) {
      try {
        port = Integer.parseInt(address.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
    }
    if (host.isEmpty() || port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          "address \"" + address + "\" must be host:port with a port in 1..65535, e.g. localhost:8500");
    }
    return new HostPort(host, port);
  }
}
