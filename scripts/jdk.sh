# Sourced by the launcher and the build scripts: exports JAVA_HOME pointing at a JDK 21 or newer.
# Order: $JAVA_HOME if it is new enough, else the newest JDK under /usr/lib/jvm, else `java` on PATH.

setpoint_java_major() {
  # Prints the major version of the java binary $1 (8 for 1.8, 21 for 21.0.2, ...). Reads the
  # JDK's release file when there is one, which is much faster than starting a JVM.
  local v home
  home=$(dirname "$(dirname "$1")")
  if [ -f "$home/release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$home/release")
  fi
  if [ -z "${v:-}" ]; then
    v=$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')
  fi
  case "$v" in 1.*) v="${v#1.}" ;; esac
  echo "${v%%.*}"
}

setpoint_find_jdk() {
  local candidate best="" best_major=0 major
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    major=$(setpoint_java_major "$JAVA_HOME/bin/java")
    if [ "${major:-0}" -ge 21 ]; then
      echo "$JAVA_HOME"
      return 0
    fi
  fi
  for candidate in /usr/lib/jvm/*; do
    [ -x "$candidate/bin/javac" ] || continue
    major=$(setpoint_java_major "$candidate/bin/java")
    if [ "${major:-0}" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate"
      best_major="$major"
    fi
  done
  if [ -z "$best" ] && command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    major=$(setpoint_java_major "$candidate/bin/java")
    [ "${major:-0}" -ge 21 ] && best="$candidate"
  fi
  if [ -z "$best" ]; then
    echo "setpoint: no JDK 21 or newer found (looked at \$JAVA_HOME, /usr/lib/jvm/*, PATH)." >&2
    echo "setpoint: install one (e.g. apt-get install openjdk-21-jdk-headless) or set JAVA_HOME." >&2
    return 1
  fi
  echo "$best"
}

JAVA_HOME=$(setpoint_find_jdk) || exit 1
export JAVA_HOME
