#!/usr/bin/env bash
# The benchmark suite (not part of mvn verify): the mirror against nginx serving the identical static
# `terraform providers mirror` tree, both over TLS with the same certificate, side by side in one run on
# this machine. Builds the mirror, starts a signed fake origin (BenchOrigin), warms the mirror through it,
# copies what the mirror serves into the static tree nginx serves (and the module download's 204 with the
# mirror's own X-Terraform-Get into an nginx location), then, per warm scenario (index.json, a version
# document, the providers.v1 face's versions and download answers, a small and a large archive, and the module
# registry's versions, download and .tar.gz archive): WARMUP of uncounted load on each server (long enough for C2
# to compile the path), then, at each number of connections in CONNECTIONS (32 and 64), RUNS rounds of DURATION
# on each server in turn (each round starting with the next server). Reports medians over the runs, the
# mirror/nginx ratio of each round (the median is the one that counts; rounds pair the servers in time, so load
# from elsewhere on the machine hits both), p99 latency, each server's CPU time per answered request (user +
# system from /proc/<pid>/stat over the round, nginx's master and workers summed, divided by the requests), the
# date, the command and the load average before and after (a run that started above 0.5 was measured under
# load; runs.txt has the load as each measurement started). Raw results go to a fresh /tmp/provider-mirror-bench.*
# directory (printed at the end), never into the tree. Then fetches cold archives
# through the mirror and straight from the origin. Installs Debian's nginx and wrk when missing. Only
# 127.0.0.1 is contacted.
#
#   bench/compare.sh                                  # 8 s warm-up, 3 x 8 s per server, scenario and CONNECTIONS (~20 min)
#   CONNECTIONS=default bench/compare.sh              # each scenario at its crowd's connections (64 documents,
#                                                       16 small archives, 4 large ones) instead of at 32 and 64
#   SCENARIOS=large DURATION=30s bench/compare.sh     # 50 MB archives to 32 and 64 clients finish in seconds each:
#                                                       rounds this long count whole requests (CPU per MB counts
#                                                       partial ones too, so it holds for shorter rounds)
#   RUNS=5 DURATION=10s bench/compare.sh              # more rounds, steadier medians
#   SCENARIOS="index version" COLD_RUNS=0 bench/compare.sh   # the warm documents only
#   SCENARIOS="" COLD_RUNS=9 BASELINE_JAR=/tmp/main.jar bench/compare.sh   # cold archives only, A/B round by round
#   SCENARIOS="module_versions module_download module_archive" COLD_RUNS=0 bench/compare.sh   # modules only
#   BASELINE_JAR=/tmp/main.jar bench/compare.sh       # also an A/B: another build of the mirror, same rounds
#   BASELINE_JAR=mirror-server/target/mirror-server.jar BASELINE_JAVA_OPTS="-Xmx512m -XX:+UseParallelGC" \
#     bench/compare.sh                                # or the same build with other JVM options
#   MIRROR_JAVA_OPTS="-Xmx1g" BUILD=0 bench/compare.sh       # another JVM setting, without rebuilding
#   FLOOR=1 SCENARIOS="module_download version index" COLD_RUNS=0 bench/compare.sh   # also the engine's floor:
#                                   FloorServer (mirror-bench) on the mirror's transport, TLS and HTTP codec, writing
#                                   nginx's answers from memory, with nothing of the mirror's own (no routing, limits,
#                                   access log or metrics): how much of a path's CPU per request the engine costs and
#                                   how much the mirror adds (every scenario but the 50 MB archive's)
#   STORE=s3 SCENARIOS="small large" bench/compare.sh         # the mirror on an S3 bucket (S3Proxy on loopback):
#                                   warm archives from its local tier; cold fills into the bucket, with the
#                                   bucket requests of each fill by operation (count, mean latency); cold archives
#                                   from the bucket: a second instance (SECOND_PORT, its own local tier) reads each
#                                   archive the first one filled, against the same object read straight from the
#                                   bucket; and the bucket requests of one cold provider (index, version document,
#                                   archive) on either instance
#   STORE=s3 SCENARIOS=small COLD_RUNS=5 bench/compare.sh     # the S3 store's cold paths, with one warm scenario
#   PIN_CORES=1 SCENARIOS="" COLD_RUNS=5 bench/compare.sh     # cold throughput with the servers (mirror, nginx) on
#                                   CPU 1 and the origin, wrk and curl on CPU 0 (taskset): as if origin and clients
#                                   were other machines
#   PRETOUCH_GB=12 PIN_CORES=1 SCENARIOS="" COLD_RUNS=8 COLD_WARMUP=10 bench/compare.sh   # the same, after a JVM
#                                   has touched 12 GiB of memory once and exited: on a virtual machine whose memory
#                                   was never used, the page cache a cold fill writes to is memory the hypervisor
#                                   backs on first touch (here 0.4-0.5 GB/s against 4-5 GB/s for pages used before),
#                                   which a mirror's host, whose page cache has long filled its memory, no longer
#                                   pays. Every cold run prints how fast new pages were written before it began.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

