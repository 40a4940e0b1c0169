/**
 * {@code setpoint bench}: system benchmarks against real agents, etcd servers and client-java,
 * each a subcommand of {@link io.setpoint.bench.BenchCommand} that prints what it measured. Not
 * in the distribution; {@code ./setpoint bench} puts this module on the class path. A map:
 *
 * <ul>
 *   <li><b>Writes against etcd</b>: {@code WritesBench}, its comparisons in {@code
 *       WritesComparison}, etcd's flags in {@code EtcdOptions}; the load generator is the loadgen
 *       module.
 *   <li><b>Start and stop</b>: {@code StartupBench}, {@code Probe}.
 *   <li><b>Controllers</b>: {@code ReconcileLatencyBench}, {@code ColdStartBench}, {@code
 *       CacheMemoryBench}, {@code FailoverBench}, {@code ShardsBench} with {@code
 *       ShardMemberCommand}.
 *   <li><b>Types and floods</b>: {@code TypesBench}; {@code FloodBench} with {@code
 *       FloodClientCommand}, {@code FloodProcess}, {@code FloodHttp}, {@code StuckWatchers} and its
 *       report, {@code FloodReport} and {@code PhaseCpu}.
 *   <li><b>Faults</b>: {@code ChaosBench}, over the loadgen module's chaos suite.
 *   <li><b>Cost as the data grows</b>: {@code ScaleBench}, one system at one size in {@code
 *       ScaleRun} through {@code ScaleSystem} ({@code ScaleSetpoint}, {@code ScaleEtcd}), the load in
 *       {@code ScaleLoad}, the tables in {@code ScaleReport}, Linux's figures in {@code OsProbes}.
 *   <li><b>Shared</b>: {@code Bench}, {@code AgentArgument}, {@code AgentGauges}, {@code
 *       CpuPinning}, {@code LineProcess}.
 * </ul>
 *
 * <p>JMH benchmarks of single components are in {@code io.setpoint.bench.jmh}.
 */
package io.setpoint.bench;
