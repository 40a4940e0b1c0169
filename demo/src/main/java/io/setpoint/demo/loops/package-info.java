/**
 * Demo loops over objects that are not resources, on the same engine as a controller's ({@link
 * io.setpoint.controller.loop.Loop}): {@code ChecksumLoop} keeps a checksum sidecar beside every
 * file of a directory (its changes seen by {@code DirectoryWatch}), and {@code LabelMirrorLoop}
 * mirrors a directory of record-label files into {@code demo.v1.RecordLabel} resources.
 */
package io.setpoint.demo.loops;
