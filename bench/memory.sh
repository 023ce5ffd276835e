#!/usr/bin/env bash
# Memory check (not part of mvn verify): a cold archive of ARCHIVE_BYTES (1 GB) is fetched through the
# mirror, running with -Xmx256m, by CLIENTS (4) clients at once while the origin sends it. Samples the heap
# (after each GC, from jstat) and RSS every half second, and prints before, peak and after. The mirror
# streams the archive from its temporary file to every client, so neither grows with the archive.
#
#   bench/memory.sh
#   ARCHIVE_BYTES=300000000 bench/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

ARCHIVE_BYTES=${ARCHIVE_BYTES:-1000000000}
CLIENTS=${CLIENTS:-4}
HEAP=${HEAP:-256m}
PORT=${PORT:-18453}

work=$(mktemp -d /tmp/provider-mirror-memory.XXXXXX)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work/origin/files" "$work/cache/archives"; }
trap cleanup EXIT

echo "memory: building (logs in $work)"
build_all "$work"
start_bench_origin "$work" 1000 "$ARCHIVE_BYTES" 0

cat > "$work/mirror.yaml" <<YAML
server: {host: 127.0.0.1, port: $PORT}
cache: {directory: $work/cache}
upstream:
  trustedCertificates: $ORIGIN_CA
  hosts: {example.test: {discoveryUrl: "$DISCOVERY_URL"}}
YAML
java -Xmx"$HEAP" -jar mirror-server/target/mirror-server.jar --config "$work/mirror.yaml" > "$work/mirror.out" 2> "$work/mirror.log" &
mirror=$!
pids+=("$mirror")
until curl -sk -o /dev/null "https://127.0.0.1:$PORT/healthz"; do sleep 0.1; done

type=large1g
base="https://127.0.0.1:$PORT/providers/example.test/acme/$type"
archive="terraform-provider-${type}_1.0.0_linux_amd64.zip"
echo "memory: the origin makes its $ARCHIVE_BYTES-byte archive"
curl -sfk -o /dev/null "https://127.0.0.1:$ORIGIN_PORT/v1/providers/acme/$type/1.0.0/download/linux/amd64"
curl -sfk -o /dev/null "$base/index.json"
curl -sfk -o /dev/null "$base/1.0.0.json"

sample() { # heap used KiB (jstat: survivors + eden + old), RSS KiB
  local heap
  heap=$(jstat -gc "$mirror" | awk 'NR == 2 { printf "%.0f", $3 + $4 + $6 + $8 }')
  echo "$heap $(awk '/VmRSS/ { print $2 }' "/proc/$mirror/status")"
}
jcmd "$mirror" GC.run > /dev/null
read -r heap0 rss0 < <(sample)

echo "memory: $CLIENTS clients fetch it cold at once"
: > "$work/samples.txt"
( while kill -0 "$mirror" 2>/dev/null; do sample >> "$work/samples.txt"; sleep 0.5; done ) &
sampler=$!
start=$(date +%s)
clients=()
for i in $(seq 1 "$CLIENTS"); do
  curl -sfk -o /dev/null -w '%{size_download}\n' "$base/$archive" > "$work/client$i.txt" &
  clients+=($!)
done
for pid in "${clients[@]}"; do wait "$pid"; done
seconds=$(( $(date +%s) - start ))
kill "$sampler" 2>/dev/null || true
jcmd "$mirror" GC.run > /dev/null
read -r heap1 rss1 < <(sample)

status=0
for i in $(seq 1 "$CLIENTS"); do
  got=$(cat "$work/client$i.txt")
  [ "$got" = "$ARCHIVE_BYTES" ] || [ "$got" -gt "$ARCHIVE_BYTES" ] || { echo "memory: client $i got $got bytes"; status=1; }
done
peak_heap=$(sort -n "$work/samples.txt" | tail -1 | cut -d' ' -f1)
peak_rss=$(sort -k2 -n "$work/samples.txt" | tail -1 | cut -d' ' -f2)
printf '\n%s clients fetched a cold %s-byte archive through the mirror (-Xmx%s) in %s s\n' "$CLIENTS" "$ARCHIVE_BYTES" "$HEAP" "$seconds"
printf '| measure | before | peak during | after (full GC) |\n| --- | ---: | ---: | ---: |\n'
printf '| heap used (MiB) | %d | %d | %d |\n' $((heap0 / 1024)) $((peak_heap / 1024)) $((heap1 / 1024))
printf '| RSS (MiB) | %d | %d | %d |\n' $((rss0 / 1024)) $((peak_rss / 1024)) $((rss1 / 1024))
grep -q "cached example.test/acme/$type" "$work/mirror.log" && echo "the archive was verified and cached" \
  || { echo "memory: the archive was not cached"; status=1; }
exit $status
