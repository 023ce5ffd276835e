#!/usr/bin/env bash
# Where a warm request's CPU goes, with the JDK's own Flight Recorder (no download; bench/profile.sh does the same
# with async-profiler, which sees inside native code too). Starts the packaged mirror (MIRROR_JAR), warms it as
# bench/compare.sh does, and per scenario (SCENARIOS, by default the small archive) puts WARMUP of uncounted load
# on it, then records DURATION of wrk load (CONNECTIONS) with JFR's profiling settings. Writes, under OUT (default
# /tmp/provider-mirror-jfr, outside the tree): <scenario>.jfr (open it in JDK Mission Control), <scenario>.txt (the
# hottest frames by their own samples and by samples under them, Java and native-method samples together, threads
# parked in epoll left out; and where the allocations are), and wrk's figures of that run in <scenario>.wrk
# ("<req/s> <MB/s> <p99 ms> <CPU us per request>"). Only 127.0.0.1 is contacted.
#
#   bench/jfr.sh                                              # the 200 kB archive, 32 connections, 20 s
#   SCENARIOS="index small" BUILD=0 bench/jfr.sh
#   MIRROR_JAR=/tmp/main.jar OUT=/tmp/jfr-main BUILD=0 bench/jfr.sh     # another build, for a before and after
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-10s}
SCENARIOS=${SCENARIOS:-small}
CONNECTIONS=${CONNECTIONS:-32}
OUT=${OUT:-/tmp/provider-mirror-jfr}
SMALL_BYTES=${SMALL_BYTES:-200000}
LARGE_BYTES=${LARGE_BYTES:-50000000}
MIRROR_PORT=${MIRROR_PORT:-18453}
MIRROR_JAVA_OPTS=${MIRROR_JAVA_OPTS:--Xmx512m}
MIRROR_JAR=${MIRROR_JAR:-mirror-server/target/mirror-server.jar}
BUILD=${BUILD:-1}
TOP=${TOP:-30}

install_missing
require_free_ports "$MIRROR_PORT"
work=$(mktemp -d /tmp/provider-mirror-jfr.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

if [ "$BUILD" = 1 ]; then
  echo "jfr: building (logs and data in $work)"
  build_all "$work"
else
  cp mirror-testkit/target/bench-classpath.txt "$work/classpath.txt"
fi
start_bench_origin "$work" "$SMALL_BYTES" "$LARGE_BYTES" 0
make_certificate "$work"
# DebugNonSafepoints: samples name the inlined method the code is in, not only the method it was inlined into.
start_mirror "$work" mirror "$MIRROR_JAR" "$MIRROR_PORT" \
  "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints $MIRROR_JAVA_OPTS"
mirror=$STARTED_PID
base="https://127.0.0.1:$MIRROR_PORT/providers"
warm_mirror "$base"
mkdir -p "$OUT"

# summary FILE.jfr: the hottest frames, by own samples and by samples anywhere in the stack, then allocations.
summary() {
  jfr print --events jdk.ExecutionSample,jdk.NativeMethodSample --stack-depth 64 "$1" | awk -v top="$TOP" '
    /^jdk\.(Execution|NativeMethod)Sample/ { n = 0; delete frame; next }
    /^[ \t]+[a-zA-Z_$][^ ]*\(.*\)( line: [0-9]+)?/ && in_stack {
      f = $1; n++; frame[n] = f; next }
    /stackTrace = \[/ { in_stack = 1; next }
    /^[ \t]*\]/ && in_stack {
      in_stack = 0
      if (n == 0 || frame[1] ~ /epollWait|epoll_wait|EPoll\.wait|Unsafe\.park|Object\.wait|Thread\.sleep|socketAccept/) next
      samples++; self[frame[1]]++
      delete seen
      for (i = 1; i <= n; i++) if (!(frame[i] in seen)) { seen[frame[i]] = 1; total[frame[i]]++ }
    }
    END {
      printf "%d samples on CPU (threads parked in epoll, on locks or sleeping left out)\n\nby own samples:\n", samples
      for (f in self) printf "%6.1f%% %s\n", 100 * self[f] / samples, f | "sort -rn | head -" top
      close("sort -rn | head -" top)
      printf "\nby samples in or under the frame:\n"
      for (f in total) printf "%6.1f%% %s\n", 100 * total[f] / samples, f | "sort -rn | head -" top
      close("sort -rn | head -" top)
    }'
  echo
  echo "allocations (jdk.ObjectAllocationSample, weight by top frame):"
  jfr print --events jdk.ObjectAllocationSample --stack-depth 1 "$1" | awk '
    /objectClass = / { cls = $3 }
    /weight = / { w = $3; unit = $4; mult = unit ~ /MB/ ? 1048576 : unit ~ /kB/ ? 1024 : 1; weight = w * mult }
    /^[ \t]+[a-zA-Z_$][^ ]*\(.*\)/ { frame = $1; sum[cls " @ " frame] += weight; all += weight }
    END { for (k in sum) printf "%6.1f%% %10.1f MB %s\n", 100 * sum[k] / all, sum[k] / 1048576, k | "sort -rn | head -20" }'
}

for s in $SCENARIOS; do
  url="${base%/providers}/$(scenario_path "$s")"
  echo "jfr: $s ($CONNECTIONS connections; $WARMUP uncounted, then $DURATION recorded)"
  wrk_run "$url" "$CONNECTIONS" "$WARMUP" > /dev/null
  jcmd "$mirror" JFR.start name="$s" settings=profile > /dev/null
  wrk_run "$url" "$CONNECTIONS" "$DURATION" "$mirror" > "$OUT/$s.wrk"
  jcmd "$mirror" JFR.stop name="$s" filename="$OUT/$s.jfr" > /dev/null
  summary "$OUT/$s.jfr" > "$OUT/$s.txt"
  echo "jfr: $s: $(cat "$OUT/$s.wrk") (req/s, MB/s, p99 ms, CPU us/req; load $(cut -d' ' -f1-3 /proc/loadavg))"
done
echo "jfr: recordings and summaries in $OUT; logs in $work"
