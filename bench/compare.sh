#!/usr/bin/env bash
# The benchmark suite (not part of mvn verify): the mirror against nginx serving the identical static
# `terraform providers mirror` tree, both over TLS with the same certificate, side by side in one run on
# this machine. Builds the mirror, starts a signed fake origin (BenchOrigin), warms the mirror through it,
# copies what the mirror serves into the static tree nginx serves, then runs wrk against both for warm
# index.json, a warm version document, a warm small and a warm large archive; then fetches cold archives
# through the mirror and straight from the origin. Prints a table, the mirror's start-up time and peak RSS.
# Installs Debian's nginx and wrk when missing. Only 127.0.0.1 is contacted.
#
#   bench/compare.sh                         # 15 s per measurement
#   DURATION=5s bench/compare.sh             # quicker, noisier
#   MIRROR_JAVA_OPTS="-Xmx1g" bench/compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-5s}
SMALL_BYTES=${SMALL_BYTES:-200000}
LARGE_BYTES=${LARGE_BYTES:-50000000}
COLD_RUNS=${COLD_RUNS:-5}
COLD_WARMUP=${COLD_WARMUP:-3}
MIRROR_PORT=${MIRROR_PORT:-18443}
NGINX_PORT=${NGINX_PORT:-18444}
MIRROR_JAVA_OPTS=${MIRROR_JAVA_OPTS:--Xmx512m}

install_missing() {
  local missing=()
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
  command -v wrk >/dev/null 2>&1 || missing+=(wrk)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: installing ${missing[*]}" >&2
    apt-get install -y "${missing[@]}" >/dev/null 2>&1 \
      || { apt-get update >/dev/null && apt-get install -y "${missing[@]}" >/dev/null; }
  fi
}
install_missing
for port in "$MIRROR_PORT" "$NGINX_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "bench: port $port is in use (set MIRROR_PORT / NGINX_PORT, or stop what listens there)" >&2
    exit 1
  fi
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d /tmp/provider-mirror-bench.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # nginx removes its pid file as it exits (killed above with the others): no file, nothing left to stop.
  local nginx_pid
  nginx_pid=$(cat "$work/nginx/nginx.pid" 2>/dev/null) && kill "$nginx_pid" 2>/dev/null || true
}
trap cleanup EXIT

echo "bench: building (logs and data in $work)"
build_all "$work"
start_bench_origin "$work" "$SMALL_BYTES" "$LARGE_BYTES" 0

# One certificate for both servers, so both do the same TLS work.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
chmod 644 "$work/key.pem"

cat > "$work/mirror.yaml" <<YAML
server:
  host: 127.0.0.1
  port: $MIRROR_PORT
  tls:
    certificate: $work/cert.pem
    privateKey: $work/key.pem
cache:
  directory: $work/cache
upstream:
  trustedCertificates: $ORIGIN_CA
  hosts:
    example.test:
      discoveryUrl: $DISCOVERY_URL
YAML
start_ns=$(date +%s%N)
# shellcheck disable=SC2086
java $MIRROR_JAVA_OPTS -jar mirror-server/target/mirror-server.jar --config "$work/mirror.yaml" \
  > "$work/mirror.out" 2> "$work/mirror.log" &
mirror=$!
pids+=("$mirror")
until curl -sk -o /dev/null "https://127.0.0.1:$MIRROR_PORT/healthz"; do
  kill -0 "$mirror" 2>/dev/null || { echo "bench: the mirror did not start:" >&2; cat "$work/mirror.log" >&2; exit 1; }
  sleep 0.01
done
startup_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))

mirror_base="https://127.0.0.1:$MIRROR_PORT/providers"
nginx_base="https://127.0.0.1:$NGINX_PORT/providers"
origin_base="https://127.0.0.1:$ORIGIN_PORT"
provider_path() { echo "example.test/acme/$1"; }
archive_name() { echo "terraform-provider-$1_1.0.0_linux_amd64.zip"; }

echo "bench: warming the mirror and copying what it serves into nginx's tree"
for type in small large; do
  dir="$work/www/providers/$(provider_path "$type")"
  mkdir -p "$dir"
  for file in index.json 1.0.0.json "$(archive_name "$type")"; do
    curl -sfk -o "$dir/$file" "$mirror_base/$(provider_path "$type")/$file"
  done
done
chmod -R a+rX "$work/www"

mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
daemon off;
events { worker_connections 4096; }
http {
  access_log $work/nginx/access.log;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  types { application/json json; application/zip zip; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$NGINX_PORT ssl;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    root $work/www;
  }
}
NGINX
"$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" > "$work/nginx/stdout.log" 2>&1 &
pids+=($!)
until curl -sfk -o /dev/null "$nginx_base/$(provider_path small)/index.json"; do sleep 0.05; done

# wrk against one URL; prints "<req/s> <MB/s> <p99 ms>" and fails on any non-2xx or socket error.
measure() {
  local url=$1 connections=$2 duration=$3 out
  out=$(wrk -t2 -c"$connections" -d"$duration" --timeout 30s -s bench/report.lua "$url" | grep '^RESULT')
  read -r _ requests bytes micros p99 non2xx socket <<< "$out"
  if [ "$non2xx" -ne 0 ] || [ "$socket" -ne 0 ]; then
    echo "bench: FAILED: $url: $non2xx non-2xx responses, $socket socket errors" >&2
    exit 1
  fi
  awk -v r="$requests" -v b="$bytes" -v us="$micros" -v p="$p99" \
    'BEGIN { printf "%.0f %.1f %.2f\n", r / (us / 1e6), b / (us / 1e6) / 1e6, p / 1000 }'
}

