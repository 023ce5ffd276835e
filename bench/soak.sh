#!/usr/bin/env bash
# Soak run (not part of mvn verify): CONNECTIONS keep-alive connections for DURATION against the packaged
# mirror running with -Xmx256m, mixing warm index, version-document and archive requests with cold misses
# against a slow fake origin. Prints a table and exits non-zero if the mirror answered any 5xx other than the
# fill bounds' refusals (503 with Retry-After: more cold archives at once than upstream.maxConcurrentFills and
# ...PerHost allow, which this mix of one cold provider in 20 requests from one origin host reaches), died, or
# grew its file descriptors. Only 127.0.0.1 is contacted.
#
#   bench/soak.sh                              # 500 connections, 60 s
#   CONNECTIONS=100 DURATION=20s bench/soak.sh # a shorter run
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

CONNECTIONS=${CONNECTIONS:-500}
DURATION=${DURATION:-60s}
THREADS=${THREADS:-2}
WARM=${WARM:-20}
ARCHIVE_BYTES=${ARCHIVE_BYTES:-200000}
ORIGIN_DELAY_MS=${ORIGIN_DELAY_MS:-300}
PORT=${PORT:-18443}
HEAP=${HEAP:-256m}

if ! command -v wrk >/dev/null 2>&1; then
  echo "soak: installing wrk" >&2
  apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi

work=$(mktemp -d /tmp/provider-mirror-soak.XXXXXX)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

echo "soak: building (logs and data in $work)"
build_all "$work"
start_bench_origin "$work" "$ARCHIVE_BYTES" "$ARCHIVE_BYTES" "$ORIGIN_DELAY_MS"

cat > "$work/mirror.yaml" <<YAML
server:
  host: 127.0.0.1
  port: $PORT
cache:
  directory: $work/cache
upstream:
  trustedCertificates: $ORIGIN_CA
  hosts:
    example.test:
      discoveryUrl: $DISCOVERY_URL
YAML
java -Xmx"$HEAP" -jar mirror-server/target/mirror-server.jar --config "$work/mirror.yaml" > "$work/mirror.out" 2> "$work/mirror.log" &
mirror=$!
pids+=("$mirror")
for _ in $(seq 1 60); do grep -q "is serving" "$work/mirror.out" 2>/dev/null && break; sleep 1; done
ca="$work/cache-tls/ca.pem"   # the generated CA, beside the cache directory
base="https://127.0.0.1:$PORT/providers/example.test/acme"

echo "soak: warming $WARM providers"
for i in $(seq 0 $((WARM - 1))); do
  p=$(printf 'p%04d' "$i")
  curl -sf --cacert "$ca" "$base/$p/index.json" > /dev/null
  curl -sf --cacert "$ca" "$base/$p/1.0.0.json" > /dev/null
  curl -sf --cacert "$ca" -o /dev/null "$base/$p/terraform-provider-${p}_1.0.0_linux_amd64.zip"
done

sample() {
  jcmd "$mirror" GC.run > /dev/null
  local heap rss fds
  heap=$(jcmd "$mirror" GC.heap_info | grep -oE 'used [0-9]+K' | head -1 | grep -oE '[0-9]+')
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$mirror/status")
  fds=$(ls "/proc/$mirror/fd" | wc -l)
  echo "$heap $rss $fds"
}
read -r heap0 rss0 fds0 < <(sample)

echo "soak: $CONNECTIONS connections for $DURATION"
WARM=$WARM wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout 15s \
  --latency -s bench/soak-mix.lua "https://127.0.0.1:$PORT" > "$work/wrk.txt" &
load=$!
# During the run: descriptors, threads and RSS every 10 s. A leak climbs; a pool levels off.
during="$work/during.txt"
: > "$during"
while kill -0 "$load" 2>/dev/null; do
  sleep 10
  kill -0 "$mirror" 2>/dev/null || break
  echo "$(ls "/proc/$mirror/fd" | wc -l) $(awk '/Threads/ {print $2}' "/proc/$mirror/status") $(awk '/VmRSS/ {print $2}' "/proc/$mirror/status")" >> "$during"
done
wait "$load" || true

# After the run: cold fills finish, idle connections to the origin expire (30 s keep-alive), then measure.
for _ in $(seq 1 30); do [ "$(ls "$work/cache/tmp" | wc -l)" -eq 0 ] && break; sleep 1; done
for _ in $(seq 1 60); do [ "$(ls "/proc/$mirror/fd" | wc -l)" -le $((fds0 + 10)) ] && break; sleep 1; done
read -r heap1 rss1 fds1 < <(sample)
# What the mirror counted of its refusals, by reason (the fill bounds' are "fills" and "fills_per_host").
refusals=$(curl -sf --cacert "$ca" "https://127.0.0.1:$PORT/metrics" | grep '^mirror_refusals_total' \
  | sed -E 's/.*reason="([^"]*)".* ([0-9.eE+]+)$/\1=\2/' | tr '\n' ' ' || true)
alive=yes; kill -0 "$mirror" 2>/dev/null || alive=no
result=$(grep SOAK_RESULT "$work/wrk.txt")
rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
errors=$(grep -E 'Socket errors' "$work/wrk.txt" || echo "Socket errors: none")
peak_fds=$(sort -n "$during" | tail -1 | cut -d' ' -f1)
peak_threads=$(sort -k2 -n "$during" | tail -1 | cut -d' ' -f2)
peak_rss=$(sort -k3 -n "$during" | tail -1 | cut -d' ' -f3)
cold=$(ls "$work/cache/archives/example.test/acme" | grep -c '^c' || true)

printf '\n| measure | before | after |\n| --- | --- | --- |\n'
printf '| heap used after full GC (KiB) | %s | %s |\n' "$heap0" "$heap1"
printf '| RSS (KiB) | %s | %s |\n' "$rss0" "$rss1"
printf '| open file descriptors | %s | %s |\n' "$fds0" "$fds1"
printf '\nduring the run, every 10 s (descriptors threads RSS-KiB):\n'; cat "$during"
printf 'peaks during the run: %s descriptors, %s threads, %s KiB RSS; %s cold providers fetched, verified and cached\n' \
  "${peak_fds:-?}" "${peak_threads:-?}" "${peak_rss:-?}" "$cold"
printf '\n%s, %s requests/s, %s; mirror alive: %s (-Xmx%s)\n' "$result" "$rps" "$errors" "$alive" "$HEAP"
printf 'refusals the mirror counted, by reason: %s\n' "${refusals:-none}"
echo "wrk output: $work/wrk.txt; mirror log: $work/mirror.log"

five=$(echo "$result" | grep -oE '5xx=[0-9]+' | cut -d= -f2)
status=0
[ "$alive" = yes ] || { echo "soak: FAILED: the mirror died"; status=1; }
[ "${five:-1}" -eq 0 ] || { echo "soak: FAILED: $five responses were 5xx (not counting the fill bounds' refusals)"; status=1; }
[ "$fds1" -le $((fds0 + 10)) ] || { echo "soak: FAILED: file descriptors grew from $fds0 to $fds1"; status=1; }
exit $status
