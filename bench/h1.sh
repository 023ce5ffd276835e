#!/usr/bin/env bash
# How long after a cold fill the version document carries h1: (not part of mvn verify). h1: is computed once
# per archive, in the background after the fill commits, never on a request's path; until then the version
# document lists the zh: hash only. BenchOrigin publishes provider-like archives of ARCHIVE_BYTES (100 MB: a
# deflated executable that compresses 2-3x, as a real provider binary does, so h1: must inflate about 2.5x the
# archive's bytes). For each of RUNS providers: the origin is asked to make and sign the archive, the
# version document is fetched through the mirror, the archive is fetched through it (the cold fill), and
# then the version document is asked for every 20 ms until it carries h1:. Prints the fill time and the time from the end of the fill
# to the first version document with h1:, and their medians. Only 127.0.0.1 is contacted.
#
#   bench/h1.sh
#   ARCHIVE_BYTES=300000000 RUNS=5 bench/h1.sh
#   BUILD=0 JAR=/tmp/old.jar bench/h1.sh      # a jar already built (testkit classes must be built)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

ARCHIVE_BYTES=${ARCHIVE_BYTES:-100000000}
RUNS=${RUNS:-3}
PORT=${PORT:-18463}
MIRROR_JAVA_OPTS=${MIRROR_JAVA_OPTS:--Xmx512m}
jar=${JAR:-mirror-server/target/mirror-server.jar}

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "h1: port $PORT is in use (set PORT)" >&2
  exit 1
fi
work=$(mktemp -d /tmp/provider-mirror-h1.XXXXXX)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work/origin/files" "$work/cache"; }
trap cleanup EXIT

if [ "${BUILD:-1}" = 1 ]; then
  echo "h1: building (logs and data in $work)"
  mvn -B -q package -DskipTests
fi
# mirror-testkit depends on no other module of the project: its class path needs nothing installed.
mvn -B -q -pl mirror-testkit dependency:build-classpath -Dmdep.outputFile="$work/classpath.txt" > /dev/null
start_bench_origin "$work" 1000 "$ARCHIVE_BYTES" 0

cat > "$work/mirror.yaml" <<YAML
server: {host: 127.0.0.1, port: $PORT}
cache: {directory: $work/cache}
upstream:
  trustedCertificates: $ORIGIN_CA
  hosts: {example.test: {discoveryUrl: "$DISCOVERY_URL"}}
YAML
# shellcheck disable=SC2086
java $MIRROR_JAVA_OPTS -jar "$jar" --config "$work/mirror.yaml" > "$work/mirror.out" 2> "$work/mirror.log" &
mirror=$!
pids+=("$mirror")
await_answer "$mirror" "https://127.0.0.1:$PORT/healthz" "the mirror" "$work/mirror.log" 0.1

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
fills=()
delays=()
echo "h1: $RUNS providers of $ARCHIVE_BYTES bytes; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$RUNS"); do
  type=deflated$i
  base="https://127.0.0.1:$PORT/providers/example.test/acme/$type"
  archive="terraform-provider-${type}_1.0.0_linux_amd64.zip"
  # The origin makes and signs the archive when first asked (deflating 100 MB takes a while): ask it directly
  # first, so the mirror's metadata requests are answered at once and only the mirror's work is timed.
  curl -sf --max-time 900 --cacert "$ORIGIN_CA" -o /dev/null \
    "https://127.0.0.1:$ORIGIN_PORT/v1/providers/acme/$type/1.0.0/download/linux/amd64"
  curl -sfk -o /dev/null "$base/index.json"
  if curl -sfk "$base/1.0.0.json" | grep -q '"h1:'; then
    echo "h1: $type's version document carries h1: before its archive was fetched" >&2
    exit 1
  fi
  start=$(ms)
  bytes=$(curl -sfk -o /dev/null -w '%{size_download}' "$base/$archive")
  filled=$(ms)
  until curl -sfk "$base/1.0.0.json" | grep -q '"h1:'; do
    [ $(( $(ms) - filled )) -lt 600000 ] || { echo "h1: no h1: after 10 minutes" >&2; cat "$work/mirror.log" >&2; exit 1; }
    sleep 0.02
  done
  carried=$(ms)
  fills+=($((filled - start)))
  delays+=($((carried - filled)))
  echo "  $type: $bytes archive bytes; cold fill $((filled - start)) ms; h1: in the version document $((carried - filled)) ms after the fill"
done
echo "median: cold fill $(printf '%s\n' "${fills[@]}" | median) ms; h1: $(printf '%s\n' "${delays[@]}" | median) ms after the fill"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(java -version 2>&1 | head -1)"
