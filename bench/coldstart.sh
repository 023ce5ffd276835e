#!/usr/bin/env bash
# A cold archive right after start-up (not part of mvn verify): starts the packaged mirror with a fresh cache, waits
# until it answers and then SETTLE more (what a mirror does in the background after start-up has that long), then
# CLIENTS clients ask at once for an archive (LARGE_BYTES) of a provider nobody asked for, straight away, without
# its index.json or version document first: the mirror discovers, lists, verifies and fetches it while they wait.
# The bench origin publishes that provider (makes and signs its archive) before the mirror starts, and its own first
# byte for the archive is printed beside as the reference.
# Prints the clients' time to first byte (one origin fetch serves them all: ManyClientsTest checks that). With BASELINE_JAR,
# the same with another build in every round (the two take turns going first), so an A/B on the same machine at
# the same time. Raw results in a fresh /tmp/provider-mirror-coldstart.* directory (printed at the end). Only
# 127.0.0.1 is contacted.
#
#   bench/coldstart.sh                                          # 5 rounds, 8 clients, 50 MB, origin 0 ms late
#   BASELINE_JAR=/tmp/main.jar BUILD=0 bench/coldstart.sh       # A/B against another build
#   BASELINE_JAR=<the same jar> BASELINE_JAVA_OPTS="-Xmx512m -D..." BUILD=0 bench/coldstart.sh   # A/B of a JVM option
#   ORIGIN_DELAY_MS=50 bench/coldstart.sh                       # every origin answer 50 ms late
#   PRIME=1 bench/coldstart.sh                                  # one client's cold archive of another provider
#                                                               # first (PRIME_PREFIX=smallprime: 200 kB), then
#                                                               # SETTLE again: what a mirror whose whole cold path
#                                                               # ran once, on this instance, reaches
#   RESTART=1 bench/coldstart.sh                                # instead: one client fetches a provider (200 kB)
#                                                               # through the mirror, which is then stopped and
#                                                               # started again over the same cache; after SETTLE
#                                                               # the CLIENTS ask at once for its version document:
#                                                               # the first request after a restart or a deploy
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

ROUNDS=${ROUNDS:-5}
CLIENTS=${CLIENTS:-8}
SETTLE=${SETTLE:-2}
LARGE_BYTES=${LARGE_BYTES:-50000000}
ORIGIN_DELAY_MS=${ORIGIN_DELAY_MS:-0}
MIRROR_PORT=${MIRROR_PORT:-18463}
MIRROR_JAVA_OPTS=${MIRROR_JAVA_OPTS:--Xmx512m}
MIRROR_JAR=${MIRROR_JAR:-mirror-server/target/mirror-server.jar}
BASELINE_JAR=${BASELINE_JAR:-}
BASELINE_JAVA_OPTS=${BASELINE_JAVA_OPTS:-$MIRROR_JAVA_OPTS}
BUILD=${BUILD:-1}
PRIME=${PRIME:-0}
RESTART=${RESTART:-0}
primed=""
[ "$PRIME" = 1 ] && primed="PRIME=1 PRIME_PREFIX=${PRIME_PREFIX:-largeprime} "
[ "$RESTART" = 1 ] && primed="RESTART=1 "
command="${primed}ROUNDS=$ROUNDS CLIENTS=$CLIENTS SETTLE=$SETTLE LARGE_BYTES=$LARGE_BYTES ORIGIN_DELAY_MS=$ORIGIN_DELAY_MS MIRROR_JAVA_OPTS=\"$MIRROR_JAVA_OPTS\"${BASELINE_JAR:+ BASELINE_JAR=$BASELINE_JAR BASELINE_JAVA_OPTS=\"$BASELINE_JAVA_OPTS\"} bench/coldstart.sh"
started=$(date -u +%Y-%m-%dT%H:%MZ)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

