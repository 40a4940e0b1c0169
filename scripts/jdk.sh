# Sourced by the launcher and the build scripts: exports JAVA_HOME pointing at a JDK 21 or newer,
# and SETPOINT_JAVA_MAJOR, its major version.
# Order: $JAVA_HOME if it is new enough, else the newest JDK under /usr/lib/jvm, else `java` on PATH.
# Shell builtins only on the usual paths: the launcher runs this before every command, and each
# process it started (dirname, sed, a subshell) cost several milliseconds.

setpoint_java_major() {
  # Sets SETPOINT_MAJOR to the major version of the java binary $1 (8 for 1.8, 21 for 21.0.2, ...).
  # Reads the JDK's release file when there is one, which is much faster than starting a JVM.
  local v="" line home="${1%/bin/java}"
  if [ -f "$home/release" ]; then
    while IFS= read -r line; do
      case "$line" in
        JAVA_VERSION=*) v="${line#JAVA_VERSION=}"; v="${v//\"/}"; break ;;
      esac
    done < "$home/release"
  fi
  if [ -z "$v" ]; then
    v=$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')
  fi
  case "$v" in 1.*) v="${v#1.}" ;; esac
  v="${v%%.*}"
  SETPOINT_MAJOR="${v:-0}"
}

setpoint_find_jdk() {
  # Sets SETPOINT_JDK and SETPOINT_JAVA_MAJOR, or says what to install and returns 1.
  local candidate best="" best_major=0
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    setpoint_java_major "$JAVA_HOME/bin/java"
    if [ "$SETPOINT_MAJOR" -ge 21 ]; then
      SETPOINT_JDK="$JAVA_HOME" SETPOINT_JAVA_MAJOR="$SETPOINT_MAJOR"
      return 0
    fi
  fi
  for candidate in /usr/lib/jvm/*; do
    [ -x "$candidate/bin/javac" ] || continue
    setpoint_java_major "$candidate/bin/java"
    if [ "$SETPOINT_MAJOR" -ge 21 ] && [ "$SETPOINT_MAJOR" -gt "$best_major" ]; then
      best="$candidate"
      best_major="$SETPOINT_MAJOR"
    fi
  done
  if [ -z "$best" ] && command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    setpoint_java_major "$candidate/bin/java"
    [ "$SETPOINT_MAJOR" -ge 21 ] && best="$candidate" best_major="$SETPOINT_MAJOR"
  fi
  if [ -z "$best" ]; then
    echo "setpoint: no JDK 21 or newer found (looked at \$JAVA_HOME, /usr/lib/jvm/*, PATH)." >&2
    echo "setpoint: install one (e.g. apt-get install openjdk-21-jdk-headless) or set JAVA_HOME." >&2
    return 1
  fi
  SETPOINT_JDK="$best" SETPOINT_JAVA_MAJOR="$best_major"
}

setpoint_find_jdk || exit 1
export JAVA_HOME="$SETPOINT_JDK" SETPOINT_JAVA_MAJOR
