#!/usr/bin/env bash
# Where the first cold archive's time goes right after start-up (not part of mvn verify): the scenario of
# bench/coldstart.sh once (CLIENTS clients ask at once, SETTLE seconds after the mirror answers, for the archive of a
# provider nobody asked for), with the mirror under async-profiler's wall-clock sampler (every thread, every
# INTERVAL), and a timeline of what each thread did in the first WINDOW_MS after the clients were started: per
# thread, the stretches in which it ran (or waited for a core) with the mirror's own frame it was in and the frame on
# top, and how many of the JIT compiler threads' samples were busy. PRIME=1 first has one client fetch the archive
# of another provider (200 kB) and waits SETTLE again, as coldstart.sh's PRIME=1 does; two runs, with and without,
# show what a mirror whose cold path ran once on the instance no longer spends.
# Writes WORK/timeline.txt (WORK: a fresh /tmp/provider-mirror-coldwall.* directory, printed at the end) beside the
# recording (mirror.jfr, for `jfr print` or JDK Mission Control) and the clients' times. Only 127.0.0.1 is contacted.
#
#   bench/coldwall.sh                           # 8 clients, 50 MB, 2 s after the mirror answers
#   PRIME=1 bench/coldwall.sh
#   WINDOW_MS=400 BUILD=0 MIRROR_JAR=/tmp/other.jar bench/coldwall.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

ASYNC_PROFILER_VERSION=${ASYNC_PROFILER_VERSION:-4.2}
CLIENTS=${CLIENTS:-8}
SETTLE=${SETTLE:-2}
LARGE_BYTES=${LARGE_BYTES:-50000000}
MIRROR_PORT=${MIRROR_PORT:-18463}
MIRROR_JAVA_OPTS=${MIRROR_JAVA_OPTS:--Xmx512m}
MIRROR_JAR=${MIRROR_JAR:-mirror-server/target/mirror-server.jar}
BUILD=${BUILD:-1}
PRIME=${PRIME:-0}
INTERVAL=${INTERVAL:-1ms}
WINDOW_MS=${WINDOW_MS:-300}
# Every time below is read and printed in UTC, the recording's included.
export TZ=UTC

