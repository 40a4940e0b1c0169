/**
 * The {@code setpoint} command line: {@link io.setpoint.cli.Main} picks the subcommand and maps
 * failures to exit codes. A map, by file name:
 *
 * <ul>
 *   <li><b>The agent</b>: {@code AgentCommand}, with its option groups {@code AgentTlsOptions} and
 *       {@code AgentLimitOptions}, {@code JoinRequest} ({@code -join}), {@code MemberFile} (what a
 *       member was started with, kept in its data directory), {@code LogConfigurator}.
 *   <li><b>Resources</b>: {@code ResourceCommand} over {@code ReadCommand}, {@code ListCommand},
 *       {@code ApplyCommand}, {@code CreateCommand}, {@code DeleteCommand}, {@code WatchCommand};
 *       documents read by {@code Documents} and printed by {@code Printer}, {@code Table}, {@code
 *       Format}.
 *   <li><b>Types</b>: {@code TypeCommand} and its subcommands; {@code ProtoCompiler} runs protoc.
 *   <li><b>Operations</b>: {@code OperatorCommand} (Raft peers), {@code SnapshotCommand}, {@code
 *       AclCommand} and its token commands, {@code ControllerCommand} (list, reconcile, history),
 *       {@code WhyCommand}.
 *   <li><b>Demo</b>: {@code DemoCommand}, {@code DemoControllersCommand}.
 *   <li><b>Shared options</b>: {@code ClientOptions}, {@code TenancyOptions}, {@code
 *       SelectionOptions}, {@code OutputOption}, {@code ElectionOptions}, {@code DurationConverter}.
 *   <li><b>The build</b>: {@code AotTraining}, the runs behind the distribution's AOT caches.
 *   <li>{@code BenchUnavailable}: {@code setpoint bench} where the benchmarks (setpoint-bench) are
 *       not on the class path.
 * </ul>
 */
package io.setpoint.cli;
