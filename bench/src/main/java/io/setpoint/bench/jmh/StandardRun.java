package io.setpoint.bench.jmh;

import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run settings every benchmark inherits; command-line options (-f, -wi, -w, -i, -r) override
 * them. One fork with a fixed, pre-touched 2 GB heap: without pre-touching, the first pass of the
 * allocator over fresh heap pages (page faults) slows whichever iterations happen to make it.
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
abstract class StandardRun {}
