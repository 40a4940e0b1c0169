#!/bin/sh
# Makes the file tree that the image adds to an empty (scratch) base: a Java runtime jlinked from
# the JDK running the build, the shared libraries it links, a passwd and group naming the user
# `setpoint`, /tmp, the data directory, and the protoc of `setpoint type apply` where the CLI looks
# for it (next to its jar, in /app/libs). Usage: rootfs.sh JAVA_HOME PROTOC OUT_DIR
# The JVM's flags go into OUT/app/jvm.args (the entry point reads it with java's @file), since
# which of them the runtime takes depends on its version.
set -eu
jdk=$1
protoc=$2
out=$3
[ -x "$jdk/bin/jlink" ] || { echo "rootfs.sh: $jdk has no bin/jlink" >&2; exit 1; }
[ -f "$protoc" ] || { echo "rootfs.sh: no protoc at $protoc (build cli first)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/opt" "$out/etc" "$out/tmp" "$out/var/lib/setpoint" "$out/app/libs/protoc"
cp "$protoc" "$out/app/libs/protoc/protoc"

# The modules the CLI's jars use (jdeps --print-module-deps over lib/), and the service providers
# jdeps cannot see: jdk.zipfs (`type apply` reads the bundled protos out of the jars) and the
# JDK 21 elliptic-curve TLS provider where that runtime still has it in a module of its own.
modules=java.base,java.compiler,java.desktop,java.instrument,java.naming,java.net.http,java.sql
modules=$modules,jdk.jfr,jdk.management,jdk.unsupported,jdk.zipfs
if "$jdk/bin/java" --list-modules | grep -q '^jdk\.crypto\.ec@'; then
  modules=$modules,jdk.crypto.ec
fi
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --compress=zip-6 --output "$out/opt/java"

# Every shared library that the launcher, the JVM and the runtime's own libraries link, at the
# path the dynamic linker looks for it, and the linker itself. Not those of the desktop's display
# and sound libraries: a headless agent never loads them, and they would bring X11 and ALSA.
for object in "$out/opt/java/bin/java" "$out"/opt/java/lib/*.so "$out"/opt/java/lib/server/*.so; do
  case "${object##*/}" in libawt_xawt.so|libjawt.so|libjsound.so|libsplashscreen.so) continue ;; esac
  ldd "$object" 2>/dev/null || true
done | sed -n -e 's/^.*=> \(\/[^ ]*\) .*$/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*$/\1/p' | sort -u |
  while IFS= read -r library; do
    case "$library" in "$out"/*) continue ;; esac
    mkdir -p "$out${library%/*}"
    cp -L "$library" "$out$library"
  done

# glibc loads libgcc_s when a thread unwinds (pthread_exit, cancellation) and aborts if it is
# missing; nothing links it, so ldd does not name it.
gcc_s=$(ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libgcc_s\.so\.1 (libc6[^)]*) => //p' | head -n 1)
if [ -n "$gcc_s" ]; then
  mkdir -p "$out${gcc_s%/*}"
  cp -L "$gcc_s" "$out$gcc_s"
fi

cat > "$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
setpoint:x:10001:10001:Setpoint agent:/var/lib/setpoint:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
PASSWD
cat > "$out/etc/group" <<'GROUP'
root:x:0:
setpoint:x:10001:
nogroup:x:65534:
GROUP
echo 'hosts: files dns' > "$out/etc/nsswitch.conf"

# The agent's flags for this runtime's version, as bin/setpoint gives them.
major=$("$out/opt/java/bin/java" -XshowSettings:properties -version 2>&1 |
  sed -n 's/^ *java\.specification\.version = //p')
{
  echo --enable-native-access=ALL-UNNAMED
  [ "$major" -ge 23 ] && echo --sun-misc-unsafe-memory-access=allow
  [ "$major" -ge 22 ] && echo -XX:UserThreadWaitAttemptsAtExit=0
  echo -XX:MaxRAMPercentage=50
  echo -XX:MaxGCPauseMillis=50
  echo -XX:GCTimeRatio=4
  echo -XX:MinHeapFreeRatio=10
  echo -XX:MaxHeapFreeRatio=30
} > "$out/app/jvm.args"