DURATION=${DURATION:-8s}
WARMUP=${WARMUP:-8s}
RUNS=${RUNS:-3}
# SCENARIOS="" (or none) runs no warm scenario: only the cold archives.
SCENARIOS=${SCENARIOS-index version face_versions face_download small large module_versions module_download module_archive}
[ "$SCENARIOS" = none ] && SCENARIOS=""
SMALL_BYTES=${SMALL_BYTES:-200000}
LARGE_BYTES=${LARGE_BYTES:-50000000}
COLD_RUNS=${COLD_RUNS:-5}
# The connections every warm scenario is measured at, each in turn; "default": the scenario's own (scenario_connections).
CONNECTIONS=${CONNECTIONS:-32 64}
COLD_WARMUP=${COLD_WARMUP:-3}
# 1: each cold round waits until the mirrors are done with the last one (its h1:); 0: the rounds follow at once.
COLD_SETTLE=${COLD_SETTLE:-1}
# GiB of memory a JVM touches once (-XX:+AlwaysPreTouch) and gives back before the cold archives; 0: none.
PRETOUCH_GB=${PRETOUCH_GB:-0}
MIRROR_PORT=${MIRROR_PORT:-18443}
NGINX_PORT=${NGINX_PORT:-18444}
BASELINE_PORT=${BASELINE_PORT:-18445}
MIRROR_JAVA_OPTS=${MIRROR_JAVA_OPTS:--Xmx512m}
MIRROR_JAR=${MIRROR_JAR:-mirror-server/target/mirror-server.jar}
BASELINE_JAR=${BASELINE_JAR:-}
BASELINE_JAVA_OPTS=${BASELINE_JAVA_OPTS:-$MIRROR_JAVA_OPTS}
FLOOR=${FLOOR:-0}
FLOOR_PORT=${FLOOR_PORT:-18448}
BUILD=${BUILD:-1}
STORE=${STORE:-disk}
S3_PORT=${S3_PORT:-18446}
SECOND_PORT=${SECOND_PORT:-18447}
command="STORE=$STORE "
command+="DURATION=$DURATION WARMUP=$WARMUP RUNS=$RUNS SCENARIOS=\"$SCENARIOS\" COLD_RUNS=$COLD_RUNS COLD_WARMUP=$COLD_WARMUP COLD_SETTLE=$COLD_SETTLE"
command+=" MIRROR_JAVA_OPTS=\"$MIRROR_JAVA_OPTS\""
[ "$PRETOUCH_GB" = 0 ] || command="PRETOUCH_GB=$PRETOUCH_GB $command"
[ -z "$BASELINE_JAR" ] || command+=" BASELINE_JAR=$BASELINE_JAR BASELINE_JAVA_OPTS=\"$BASELINE_JAVA_OPTS\""
[ "$FLOOR" = 0 ] || command="FLOOR=1 $command"
command+=" bench/compare.sh"
[ "${PIN_CORES:-0}" != 1 ] || command="PIN_CORES=1 $command"
command="CONNECTIONS=\"$CONNECTIONS\" $command"
started=$(date -u +%Y-%m-%dT%H:%MZ)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

install_missing
ports=("$MIRROR_PORT" "$NGINX_PORT")
[ -z "$BASELINE_JAR" ] || ports+=("$BASELINE_PORT")
[ "$FLOOR" = 0 ] || ports+=("$FLOOR_PORT")
require_free_ports "${ports[@]}"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d /tmp/provider-mirror-bench.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  stop_nginx "$work"
}
trap cleanup EXIT

if [ "$BUILD" = 1 ]; then
  echo "bench: building (logs and data in $work)"
  build_all "$work"
else
  cp mirror-testkit/target/bench-classpath.txt "$work/classpath.txt"