install_missing
require_free_ports "$MIRROR_PORT"
work=$(mktemp -d /tmp/provider-mirror-coldstart.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

if [ "$BUILD" = 1 ]; then
  echo "coldstart: building (logs and data in $work)"
  build_all "$work"
else
  cp mirror-testkit/target/bench-classpath.txt "$work/classpath.txt"
fi
start_bench_origin "$work" 200000 "$LARGE_BYTES" "$ORIGIN_DELAY_MS"
make_certificate "$work"

declare -A jar=([mirror]="$MIRROR_JAR")
sides=(mirror)
[ -z "$BASELINE_JAR" ] || { jar[baseline]="$BASELINE_JAR"; sides+=(baseline); }
declare -A label=([mirror]="$MIRROR_JAR, $MIRROR_JAVA_OPTS" [baseline]="$BASELINE_JAR, $BASELINE_JAVA_OPTS" [origin]="the bench origin directly, one client, after the same publishing")
# One line per client in firstbytes.txt: <side> <round> <seconds to first byte> <status>.
: > "$work/firstbytes.txt"
for round in $(seq 1 "$ROUNDS"); do
  order=("${sides[@]}")
  [ $((round % 2)) = 0 ] && [ ${#order[@]} = 2 ] && order=(baseline mirror)
  for side in "${order[@]}"; do
    name="$side-$round"
    type="largestart$round$side$RANDOM"  # BenchOrigin makes types named large* LARGE_BYTES long
    [ "$RESTART" = 1 ] && type="smallrestart$round$side$RANDOM"  # and small* 200 kB long
    # The origin makes a provider's archive and signs its SHA256SUMS when first asked (50 MB: a quarter of a second
    # here); it does that now, so the clients' first byte counts the mirror's time, not the bench origin's. Its own
    # first byte for the archive, asked once directly, is the reference.
    curl -sfk -o /dev/null "https://127.0.0.1:$ORIGIN_PORT/v1/providers/acme/$type/1.0.0/download/linux/amd64"
    curl -sfk -o /dev/null -w "origin $round %{time_starttransfer} %{http_code}\n" \
      "https://127.0.0.1:$ORIGIN_PORT/files/$type/$(archive_name "$type")" >> "$work/firstbytes.txt"
    if [ "$PRIME" = 1 ]; then
      prime="${PRIME_PREFIX:-largeprime}$round$side$RANDOM"
      curl -sfk -o /dev/null "https://127.0.0.1:$ORIGIN_PORT/v1/providers/acme/$prime/1.0.0/download/linux/amd64"
    fi
    opts=$MIRROR_JAVA_OPTS
    [ "$side" = baseline ] && opts=$BASELINE_JAVA_OPTS
    start_mirror "$work" "$name" "${jar[$side]}" "$MIRROR_PORT" "$opts"
    url="https://127.0.0.1:$MIRROR_PORT/providers/$(provider_path "$type")/$(archive_name "$type")"
    if [ "$RESTART" = 1 ]; then
      # Cached and counted in the usage inventory, which the stop writes; the same mirror then starts over that cache.
      curl -sfk -o /dev/null "$url"
      kill "$STARTED_PID"
      while kill -0 "$STARTED_PID" 2>/dev/null; do sleep 0.05; done
      start_mirror "$work" "$name" "${jar[$side]}" "$MIRROR_PORT" "$opts"
      url="https://127.0.0.1:$MIRROR_PORT/providers/$(provider_path "$type")/1.0.0.json"
    fi
    sleep "$SETTLE"
    if [ "$PRIME" = 1 ]; then
      # One client's cold archive of another provider first: what the mirror would reach if the whole cold path had
      # run once before the clients came.
      curl -sfk -o /dev/null -w "prime $round %{time_starttransfer} %{http_code}\n" \
        "https://127.0.0.1:$MIRROR_PORT/providers/$(provider_path "$prime")/$(archive_name "$prime")" >> "$work/firstbytes.txt"
      sleep "$SETTLE"
    fi
    clients=()
    for _ in $(seq 1 "$CLIENTS"); do
      curl -sfk -o /dev/null -w "$side $round %{time_starttransfer} %{http_code}\n" "$url" >> "$work/firstbytes.txt" &
      clients+=($!)
    done
    wait "${clients[@]}" || true
    kill "$STARTED_PID"
    while kill -0 "$STARTED_PID" 2>/dev/null; do sleep 0.05; done
    rm -rf "$work/$name-cache" "$work/origin/files/terraform-provider-$type"_* "$work/origin/files/terraform-provider-${PRIME_PREFIX:-largeprime}"*
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo
  echo "date:    $started; command: $command"
  echo "load:    $load_before before, $load_after after (1, 5, 15 min; above 0.5 before means measured under load)"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo
  echo "| build | first byte ms, median of $ROUNDS x $CLIENTS clients | fastest round's median | slowest round's median | slowest client |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  for side in "${sides[@]}" origin; do
    all=$(awk -v s="$side" '$1 == s && $4 == 200 { print $3 * 1000 }' "$work/firstbytes.txt" | median)
    per_round=$(for r in $(seq 1 "$ROUNDS"); do awk -v s="$side" -v r="$r" '$1 == s && $2 == r && $4 == 200 { print $3 * 1000 }' "$work/firstbytes.txt" | median; done | sort -g)
    printf '| %s (%s) | %.0f | %.0f | %.0f | %.0f |\n' "$side" "${label[$side]}" "$all" "$(head -1 <<< "$per_round")" \
      "$(tail -1 <<< "$per_round")" "$(awk -v s="$side" '$1 == s && $4 == 200 { print $3 * 1000 }' "$work/firstbytes.txt" | sort -g | tail -1)"
  done
  echo
  echo "answers other than 200 (not counted above): $(awk '$4 != 200' "$work/firstbytes.txt" | wc -l)"
} | tee "$work/results.md"
echo "coldstart: results in $work/results.md, every client in $work/firstbytes.txt; logs in $work"
