#!/bin/sh
# Stages the distribution's lib/: the CLI's build output as cli/ laid it out (setpoint-cli.jar, the
# jars its manifest names under lib/, protoc/), and the AOT caches if that build made them, with
# the runtime version of the JVM that did. Copies keep their times: a JVM maps an AOT cache only
# while every jar it was made with has its size and time, in the same layout relative to the jar.
# Usage: stage-lib.sh CLI_TARGET OUT_DIR JAVA_RUNTIME_VERSION
set -eu
cli=$1
out=$2
runtime=$3
if ! { [ -f "$cli/setpoint-cli.jar" ] && [ -d "$cli/lib" ] && [ -f "$cli/protoc/protoc" ]; }; then
  echo "stage-lib.sh: $cli holds no built CLI (setpoint-cli.jar, lib/, protoc/): build the cli module first" >&2
  exit 1
fi
rm -rf "$out"
mkdir -p "$out/lib" "$out/protoc"
cp -p "$cli/setpoint-cli.jar" "$out/"
cp -p "$cli"/lib/*.jar "$out/lib/"
cp -p "$cli/protoc/protoc" "$out/protoc/"
# Only caches newer than every jar: an older one was made with an earlier build of some jar (say,
# by a build before one with -Dsetpoint.aot.skip), and a JVM would refuse it.
made=""
for cache in setpoint-agent.aot setpoint-cli.aot; do
  if [ -f "$cli/$cache" ] && [ -z "$(find "$cli/setpoint-cli.jar" "$cli/lib" -name '*.jar' -newer "$cli/$cache")" ]; then
    cp -p "$cli/$cache" "$out/"
    made=yes
  fi
done
[ -z "$made" ] || printf '%s\n' "$runtime" > "$out/aot-runtime"