fi
start_bench_origin "$work" "$SMALL_BYTES" "$LARGE_BYTES" 0
make_certificate "$work"
if [ "$STORE" = s3 ]; then
  require_free_ports "$S3_PORT" "$SECOND_PORT"
  start_s3proxy "$work" "$S3_PORT"
fi

start_mirror "$work" mirror "$MIRROR_JAR" "$MIRROR_PORT" "$MIRROR_JAVA_OPTS"
mirror=$STARTED_PID
startup_ms=$STARTUP_MS
declare -A base=([mirror]="https://127.0.0.1:$MIRROR_PORT/providers" [nginx]="https://127.0.0.1:$NGINX_PORT/providers")
# The process whose CPU time (with its children's: nginx's workers) each measurement counts.
declare -A server_pid=([mirror]="$mirror")
servers=(mirror nginx)
if [ -n "$BASELINE_JAR" ]; then
  start_mirror "$work" baseline "$BASELINE_JAR" "$BASELINE_PORT" "$BASELINE_JAVA_OPTS"
  base[baseline]="https://127.0.0.1:$BASELINE_PORT/providers"
  server_pid[baseline]=$STARTED_PID
  baseline_startup_ms=$STARTUP_MS
  servers+=(baseline)
fi

echo "bench: warming the mirror and copying what it serves into nginx's tree"
warm_mirror "${base[mirror]}" "$work/www"
[ -z "$BASELINE_JAR" ] || warm_mirror "${base[baseline]}"
start_nginx "$work" "$NGINX_PORT"
server_pid[nginx]=$NGINX_PID
if [ "$FLOOR" != 0 ]; then
  start_floor "$work" "$FLOOR_PORT" "$MIRROR_JAVA_OPTS"
  base[floor]="https://127.0.0.1:$FLOOR_PORT/providers"
  server_pid[floor]=$FLOOR_PID
  servers+=(floor)
fi

