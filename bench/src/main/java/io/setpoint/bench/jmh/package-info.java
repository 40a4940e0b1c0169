/**
 * JMH benchmarks of single components, in-process: the in-memory backend's writes, lists and
 * watch fan-out, the work queue against client-java's, and the clocks. Run with {@code
 * scripts/bench}; docs/benchmarks.md has the commands behind the published figures.
 */
package io.setpoint.bench.jmh;