rows=()
scenario() {
  local name=$1 path=$2 connections=$3
  echo "bench: $name ($connections connections, $DURATION each, after $WARMUP of warm-up)"
  measure "$mirror_base/$path" "$connections" "$WARMUP" > /dev/null
  measure "$nginx_base/$path" "$connections" "$WARMUP" > /dev/null
  local m n
  m=$(measure "$mirror_base/$path" "$connections" "$DURATION")
  n=$(measure "$nginx_base/$path" "$connections" "$DURATION")
  rows+=("$name|$connections|$m|$n")
}
scenario "warm index.json" "$(provider_path small)/index.json" 64
scenario "warm version document" "$(provider_path small)/1.0.0.json" 64
scenario "warm small archive ($((SMALL_BYTES / 1000)) kB)" "$(provider_path small)/$(archive_name small)" 16
scenario "warm large archive ($((LARGE_BYTES / 1000000)) MB)" "$(provider_path large)/$(archive_name large)" 4

# Cold: an archive the mirror has never fetched (its version document already asked for, as the CLI does),
# once straight from the origin and once through the mirror, which fetches, hashes and stores it meanwhile.
# The first COLD_WARMUP are not counted: they warm the JIT on the fetching path, as a mirror that has been
# running for a while has it.
echo "bench: cold archives ($COLD_RUNS runs of $((LARGE_BYTES / 1000000)) MB, after $COLD_WARMUP not counted)"
cold=()
for i in $(seq 1 $((COLD_WARMUP + COLD_RUNS))); do
  type="largecold$i-$RANDOM"
  curl -sfk -o /dev/null "$origin_base/v1/providers/acme/$type/1.0.0/download/linux/amd64"
  curl -sfk -o /dev/null "$mirror_base/$(provider_path "$type")/index.json"
  curl -sfk -o /dev/null "$mirror_base/$(provider_path "$type")/1.0.0.json"
  o=$(curl -sfk -o /dev/null -w '%{time_starttransfer} %{speed_download}' "$origin_base/files/$type/$(archive_name "$type")")
  m=$(curl -sfk -o /dev/null -w '%{time_starttransfer} %{speed_download}' "$mirror_base/$(provider_path "$type")/$(archive_name "$type")")
  [ "$i" -gt "$COLD_WARMUP" ] && cold+=("$o $m")
  rm -f "$work/origin/files/terraform-provider-$type"_*
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cold_o_ttfb=$(printf '%s\n' "${cold[@]}" | awk '{ print $1 * 1000 }' | median)
cold_o_mbs=$(printf '%s\n' "${cold[@]}" | awk '{ print $2 / 1e6 }' | median)
cold_m_ttfb=$(printf '%s\n' "${cold[@]}" | awk '{ print $3 * 1000 }' | median)
cold_m_mbs=$(printf '%s\n' "${cold[@]}" | awk '{ print $4 / 1e6 }' | median)

peak_rss_kib=$(awk '/VmHWM/ { print $2 }' "/proc/$mirror/status")
grep -q 'network:' "$work/mirror.log" && network=$(grep -m1 -o 'network: .*' "$work/mirror.log") || network="network: ?"

{
  echo
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "mirror:  $(java -version 2>&1 | head -1), $MIRROR_JAVA_OPTS, $network"
  echo "nginx:   $("$NGINX" -v 2>&1 | cut -d/ -f2), worker_processes auto, sendfile on; wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), 2 threads"
  echo "TLS:     both with the same P-256 certificate; wrk negotiates TLS 1.3"
  echo
  echo "| scenario | connections | mirror req/s | nginx req/s | mirror/nginx | mirror MB/s | nginx MB/s | mirror p99 ms | nginx p99 ms |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for row in "${rows[@]}"; do
    IFS='|' read -r name connections m n <<< "$row"
    read -r mr mmb mp <<< "$m"
    read -r nr nmb np <<< "$n"
    awk -v name="$name" -v c="$connections" -v mr="$mr" -v nr="$nr" -v mmb="$mmb" -v nmb="$nmb" -v mp="$mp" -v np="$np" \
      'BEGIN { printf "| %s | %s | %s | %s | **%.2fx** | %s | %s | %s | %s |\n", name, c, mr, nr, mr / nr, mmb, nmb, mp, np }'
  done
  echo
  echo "| cold archive ($((LARGE_BYTES / 1000000)) MB, median of $COLD_RUNS) | time to first byte ms | MB/s |"
  echo "| --- | ---: | ---: |"
  printf '| straight from the origin | %.1f | %.1f |\n' "$cold_o_ttfb" "$cold_o_mbs"
  printf '| through the mirror (fetching, hashing, storing) | %.1f | %.1f |\n' "$cold_m_ttfb" "$cold_m_mbs"
  awk -v ot="$cold_o_ttfb" -v mt="$cold_m_ttfb" -v ob="$cold_o_mbs" -v mb="$cold_m_mbs" \
    'BEGIN { printf "| mirror - origin | %+.1f ms | %.2fx |\n", mt - ot, mb / ob }'
  echo
  echo "mirror start-up to first answered request: $startup_ms ms; peak RSS: $((peak_rss_kib / 1024)) MiB"
} | tee "$work/results.md"
echo "bench: results in $work/results.md; logs in $work"