[ "$STORE" = s3 ] && store_warm_before=$(store_requests "$MIRROR_PORT")
: > "$work/runs.txt"
# One line per measurement in runs.txt: <scenario>@<connections> <server> <round> <req/s> <MB/s> <p99 ms>
# <server CPU us per request> <server CPU us per MB sent> <1-min load average as the measurement started>.
# Each round takes the servers in turn, starting with the next one each round, so none is always first or last.
keys=()
# measures SERVER SCENARIO: whether SERVER takes part in SCENARIO's rounds (the floor holds no 50 MB archive).
measures() { [ "$1" != floor ] || [ "$2" != large ]; }
for s in $SCENARIOS; do
  path=$(scenario_path "$s")
  taking=(); for server in "${servers[@]}"; do measures "$server" "$s" && taking+=("$server"); done
  echo "bench: $s ($(scenario_connections "$s") connections; $WARMUP uncounted, then $RUNS x $DURATION on each of ${taking[*]})"
  for server in "${servers[@]}"; do
    measures "$server" "$s" && wrk_run "${base[$server]%/providers}/$path" 64 "$WARMUP" > /dev/null
  done
  for connections in $(scenario_connections "$s"); do
    keys+=("$s@$connections")
    for round in $(seq 1 "$RUNS"); do
      for i in "${!servers[@]}"; do
        server=${servers[$(( (i + round - 1) % ${#servers[@]} ))]}
        measures "$server" "$s" || continue
        load=$(cut -d' ' -f1 /proc/loadavg)
        echo "$s@$connections $server $round $(wrk_run "${base[$server]%/providers}/$path" "$connections" "$DURATION" ${server_pid[$server]}) $load" >> "$work/runs.txt"
      done
    done
  done
done

# Cold: an archive the mirror has never fetched (its version document already asked for, as the CLI does),
# once straight from the origin and once through the mirror, which fetches, hashes and stores it meanwhile (and
# through the baseline too, with BASELINE_JAR: the two take turns going first). The first COLD_WARMUP are not
# counted: they warm the JIT on the fetching path, as a mirror that has been running for a while has it. After a
# fill the mirror still computes the archive's h1: (inflating every file in it); each round waits until the last
# round's version document carries h1: on every mirror, so that work never takes CPU from the next measurement.
cold=()
cold_base=()
# wait_for_h1 BASE TYPE: until the version document of TYPE at BASE lists h1: (the mirror is done with its fill).
# Appends to WORK/settled.txt how many ms after the archive's last byte the mirror was done.
wait_for_h1() {
  local waited=0 from
  from=$(date +%s%N)
  until curl -sfk "$1/$(provider_path "$2")/1.0.0.json" | grep -q '"h1:'; do
    waited=$((waited + 1))
    [ "$waited" -lt 3000 ] || { echo "bench: no h1: for $2 at $1 after 60 s" >&2; exit 1; }
    sleep 0.02
  done
  echo $(( ($(date +%s%N) - from) / 1000000 )) >> "$work/settled.txt"
}
filled=()
# count_fill_operations TYPE ROUND: the bucket requests of TYPE's archive fill alone, appended to
# WORK/fill-operations.txt for a counted ROUND: its lease is removed after the commit, so after the client's last
# byte; waits for that (at most 5 s) before counting.
count_fill_operations() {
  for _ in $(seq 1 50); do
    store_operations "$MIRROR_PORT" > "$work/operations-after"
    operations_delta "$work/operations-before" "$work/operations-after" > "$work/operations-delta"
    if grep -q '^delete_lease:ok ' "$work/operations-delta"; then break; fi
    sleep 0.1
  done
  if [ "$2" -gt "$COLD_WARMUP" ]; then
    operations_delta "$work/operations-before" "$work/operations-after" >> "$work/fill-operations.txt"
  fi
  filled+=("$1")
}
[ "$STORE" = s3 ] && store_before=$(store_requests "$MIRROR_PORT")
[ "$STORE" = s3 ] && warm_requests=$(awk '$2 == "mirror" { n += $4 * '"${DURATION%s}"' } END { printf "%d", n }' "$work/runs.txt")
# new_page_writes: MB/s at which 512 MB are written to a new file (into pages the page cache takes now), the file
# then removed; how fast this machine gives the page cache memory, which a cold fill's write pays per byte.
new_page_writes() {
  dd if=/dev/zero of="$work/new-pages" bs=1M count=512 2>&1 | awk '/copied/ { v = $(NF - 1); u = $NF; if (u ~ /^GB/) v *= 1000; if (u ~ /^kB/) v /= 1000; printf "%.0f", v }'
  rm -f "$work/new-pages"
}
if [ "$COLD_RUNS" -gt 0 ]; then
  if [ "$PRETOUCH_GB" != 0 ]; then
    echo "bench: touching ${PRETOUCH_GB} GiB of memory once (a JVM with -XX:+AlwaysPreTouch that exits)"
    java -Xms"${PRETOUCH_GB}g" -Xmx"${PRETOUCH_GB}g" -XX:+AlwaysPreTouch -XX:+UseSerialGC -version > /dev/null 2>&1
  fi
  cold_page_writes=$(new_page_writes)
  echo "bench: cold archives ($COLD_RUNS runs of $((LARGE_BYTES / 1000000)) MB, after $COLD_WARMUP not counted; new pages written at $cold_page_writes MB/s)"
  origin_base="https://127.0.0.1:$ORIGIN_PORT"
  cold_servers=(mirror)
  [ -z "$BASELINE_JAR" ] || cold_servers+=(baseline)
  for i in $(seq 1 $((COLD_WARMUP + COLD_RUNS))); do
    type="largecold$i-$RANDOM"
    curl -sfk -o /dev/null "$origin_base/v1/providers/acme/$type/1.0.0/download/linux/amd64"
    for server in "${cold_servers[@]}"; do
      curl -sfk -o /dev/null "${base[$server]}/$(provider_path "$type")/index.json"
      curl -sfk -o /dev/null "${base[$server]}/$(provider_path "$type")/1.0.0.json"
    done
    order=("${cold_servers[@]}")
    [ $((i % 2)) = 0 ] && [ ${#order[@]} = 2 ] && order=(baseline mirror)
    o=$("${CLIENT_CPUS[@]}" curl -sfk -o /dev/null -w '%{time_starttransfer} %{speed_download}' "$origin_base/files/$type/$(archive_name "$type")")
    declare -A got=()
    for server in "${order[@]}"; do
      [ "$STORE" = s3 ] && [ "$server" = mirror ] && store_operations "$MIRROR_PORT" > "$work/operations-before"
      got[$server]=$("${CLIENT_CPUS[@]}" curl -sfk -o /dev/null -w '%{time_starttransfer} %{speed_download}' "${base[$server]}/$(provider_path "$type")/$(archive_name "$type")")
      if [ "$STORE" = s3 ] && [ "$server" = mirror ]; then count_fill_operations "$type" "$i"; fi
      [ "$COLD_SETTLE" = 0 ] || wait_for_h1 "${base[$server]}" "$type"
    done
    [ "$i" -gt "$COLD_WARMUP" ] && cold+=("$o ${got[mirror]}")
    [ "$i" -gt "$COLD_WARMUP" ] && [ -n "$BASELINE_JAR" ] && cold_base+=("$o ${got[baseline]}")
    rm -f "$work/origin/files/terraform-provider-$type"_*
  done
fi

# Cold from the bucket (STORE=s3): a second instance on the same bucket, with its own cache directory (so its own
# local tier), asked for each archive the first instance filled above, which it has never served: it reads the
# version list and release evidence from the bucket, copies the archive from the bucket into its local tier
# (checking size and sha256) and serves it. The origin no longer has those archives (removed after each round),
# so nothing can come from there. The reference is the same object read straight from the bucket (S3Proxy, plain
# HTTP, signed by curl). The first COLD_WARMUP are not counted, as above.
from_bucket=()
if [ "$STORE" = s3 ] && [ "$COLD_RUNS" -gt 0 ]; then
  store_after=$(store_requests "$MIRROR_PORT")
  echo "bench: cold archives from the bucket (a second instance on it, $COLD_RUNS runs after $COLD_WARMUP not counted)"
  start_mirror "$work" second "$MIRROR_JAR" "$SECOND_PORT" "$MIRROR_JAVA_OPTS"
  second_base="https://127.0.0.1:$SECOND_PORT/providers"
  second_before=$(store_requests "$SECOND_PORT")
  for i in "${!filled[@]}"; do
    type=${filled[$i]}
    curl -sfk -o /dev/null "$second_base/$(provider_path "$type")/index.json"
    curl -sfk -o /dev/null "$second_base/$(provider_path "$type")/1.0.0.json"
    b=$(curl -sf -o /dev/null -w '%{time_starttransfer} %{speed_download}' --aws-sigv4 "aws:amz:us-east-1:s3" \
      -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
      "http://127.0.0.1:$S3_PORT/provider-mirror/blobs/$(provider_path "$type")/1.0.0/$(archive_name "$type")")
    store_operations "$SECOND_PORT" > "$work/operations-before"
    m=$(curl -sfk -o /dev/null -w '%{time_starttransfer} %{speed_download}' "$second_base/$(provider_path "$type")/$(archive_name "$type")")
    store_operations "$SECOND_PORT" > "$work/operations-after"
    if [ "$i" -ge "$COLD_WARMUP" ]; then
      from_bucket+=("$b $m")
      operations_delta "$work/operations-before" "$work/operations-after" >> "$work/read-operations.txt"
    fi
  done
  second_requests=$(( ($(store_requests "$SECOND_PORT") - second_before) / ${#filled[@]} ))
fi

[ "$STORE" = s3 ] && [ "$COLD_RUNS" -eq 0 ] && store_after=$(store_requests "$MIRROR_PORT")
peak_rss_kib=$(awk '/VmHWM/ { print $2 }' "/proc/$mirror/status")
grep -q 'network:' "$work/mirror.log" && network=$(grep -m1 -o 'network: .*' "$work/mirror.log") || network="network: ?"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

label() {
  case $1 in
    index) echo "warm index.json" ;;
    version) echo "warm version document" ;;
    small) echo "warm small archive ($((SMALL_BYTES / 1000)) kB)" ;;
    large) echo "warm large archive ($((LARGE_BYTES / 1000000)) MB)" ;;
    face_versions) echo "warm providers.v1 versions" ;;
    face_download) echo "warm providers.v1 download" ;;
    module_versions) echo "warm module versions" ;;
    module_download) echo "warm module download (204)" ;;
    module_archive) echo "warm module archive ($(stat -c %s "$work/www/$(scenario_path module_archive)") B tar.gz)" ;;
  esac
}
# column KEY SERVER FIELD: the median of one field (4 req/s, 5 MB/s, 6 p99, 7 CPU us per request, 8 CPU us per MB)
# over the rounds.
column() { awk -v s="$1" -v v="$2" -v f="$3" '$1 == s && $2 == v { print $f }' "$work/runs.txt" | median; }
# spread KEY SERVER FIELD: "<min>-<max>" of one field over the rounds.
spread() {
  awk -v s="$1" -v v="$2" -v f="$3" '$1 == s && $2 == v { print $f }' "$work/runs.txt" | sort -g | sed -n '1p;$p' | paste -sd-
}
# ratios KEY A B FIELD: A/B of one field, round by round, as "<median> <each round's>".
ratios() {
  awk -v s="$1" -v a="$2" -v b="$3" -v f="$4" '$1 == s && $2 == a { x[$3] = $f } $1 == s && $2 == b { y[$3] = $f }
    END { for (r in x) if ((r in y) && y[r] > 0) printf "%.2f\n", x[r] / y[r] }' "$work/runs.txt" | sort -g > "$work/ratios"
  echo "$(median < "$work/ratios") $(paste -sd/ "$work/ratios")"
}

# operation_table FILE ROUNDS: operations_delta lines of ROUNDS requests summed by operation and outcome, as a
# table of requests per round and their mean latency.
operation_table() {
  echo
  echo "| bucket request (operation:outcome) | requests per archive | mean ms |"
  echo "| --- | ---: | ---: |"
  awk -v rounds="$2" '{ n[$1] += $2; s[$1] += $3 } END { for (k in n) printf "| %s | %.1f | %.1f |\n", k, n[k] / rounds, s[k] / n[k] * 1000 }' "$1" | sort
}

{
  echo
  echo "date:    $started; command: $command"
  echo "load:    $load_before before, $load_after after (1, 5, 15 min; above 0.5 before means measured under load)"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  [ "${PIN_CORES:-0}" != 1 ] || echo "cores:   pinned (taskset): the mirror, the baseline and nginx on CPU 1; the origin, S3Proxy, wrk and curl on CPU 0"
  echo "mirror:  $(java -version 2>&1 | head -1), $MIRROR_JAVA_OPTS, $network, cache on $STORE"
  echo "nginx:   $("$NGINX" -v 2>&1 | cut -d/ -f2), worker_processes auto, sendfile on, access log on; wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), 2 threads"
  echo "TLS:     both with the same P-256 certificate; wrk negotiates TLS 1.3"
  echo
  [ -n "$SCENARIOS" ] && echo "Medians of $RUNS rounds of $DURATION, after $WARMUP per server and scenario not counted; ratios are the median of the rounds' (each round's, sorted, in brackets). CPU/req is the server's CPU time (user + system, every thread; nginx's master and workers summed, from /proc/<pid>/stat) over a round divided by the requests answered in it (min-max over the rounds in brackets); CPU mirror/nginx below 1 means the mirror spent less per request."
  [ -n "$SCENARIOS" ] && echo
  [ -n "$SCENARIOS" ] && echo "| scenario | connections | mirror req/s | nginx req/s | mirror/nginx | mirror p99 ms | nginx p99 ms | p99 mirror/nginx | mirror CPU us/req | nginx CPU us/req | CPU mirror/nginx | CPU/MB mirror/nginx | mirror MB/s | nginx MB/s |"
  [ -n "$SCENARIOS" ] && echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for k in "${keys[@]}"; do
    read -r rate rounds <<< "$(ratios "$k" mirror nginx 4)"
    read -r tail tail_rounds <<< "$(ratios "$k" mirror nginx 6)"
    read -r cpu cpu_rounds <<< "$(ratios "$k" mirror nginx 7)"
    read -r per_mb per_mb_rounds <<< "$(ratios "$k" mirror nginx 8)"
    echo "| $(label "${k%@*}") | ${k#*@} | $(column "$k" mirror 4) | $(column "$k" nginx 4) | **${rate}x** ($rounds) | $(column "$k" mirror 6) | $(column "$k" nginx 6) | **${tail}x** ($tail_rounds) | $(column "$k" mirror 7) ($(spread "$k" mirror 7)) | $(column "$k" nginx 7) ($(spread "$k" nginx 7)) | **${cpu}x** ($cpu_rounds) | ${per_mb}x ($per_mb_rounds) | $(column "$k" mirror 5) | $(column "$k" nginx 5) |"
  done
  if [ -n "$BASELINE_JAR" ] && [ -n "$SCENARIOS" ]; then
    echo
    echo "A/B: $MIRROR_JAR with $MIRROR_JAVA_OPTS (mirror) against $BASELINE_JAR with $BASELINE_JAVA_OPTS (baseline), same rounds"
    echo
    echo "| scenario | connections | mirror req/s | baseline req/s | mirror/baseline | mirror p99 ms | baseline p99 ms | p99 mirror/baseline | mirror CPU us/req | baseline CPU us/req | CPU mirror/baseline | CPU/MB mirror/baseline |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for k in "${keys[@]}"; do
      read -r rate rounds <<< "$(ratios "$k" mirror baseline 4)"
      read -r tail tail_rounds <<< "$(ratios "$k" mirror baseline 6)"
      read -r cpu cpu_rounds <<< "$(ratios "$k" mirror baseline 7)"
      read -r per_mb per_mb_rounds <<< "$(ratios "$k" mirror baseline 8)"
      echo "| $(label "${k%@*}") | ${k#*@} | $(column "$k" mirror 4) | $(column "$k" baseline 4) | **${rate}x** ($rounds) | $(column "$k" mirror 6) | $(column "$k" baseline 6) | ${tail}x ($tail_rounds) | $(column "$k" mirror 7) ($(spread "$k" mirror 7)) | $(column "$k" baseline 7) ($(spread "$k" baseline 7)) | **${cpu}x** ($cpu_rounds) | ${per_mb}x ($per_mb_rounds) |"
    done
  fi
  if [ "$FLOOR" != 0 ] && [ -n "$SCENARIOS" ]; then
    echo
    echo "The engine's floor, same rounds: FloorServer (the mirror's transport, TLS and HTTP codec, nginx's answers from memory, nothing of the mirror's own) with $MIRROR_JAVA_OPTS. CPU mirror - floor is what the mirror adds per request (median of the rounds' differences)."
    echo
    echo "| scenario | connections | floor req/s | floor p99 ms | floor CPU us/req | CPU floor/nginx | CPU mirror/floor | CPU mirror - floor us/req |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for k in "${keys[@]}"; do
      measures floor "${k%@*}" || continue
      read -r floor_nginx floor_nginx_rounds <<< "$(ratios "$k" floor nginx 7)"
      read -r mirror_floor mirror_floor_rounds <<< "$(ratios "$k" mirror floor 7)"
      added=$(awk -v s="$k" '$1 == s && $2 == "mirror" { x[$3] = $7 } $1 == s && $2 == "floor" { y[$3] = $7 }
        END { for (r in x) if (r in y) printf "%.1f\n", x[r] - y[r] }' "$work/runs.txt" | sort -g)
      echo "| $(label "${k%@*}") | ${k#*@} | $(column "$k" floor 4) | $(column "$k" floor 6) | $(column "$k" floor 7) ($(spread "$k" floor 7)) | ${floor_nginx}x ($floor_nginx_rounds) | **${mirror_floor}x** ($mirror_floor_rounds) | **$(median <<< "$added")** ($(paste -sd/ <<< "$added")) |"
    done
  fi
  if [ ${#cold[@]} -gt 0 ]; then
    cold_o_ttfb=$(printf '%s\n' "${cold[@]}" | awk '{ print $1 * 1000 }' | median)
    cold_o_mbs=$(printf '%s\n' "${cold[@]}" | awk '{ print $2 / 1e6 }' | median)
    cold_m_ttfb=$(printf '%s\n' "${cold[@]}" | awk '{ print $3 * 1000 }' | median)
    cold_m_mbs=$(printf '%s\n' "${cold[@]}" | awk '{ print $4 / 1e6 }' | median)
    echo
    echo "| cold archive ($((LARGE_BYTES / 1000000)) MB, median of $COLD_RUNS) | time to first byte ms | MB/s |"
    echo "| --- | ---: | ---: |"
    printf '| straight from the origin | %.1f | %.1f |\n' "$cold_o_ttfb" "$cold_o_mbs"
    printf '| through the mirror (fetching, hashing, storing) | %.1f | %.1f |\n' "$cold_m_ttfb" "$cold_m_mbs"
    awk -v ot="$cold_o_ttfb" -v mt="$cold_m_ttfb" -v ob="$cold_o_mbs" -v mb="$cold_m_mbs" \
      'BEGIN { printf "| mirror - origin | %+.1f ms | %.2fx |\n", mt - ot, mb / ob }'
    # Per round: mirror/origin MB/s, and mirror - origin time to first byte.
    echo "rounds, mirror/origin MB/s: $(printf '%s\n' "${cold[@]}" | awk '{ printf "%.2f ", $4 / $2 }')"
    [ ! -s "$work/settled.txt" ] || echo "after each fill the mirror was done (its version document listed h1:) a median of $(median < "$work/settled.txt") ms after the archive's last byte (max $(sort -g "$work/settled.txt" | tail -1) ms); the next round waited for it"
    echo "rounds, mirror - origin first byte ms: $(printf '%s\n' "${cold[@]}" | awk '{ printf "%+.1f ", ($3 - $1) * 1000 }')"
    echo "page cache: 512 MB written to a new file at $cold_page_writes MB/s before the cold rounds$([ "$PRETOUCH_GB" = 0 ] || echo ", after ${PRETOUCH_GB} GiB of memory were touched once"), $(new_page_writes) MB/s after them (below about 1000: the machine's memory is backed on first touch, and each fill's write pays for it)"
  fi
  if [ ${#cold_base[@]} -gt 0 ]; then
    echo
    echo "Cold A/B, same rounds (mirror and baseline take turns going first):"
    echo
    echo "| cold archive ($((LARGE_BYTES / 1000000)) MB, median of $COLD_RUNS) | time to first byte ms | MB/s | x origin, median of the rounds' ratios (each round's) |"
    echo "| --- | ---: | ---: | ---: |"
    for side in mirror baseline; do
      if [ "$side" = mirror ]; then rows=("${cold[@]}"); else rows=("${cold_base[@]}"); fi
      ttfb=$(printf '%s\n' "${rows[@]}" | awk '{ print $3 * 1000 }' | median)
      mbs=$(printf '%s\n' "${rows[@]}" | awk '{ print $4 / 1e6 }' | median)
      ratio=$(printf '%s\n' "${rows[@]}" | awk '{ printf "%.2f\n", $4 / $2 }' | median)
      each=$(printf '%s\n' "${rows[@]}" | awk '{ printf "%.2f\n", $4 / $2 }' | paste -sd/)
      printf '| %s | %.1f | %.1f | **%.2fx** (%s) |\n' "$side" "$ttfb" "$mbs" "$ratio" "$each"
    done
  fi
  if [ ${#from_bucket[@]} -gt 0 ]; then
    echo
    echo "Bucket requests of one cold archive's fill into the bucket (the archive request alone: its index.json and version document were asked for before; mean of $COLD_RUNS fills; the order on the path to the first byte is in the README):"
    operation_table "$work/fill-operations.txt" "$COLD_RUNS"
    bucket_ttfb=$(printf '%s\n' "${from_bucket[@]}" | awk '{ print $1 * 1000 }' | median)
    bucket_mbs=$(printf '%s\n' "${from_bucket[@]}" | awk '{ print $2 / 1e6 }' | median)
    second_ttfb=$(printf '%s\n' "${from_bucket[@]}" | awk '{ print $3 * 1000 }' | median)
    second_mbs=$(printf '%s\n' "${from_bucket[@]}" | awk '{ print $4 / 1e6 }' | median)
    echo
    echo "| cold archive from the bucket ($((LARGE_BYTES / 1000000)) MB, median of $COLD_RUNS, a second instance) | time to first byte ms | MB/s |"
    echo "| --- | ---: | ---: |"
    printf '| straight from the bucket (S3Proxy, plain HTTP) | %.1f | %.1f |\n' "$bucket_ttfb" "$bucket_mbs"
    printf '| through a second instance (reading, checking, keeping it in its local tier) | %.1f | %.1f |\n' "$second_ttfb" "$second_mbs"
    awk -v bt="$bucket_ttfb" -v st="$second_ttfb" -v bb="$bucket_mbs" -v sb="$second_mbs" \
      'BEGIN { printf "| second instance - bucket | %+.1f ms | %.2fx |\n", st - bt, sb / bb }'
    echo
    echo "Bucket requests of the second instance: $second_requests per provider (index.json, version document, archive); the archive request alone:"
    operation_table "$work/read-operations.txt" "$COLD_RUNS"
  fi
  if [ "$STORE" = s3 ] && [ "$COLD_RUNS" -gt 0 ]; then
    echo
    echo "bucket (S3Proxy $S3_PORT): $(( (store_after - store_before) / (COLD_WARMUP + COLD_RUNS) )) store requests per cold provider (index.json, version document, archive: what one terraform init of one provider asks); $((store_before - store_warm_before)) store requests during the warm scenarios, warm-ups included (the counted rounds alone answered about $warm_requests requests)"
  fi
  echo
  echo "mirror start-up to first answered request: $startup_ms ms${baseline_startup_ms:+ (baseline: $baseline_startup_ms ms)}; peak RSS: $((peak_rss_kib / 1024)) MiB"
} | tee "$work/results.md"
echo "bench: results in $work/results.md, every round in $work/runs.txt; logs in $work"
