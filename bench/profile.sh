#!/usr/bin/env bash
# Where a warm request's time goes (not part of mvn verify): runs the packaged mirror with async-profiler (from
# Maven Central, tools.profiler:async-profiler, which ships the native library) and, per warm scenario of
# bench/compare.sh (by default index.json, version document, small and large archive; SCENARIOS takes any of
# compare.sh's, the providers.v1 face's and the modules' too), puts the same wrk load on it as
# compare.sh does and records a CPU flame graph. For the warm documents it also records where the event loops
# spend their wall-clock time (running, or parked in epoll or on a lock), which locks are contended, and what is
# allocated. Writes $OUT/<scenario>-<event>.html (open them in a browser; OUT defaults to
# /tmp/provider-mirror-profiles, outside the tree) and a text summary of each
# (the hottest frames) to $OUT/<scenario>-<event>.txt. Only 127.0.0.1 is contacted.
#
#   bench/profile.sh                          # everything, about 4 minutes
#   SCENARIOS=index EVENTS=cpu bench/profile.sh
#   SCENARIOS=cold bench/profile.sh           # COLD_FETCHES (8) cold 50 MB archives, one after another, after
#                                             # COLD_WARMUP (3) not recorded: the fill path, and the h1: after it
#   SCENARIOS="module_versions module_download module_archive" EVENTS="cpu wall" bench/profile.sh   # any of compare.sh's
#   OUT=/tmp/profiles BUILD=0 bench/profile.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

ASYNC_PROFILER_VERSION=${ASYNC_PROFILER_VERSION:-4.2}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-8s}
SCENARIOS=${SCENARIOS:-index version small large}
EVENTS=${EVENTS:-}
OUT=${OUT:-/tmp/provider-mirror-profiles}
SMALL_BYTES=${SMALL_BYTES:-200000}
LARGE_BYTES=${LARGE_BYTES:-50000000}
MIRROR_PORT=${MIRROR_PORT:-18443}
MIRROR_JAVA_OPTS=${MIRROR_JAVA_OPTS:--Xmx512m}
MIRROR_JAR=${MIRROR_JAR:-mirror-server/target/mirror-server.jar}
BUILD=${BUILD:-1}
COLD_FETCHES=${COLD_FETCHES:-8}
COLD_WARMUP=${COLD_WARMUP:-3}

install_missing
require_free_ports "$MIRROR_PORT"
work=$(mktemp -d /tmp/provider-mirror-profile.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

if [ "$BUILD" = 1 ]; then
  echo "profile: building (logs and data in $work)"
  build_all "$work"
else
  cp mirror-testkit/target/bench-classpath.txt "$work/classpath.txt"
fi
agent=$(fetch_async_profiler "$work" "$ASYNC_PROFILER_VERSION")

start_bench_origin "$work" "$SMALL_BYTES" "$LARGE_BYTES" 0
make_certificate "$work"
# Loaded at start, not attached later: then the JIT keeps the debug information that puts inlined frames in
# the stacks (DebugNonSafepoints), so a flame graph shows the methods the code names, not only their callers.
start_mirror "$work" mirror "$MIRROR_JAR" "$MIRROR_PORT" "-agentpath:$agent $MIRROR_JAVA_OPTS"
mirror=$STARTED_PID
base="https://127.0.0.1:$MIRROR_PORT/providers"
warm_mirror "$base"
mkdir -p "$OUT"

# profiler COMMAND: sends one command (start,..., stop,...) to the profiler inside the mirror.
# jcmd reads name=value pairs itself: quoted, the whole string reaches the profiler.
profiler() {
  local answer
  answer=$(jcmd "$mirror" JVMTI.agent_load "$agent" "\"$1\"")
  grep -q 'return code: 0' <<< "$answer" || { echo "profile: the profiler refused $1: $answer" >&2; exit 1; }
}

# cold_fetches N: N archives the mirror has never fetched, one after another, each after its version document (as
# the CLI asks) and each waiting until the mirror is done with the last (its h1:); prints each archive's MB/s.
cold_fetches() {
  local i type path
  for i in $(seq 1 "$1"); do
    type="largeprofile$i-$RANDOM"  # BenchOrigin makes types named large* LARGE_BYTES long
    path="$base/$(provider_path "$type")"
    curl -sfk -o /dev/null "https://127.0.0.1:$ORIGIN_PORT/v1/providers/acme/$type/1.0.0/download/linux/amd64"
    curl -sfk -o /dev/null "$path/index.json"
    curl -sfk -o /dev/null "$path/1.0.0.json"
    curl -sfk -o /dev/null -w '%{speed_download}\n' "$path/$(archive_name "$type")" | awk '{ printf "%.1f MB/s\n", $1 / 1e6 }'
    until curl -sfk "$path/1.0.0.json" | grep -q '"h1:'; do sleep 0.02; done
    rm -f "$work/origin/files/terraform-provider-$type"_*
  done
}

# profile SCENARIO EVENT: one wrk run of DURATION on SCENARIO's path while EVENT is recorded.
profile() {
  local s=$1 event=$2 options title name
  case $event in
    cpu) options="event=cpu,interval=1ms" ;;
    # Every thread's time, running or not, split by thread: an event loop parked on a lock shows there.
    wall) options="event=wall,interval=2ms,threads" ;;
    lock) options="event=lock,lock=10us" ;;
    alloc) options="event=alloc" ;;
  esac
  name="$OUT/$s-$event"
  echo "profile: $s, $event"
  if [ "$s" = cold ]; then
    title="provider-mirror:cold:$event:$(date -u +%Y-%m-%d):$COLD_FETCHES-archives-of-$LARGE_BYTES-bytes"
    profiler "start,$options"
    cold_fetches "$COLD_FETCHES" > "$name.wrk"
  else
    title="provider-mirror:warm-$s:$event:$(date -u +%Y-%m-%d):$(scenario_connections "$s")-connections:$DURATION"
    profiler "start,$options"
    wrk_run "${base%/providers}/$(scenario_path "$s")" "$(scenario_connections "$s")" "$DURATION" > "$name.wrk"
  fi
  # The same samples as text: the hottest frames by their own samples, then the hottest whole stacks.
  profiler "dump,file=$name.txt,flat=25,traces=8"
  # And every stack, one a line, for grep and awk (kept with the logs, not committed: large).
  profiler "dump,file=$work/$s-$event.collapsed,collapsed"
  profiler "stop,file=$name.html,title=$title"
}

for s in $SCENARIOS; do
  if [ "$s" = cold ]; then
    echo "profile: cold ($COLD_WARMUP archives uncounted, then $COLD_FETCHES per event)"
    cold_fetches "$COLD_WARMUP" > /dev/null
  else
    path=$(scenario_path "$s")
    echo "profile: $s ($(scenario_connections "$s") connections; $WARMUP uncounted, then $DURATION per event)"
    wrk_run "${base%/providers}/$path" "$(scenario_connections "$s")" "$WARMUP" > /dev/null
  fi
  events=${EVENTS:-$(case $s in index | version) echo "cpu wall lock alloc" ;; *) echo cpu ;; esac)}
  for event in $events; do profile "$s" "$event"; done
done
echo "profile: flame graphs in $OUT (req/s, MB/s, p99 ms of each run beside them in .wrk); logs in $work"