install_missing
require_free_ports "$MIRROR_PORT"
work=$(mktemp -d /tmp/provider-mirror-coldwall.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

if [ "$BUILD" = 1 ]; then
  echo "coldwall: building (logs and data in $work)"
  build_all "$work"
else
  cp mirror-testkit/target/bench-classpath.txt "$work/classpath.txt"
fi
agent=$(fetch_async_profiler "$work" "$ASYNC_PROFILER_VERSION")

start_bench_origin "$work" 200000 "$LARGE_BYTES" 0
make_certificate "$work"
type="largewall$RANDOM"
prime="smallprime$RANDOM"
# The origin makes and signs each archive when first asked; it does that now, not while the clients wait.
for published in "$type" "$prime"; do
  curl -sfk -o /dev/null "https://127.0.0.1:$ORIGIN_PORT/v1/providers/acme/$published/1.0.0/download/linux/amd64"
done
started=$(date -u +%Y-%m-%dT%H:%MZ)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# Loaded at start: then the JIT keeps the debug information that puts inlined frames in the stacks.
start_mirror "$work" mirror "$MIRROR_JAR" "$MIRROR_PORT" \
  "$MIRROR_JAVA_OPTS -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -agentpath:$agent=start,event=wall,interval=$INTERVAL,threads,jfr,file=$work/mirror.jfr"
sleep "$SETTLE"
: > "$work/clients.txt"
if [ "$PRIME" = 1 ]; then
  curl -sfk -o /dev/null -w "prime %{time_starttransfer} %{http_code}\n" \
    "https://127.0.0.1:$MIRROR_PORT/providers/$(provider_path "$prime")/$(archive_name "$prime")" >> "$work/clients.txt"
  sleep "$SETTLE"
fi
url="https://127.0.0.1:$MIRROR_PORT/providers/$(provider_path "$type")/$(archive_name "$type")"
t0=$(date +%s.%N)
clients=()
for _ in $(seq 1 "$CLIENTS"); do
  curl -sfk -o /dev/null -w "client %{time_starttransfer} %{http_code}\n" "$url" >> "$work/clients.txt" &
  clients+=($!)
done
wait "${clients[@]}" || true
# The recording is written when the mirror stops.
kill "$STARTED_PID"
while kill -0 "$STARTED_PID" 2>/dev/null; do sleep 0.05; done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# One line per sample in the window: <ms after the clients started> <thread> <state> <mirror frame> <top frame>.
jfr print --events profiler.WallClockSample --stack-depth 96 "$work/mirror.jfr" | awk -v t0="$t0" -v window="$WINDOW_MS" '
  function ms(hms,   p) { split(hms, p, ":"); return ((p[1] * 3600 + p[2] * 60 + p[3]) - (t0 % 86400)) * 1000 }
  # A Java frame as Class.method; a native one as library:function (libc.so.6.write: libc:write).
  function short(frame,   q, n) {
    sub(/\(.*$/, "", frame)
    if (match(frame, /\.so(\.[0-9]+)*\./)) return substr(frame, 1, index(frame, ".so") - 1) ":" substr(frame, RSTART + RLENGTH)
    n = split(frame, q, "."); return n > 1 ? q[n - 1] "." q[n] : frame
  }
  /^profiler.WallClockSample/ { t = ""; thread = ""; state = ""; top = ""; mine = ""; next }
  /^  startTime = / { t = ms($3); next }
  /^  sampledThread = / { thread = $0; sub(/^[^"]*"/, "", thread); sub(/".*$/, "", thread); gsub(/ /, "_", thread); next }
  /^  state = / { state = $3; gsub(/"/, "", state); sub(/^STATE_/, "", state); next }
  /^    [^ ]/ { frame = $1; if (top == "") top = short(frame); if (mine == "" && frame ~ /^io\.providermirror\./) mine = short(frame); next }
  /^}/ { if (t != "" && t >= 0 && t <= window) printf "%.1f %s %s %s %s\n", t, thread, state, (mine == "" ? "-" : mine), (top == "" ? "-" : top) }
' > "$work/samples.txt"

{
  echo "date:    $started; command: PRIME=$PRIME CLIENTS=$CLIENTS SETTLE=$SETTLE LARGE_BYTES=$LARGE_BYTES INTERVAL=$INTERVAL WINDOW_MS=$WINDOW_MS MIRROR_JAR=$MIRROR_JAR bench/coldwall.sh"
  echo "load:    $load_before before, $load_after after (1, 5, 15 min)"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "clients: first byte (s, each from its curl's own start): $(awk '$1 == "client" { printf "%s ", $2 }' "$work/clients.txt")"
  awk '$1 == "prime" { print "prime:   first byte " $2 " s" }' "$work/clients.txt"
  echo
  echo "JIT compiler threads, samples not sleeping / all in the window:"
  awk '$2 ~ /^C[12]_CompilerThre/ { all[$2]++; if ($3 != "SLEEPING") busy[$2]++ }
       END { for (c in all) printf "  %s %d / %d\n", c, busy[c], all[c] }' "$work/samples.txt"
  echo
  echo "Other threads' stretches not sleeping (ms after the clients started; samples; the mirror's frame <- the top frame):"
  awk '$2 !~ /^C[12]_CompilerThre/ && $3 != "SLEEPING" && $5 !~ /^(epoll_wait|epoll_pwait|epoll_pwait2)$/' "$work/samples.txt" \
    | sort -k2,2 -k1,1g \
    | awk '
      function flush() { if (n) printf "%7.1f %7.1f %-30s %4d %s <- %s\n", first, last, thread, n, mine, top }
      { if ($2 != thread || $4 != mine || $1 - last > 3) { flush(); thread = $2; mine = $4; top = $5; first = $1; n = 0 }
        last = $1; n++ }
      END { flush() }' \
    | sort -k1,1g
} > "$work/timeline.txt"
cat "$work/timeline.txt"
echo "coldwall: timeline in $work/timeline.txt, every sample in $work/samples.txt, the recording $work/mirror.jfr"
