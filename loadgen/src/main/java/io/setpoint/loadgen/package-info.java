/**
 * The benchmarks' load generator: closed-loop writers ({@link io.setpoint.loadgen.WriteLoad}) over
 * a {@link io.setpoint.loadgen.Target} (Setpoint's gRPC API or etcd's), and the servers they load,
 * started as processes ({@code AgentProcess}, {@code EtcdProcess}, {@code LocalCluster}) with
 * their CPU time ({@code CpuTime}) and latencies ({@code Latencies}) measured. Test and benchmark
 * support: not in the distribution.
 */
package io.setpoint.loadgen;
