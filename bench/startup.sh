#!/usr/bin/env bash
# Start-up to the first answered request (not part of mvn verify), measured as bench/compare.sh measures it:
# from launching the JVM until `curl -k https://127.0.0.1:PORT/healthz` first succeeds (tried every 10 ms).
# Each way of starting runs RUNS times after one start that is not counted (it generates the TLS files in
# ./mirror-data, which later starts reuse); the median is printed, with the CPU time the process had used by
# then (user + system, from /proc: less sensitive than wall time to other work on the machine).
#
#   1. plain `java -jar mirror-server/target/mirror-server.jar`, quick-start defaults (JDK 17, `java` on PATH)
#   2. the same with the application class-data archive the README describes (JDK 17)
#   3. the container image's command (JRE 25, its options and environment) without the AOT cache
#   4. the container image's command with the AOT cache, built by deploy/aot-cache.sh as the Dockerfile does
#
#   bench/startup.sh
#   RUNS=11 bench/startup.sh
#   JAVA25=/path/to/jdk-25/bin/java bench/startup.sh       # default: /usr/lib/jvm/temurin-25-jdk-amd64/bin/java
#   BUILD=0 JAR=/tmp/old.jar bench/startup.sh         # measure a jar already built
#   BASELINE_JAR=/tmp/before.jar bench/startup.sh     # A/B: also java -jar of that build, the two taking turns
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-7}
PORT=${PORT:-18543}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-18544}
JAVA17=${JAVA17:-java}
JAVA25=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
jar=${JAR:-$PWD/mirror-server/target/mirror-server.jar}

for p in "$PORT" "$MANAGEMENT_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    echo "startup: port $p is in use (set PORT / MANAGEMENT_PORT)" >&2
    exit 1
  fi
done
work=$(mktemp -d /tmp/provider-mirror-startup.XXXXXX)
mirror=""
cleanup() { [ -z "$mirror" ] || kill "$mirror" 2>/dev/null || true; }
trap cleanup EXIT

if [ "${BUILD:-1}" = 1 ]; then
  echo "startup: building (the README's quick-start command)"
  mvn -B -q package -DskipTests
fi

# The image's options and environment, read from deploy/Dockerfile so they cannot drift from it.
image_options=$(sed -n 's/^ENTRYPOINT \["java", \(.*\), "-XX:AOTCache=[^"]*", "-jar".*/\1/p' deploy/Dockerfile | tr -d '",')
[ -n "$image_options" ] || { echo "startup: cannot read the ENTRYPOINT's java options from deploy/Dockerfile" >&2; exit 1; }

# start_once DIR JAVA [options...]: prints "wall_ms cpu_ms" for one start in DIR, then stops it.
start_once() {
  local dir=$1 java=$2
  shift 2
  local start_ns
  start_ns=$(date +%s%N)
  (cd "$dir" && exec "$java" "$@" -jar "$jar" > "$dir/mirror.out" 2> "$dir/mirror.log") &
  mirror=$!
  until curl -sk -o /dev/null "https://127.0.0.1:$PORT/healthz"; do
    kill -0 "$mirror" 2>/dev/null || { echo "startup: the mirror did not start:" >&2; cat "$dir/mirror.log" >&2; exit 1; }
    sleep 0.01
  done
  local wall_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  # utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks.
  local ticks cpu_ms
  ticks=$(awk '{ print $14 + $15 }' "/proc/$mirror/stat")
  cpu_ms=$(( ticks * 1000 / $(getconf CLK_TCK) ))
  kill "$mirror"
  wait "$mirror" 2>/dev/null || true
  mirror=""
  echo "$wall_ms $cpu_ms"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# measure LABEL DIR JAVA [options...]: one start not counted, then RUNS; prints the medians.
measure() {
  local label=$1 dir=$2
  shift 2
  mkdir -p "$dir"
  start_once "$dir" "$@" > /dev/null
  local results=() i
  for i in $(seq 1 "$RUNS"); do results+=("$(start_once "$dir" "$@")"); done
  local wall cpu all
  wall=$(printf '%s\n' "${results[@]}" | awk '{ print $1 }' | median)
  cpu=$(printf '%s\n' "${results[@]}" | awk '{ print $2 }' | median)
  all=$(printf '%s\n' "${results[@]}" | awk '{ print $1 }' | tr '\n' ' ')
  printf '| %s | %s | %s | %s|\n' "$label" "$wall" "$cpu" "$all"
}

export PROVIDER_MIRROR_SERVER_PORT=$PORT
echo "startup: $RUNS starts each (after one not counted), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| how it starts | median ms to first answer | median CPU ms by then | every run, ms |"
echo "| --- | ---: | ---: | --- |"
measure "java -jar (JDK 17, quick-start defaults)" "$work/plain" "$JAVA17"
if [ -n "${BASELINE_JAR:-}" ]; then
  # A/B in the same minutes: each start of this build is followed by one of the baseline, in the same directory.
  this_jar=$jar
  mkdir -p "$work/ab"
  jar=$BASELINE_JAR start_once "$work/ab" "$JAVA17" > /dev/null
  ours=() theirs=()
  for i in $(seq 1 "$RUNS"); do
    jar=$this_jar; ours+=("$(start_once "$work/ab" "$JAVA17")")
    jar=$BASELINE_JAR; theirs+=("$(start_once "$work/ab" "$JAVA17")")
  done
  jar=$this_jar
  for side in ours theirs; do
    declare -n runs=$side
    label="java -jar, taking turns: $([ $side = ours ] && echo "this build" || echo "BASELINE_JAR $(basename "$BASELINE_JAR")")"
    printf '| %s | %s | %s | %s|\n' "$label" \
      "$(printf '%s\n' "${runs[@]}" | awk '{ print $1 }' | median)" \
      "$(printf '%s\n' "${runs[@]}" | awk '{ print $2 }' | median)" \
      "$(printf '%s\n' "${runs[@]}" | awk '{ print $1 }' | tr '\n' ' ')"
  done
fi

# The README's class-data archive for java -jar: one run that writes it, then every start uses it.
mkdir -p "$work/cds"
start_once "$work/cds" "$JAVA17" -XX:ArchiveClassesAtExit="$work/mirror.jsa" > /dev/null
measure "java -jar with -XX:SharedArchiveFile (JDK 17)" "$work/cds" "$JAVA17" -XX:SharedArchiveFile="$work/mirror.jsa"

if [ -x "$JAVA25" ]; then
  # The container image: its environment (deploy/Dockerfile's ENV), its options, JRE 25.
  export PROVIDER_MIRROR_MANAGEMENT_PORT=$MANAGEMENT_PORT PROVIDER_MIRROR_LOGGING_FORMAT=json
  # shellcheck disable=SC2086
  measure "image command without the AOT cache (JDK 25)" "$work/image" "$JAVA25" $image_options
  # shellcheck disable=SC2086
  JAVA=$JAVA25 deploy/aot-cache.sh "$jar" "$work/mirror.aot" $image_options > "$work/aot-cache.log" 2>&1 \
    || { cat "$work/aot-cache.log" >&2; exit 1; }
  # shellcheck disable=SC2086
  measure "image command with the AOT cache (JDK 25)" "$work/image" "$JAVA25" $image_options -XX:AOTCache="$work/mirror.aot"
else
  echo "startup: no JDK 25 at $JAVA25 (set JAVA25): the image's AOT cache is not measured" >&2
fi
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $("$JAVA17" -version 2>&1 | head -1)"
rm -rf "$work"
