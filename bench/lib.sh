# Shared by the bench scripts (sourced, not run): building, and starting the signed fake origin.

# PIN_CORES=1: the servers measured (the mirror, a baseline, nginx) run on CPU 1 only, and what loads them (the
# origin, S3Proxy, wrk, curl) on CPU 0 only (taskset), as when origin and clients are other machines: the mirror's
# cold throughput is then its own, not what is left of two cores shared with the origin's TLS and curl's.
# taskset execs the command, so a server's pid (for its CPU time) is the server's own.
SERVER_CPUS=()
CLIENT_CPUS=()
if [ "${PIN_CORES:-0}" = 1 ]; then
  SERVER_CPUS=(taskset -c 1)
  CLIENT_CPUS=(taskset -c 0)
fi

# build_all WORK: packages every module (tests skipped) and writes mirror-testkit's classpath to WORK/classpath.txt.
# Nothing goes into ~/.m2 (no install): the reactor resolves the modules from their target/ directories, in the
# same invocation, so a bench never picks up, nor leaves behind, another worktree's build.
build_all() {
  mvn -B -q package -DskipTests dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt > /dev/null
  cp mirror-testkit/target/bench-classpath.txt "$1/classpath.txt"
}

# fetch_async_profiler WORK VERSION: async-profiler's native library from Maven Central
# (tools.profiler:async-profiler, which ships it) unpacked into WORK; prints its path, for -agentpath.
fetch_async_profiler() {
  mvn -B -q dependency:copy -Dartifact="tools.profiler:async-profiler:$2:jar:linux-x64" -DoutputDirectory="$1" > /dev/null \
    || return 1
  (cd "$1" && unzip -q -o "async-profiler-$2-linux-x64.jar" linux-x64/libasyncProfiler.so) || return 1
  echo "$1/linux-x64/libasyncProfiler.so"
}

# start_bench_origin WORK SMALL_BYTES LARGE_BYTES DELAY_MS: starts BenchOrigin in WORK/origin, adds its pid to
# the caller's pids, waits until it is ready and sources its origin.env (DISCOVERY_URL, ORIGIN_CA, ORIGIN_PORT).
start_bench_origin() {
  local work=$1
  # TCP_NODELAY on the origin's sockets (the JDK's HttpServer leaves Nagle on): else each answer written in two parts
  # waits for the client's delayed ACK, 40 ms per origin request, which no real registry's CDN makes anyone wait.
  "${CLIENT_CPUS[@]}" java -Xmx1g -Dsun.net.httpserver.nodelay=true -cp "mirror-testkit/target/classes:$(cat "$work/classpath.txt")" io.providermirror.testkit.BenchOrigin \
    "$work/origin" "$2" "$3" "$4" > "$work/origin.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 240); do [ -f "$work/origin/origin.env" ] && break; sleep 0.5; done
  [ -f "$work/origin/origin.env" ] || { echo "the bench origin did not start:" >&2; cat "$work/origin.log" >&2; exit 1; }
  # shellcheck disable=SC1091
  source "$work/origin/origin.env"
}

# --- Side by side with nginx (compare.sh, profile.sh) -------------------------------------------------------

# install_missing: Debian's nginx, wrk, openssl and curl, when missing.
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

# require_free_ports PORT...: fails when something listens on one of them already.
require_free_ports() {
  local port
  for port in "$@"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "bench: port $port is in use (set MIRROR_PORT / NGINX_PORT / BASELINE_PORT, or stop what listens there)" >&2
      exit 1
    fi
  done
}

# make_certificate WORK: one P-256 certificate (WORK/cert.pem, WORK/key.pem) for every server, so all do the
# same TLS work.
make_certificate() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$1/key.pem" -out "$1/cert.pem" 2>/dev/null
  chmod 644 "$1/key.pem"
}

# await_answer PID URL WHAT LOG PAUSE: waits until URL answers 2xx-3xx (tried every PAUSE seconds); fails, with
# LOG, if the process PID (WHAT, for the message) ends first.
await_answer() {
  until curl -sfk -o /dev/null "$2"; do
    kill -0 "$1" 2>/dev/null || { echo "bench: $3 did not start:" >&2; cat "$4" >&2; exit 1; }
    sleep "$5"
  done
}

# start_mirror WORK NAME JAR PORT JAVA_OPTS: starts the mirror from JAR over TLS with WORK's certificate and its
# own cache (WORK/NAME-cache), waits until it answers, and sets STARTED_PID and STARTUP_MS (start to first
# answered request). Its log is WORK/NAME.log.
start_mirror() {
  local work=$1 name=$2 jar=$3 port=$4 opts=$5 start_ns
  cat > "$work/$name.yaml" <<YAML
server:
  host: 127.0.0.1
  port: $port
  tls:
    certificate: $work/cert.pem
    privateKey: $work/key.pem
cache:
  directory: $work/$name-cache
${MIRROR_CACHE_EXTRA:-}
upstream:
  trustedCertificates: $ORIGIN_CA
  hosts:
    example.test:
      discoveryUrl: $DISCOVERY_URL
YAML
  start_ns=$(date +%s%N)
  # shellcheck disable=SC2086
  "${SERVER_CPUS[@]}" java $opts -jar "$jar" --config "$work/$name.yaml" > "$work/$name.out" 2> "$work/$name.log" &
  STARTED_PID=$!
  pids+=("$STARTED_PID")
  await_answer "$STARTED_PID" "https://127.0.0.1:$port/healthz" "the mirror ($name)" "$work/$name.log" 0.01
  STARTUP_MS=$(( ($(date +%s%N) - start_ns) / 1000000 ))
}

# start_s3proxy WORK PORT: S3Proxy (the jar the build copies to <module>/target/s3proxy/) on 127.0.0.1:PORT with its
# filesystem-nio2 backend and a bucket "provider-mirror"; sets MIRROR_CACHE_EXTRA (the cache.s3 block, indented
# for start_mirror) and exports the AWS credentials it accepts.
start_s3proxy() {
  local work=$1 port=$2
  mkdir -p "$work/s3/data/provider-mirror"
  cat > "$work/s3/s3proxy.properties" <<PROPS
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=local-identity
s3proxy.credential=local-credential
jclouds.provider=filesystem-nio2
jclouds.filesystem.basedir=$work/s3/data
PROPS
  local jar
  jar=$(find . -path '*/target/s3proxy/s3proxy.jar' -print -quit)
  [ -n "$jar" ] || { echo "bench: no S3Proxy jar under */target/s3proxy/ (the build copies it)" >&2; exit 1; }
  "${CLIENT_CPUS[@]}" java -Xmx256m -jar "$jar" --properties "$work/s3/s3proxy.properties" > "$work/s3/s3proxy.log" 2>&1 &
  pids+=($!)
  until curl -s -o /dev/null "http://127.0.0.1:$port/"; do sleep 0.1; done
  export AWS_ACCESS_KEY_ID=local-identity AWS_SECRET_ACCESS_KEY=local-credential AWS_REGION=us-east-1
  MIRROR_CACHE_EXTRA="  s3: {endpoint: 'http://127.0.0.1:$port', bucket: provider-mirror, region: us-east-1, pathStyleAccess: true}"
}

# store_requests PORT: every request the mirror at PORT has made to its bucket so far (from /metrics).
store_requests() {
  curl -sfk "https://127.0.0.1:$1/metrics" \
    | awk '/^mirror_store_requests_seconds_count/ { n += $NF } END { printf "%d\n", n }'
}

# store_operations PORT: the mirror's bucket requests so far by operation and outcome (from /metrics), one
# "<operation>:<outcome> <requests> <seconds>" a line, sorted.
store_operations() {
  curl -sfk "https://127.0.0.1:$1/metrics" | awk '
    /^mirror_store_requests_seconds_(count|sum)\{/ {
      match($0, /operation="[^"]*"/); operation = substr($0, RSTART + 11, RLENGTH - 12)
      match($0, /outcome="[^"]*"/); outcome = substr($0, RSTART + 9, RLENGTH - 10)
      if ($0 ~ /_count\{/) n[operation ":" outcome] = $NF; else s[operation ":" outcome] = $NF
    }
    END { for (k in n) printf "%s %d %.6f\n", k, n[k], s[k] }' | sort
}

# operations_delta BEFORE AFTER: what AFTER (store_operations' lines) adds to BEFORE, as
# "<operation>:<outcome> <requests> <seconds>" lines for the operations that grew.
operations_delta() {
  awk 'NR == FNR { n[$1] = $2; s[$1] = $3; next } $2 > n[$1] { printf "%s %d %.6f\n", $1, $2 - n[$1], $3 - s[$1] }' "$1" "$2"
}

provider_path() { echo "example.test/acme/$1"; }
face_path() { echo "registry/example.test/providers.v1/acme/$1"; }
archive_name() { echo "terraform-provider-$1_1.0.0_linux_amd64.zip"; }
# The module the module scenarios ask for (BenchOrigin publishes every example.test/acme/<name>/<system> at 1.0.0).
module_path() { echo "registry/example.test/modules.v1/acme/network/aws"; }

# warm_mirror BASE [TREE]: asks the mirror at BASE (https://.../providers) for the small and the large provider's
# index.json, version document and archive, the providers.v1 face's answers and the module's versions, download
# and archive, so all are warm; with TREE, keeps what it served there, as the static tree nginx serves, and writes
# TREE.locations: the nginx location that answers the module's download as the mirror does (204, no body, the
# mirror's own X-Terraform-Get and X-Cache headers, byte for byte).
warm_mirror() {
  local base=$1 tree=${2:-} type file dir headers
  for type in small large; do
    dir="${tree:-/tmp}/providers/$(provider_path "$type")"
    [ -n "$tree" ] && mkdir -p "$dir"
    for file in index.json 1.0.0.json "$(archive_name "$type")"; do
      if [ -n "$tree" ]; then
        curl -sfk -o "$dir/$file" "$base/$(provider_path "$type")/$file"
      else
        curl -sfk -o /dev/null "$base/$(provider_path "$type")/$file"
      fi
    done
  done
  # The providers.v1 face's answers for the small provider, and the module's versions and archive (the download,
  # asked first as the CLI does, starts the archive's fetch; the archive request follows it), kept at the same
  # paths for nginx.
  curl -sfk -o /dev/null "${base%/providers}/$(module_path)/1.0.0/download"
  for file in "$(face_path small)/versions" "$(face_path small)/1.0.0/download/linux/amd64" \
    "$(module_path)/versions" "$(module_path)/1.0.0/module.tar.gz"; do
    if [ -n "$tree" ]; then
      mkdir -p "$tree/$(dirname "$file")"
      curl -sfk -o "$tree/$file" "${base%/providers}/$file"
    else
      curl -sfk -o /dev/null "${base%/providers}/$file"
    fi
  done
  if [ -n "$tree" ]; then
    local get cache
    # The download answer once the archive is cached (X-Cache: HIT), as every warm request gets it.
    headers=$(curl -sfk -D - -o /dev/null "${base%/providers}/$(module_path)/1.0.0/download" | tr -d '\r')
    get=$(awk -F': ' 'tolower($1) == "x-terraform-get" { print $2 }' <<< "$headers")
    cache=$(awk -F': ' 'tolower($1) == "x-cache" { print $2 }' <<< "$headers")
    [ -n "$get" ] || { echo "bench: the mirror's module download has no X-Terraform-Get:" >&2; echo "$headers" >&2; exit 1; }
    cat > "$tree.locations" <<NGINX
location = /$(module_path)/1.0.0/download {
  add_header X-Terraform-Get "$get" always;
  add_header X-Cache "$cache" always;
  return 204;
}
NGINX
    chmod -R a+rX "$tree" "$tree.locations"
  fi
}

# start_nginx WORK PORT: nginx serving WORK/www over TLS with WORK's certificate (sendfile on, access log on,
# one worker per core), until the caller's cleanup stops it (WORK/nginx/nginx.pid); sets NGINX_PID (its master,
# whose children are the workers).
start_nginx() {
  local work=$1 port=$2 nginx
  nginx=$(command -v nginx || echo /usr/sbin/nginx)
  mkdir -p "$work/nginx"
  touch "$work/www.locations"
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
  types { application/json json; application/zip zip; application/gzip gz; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port ssl;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    root $work/www;
    # Answers that are not files (the module download's 204), written by warm_mirror.
    include $work/www.locations;
  }
}
NGINX
  "${SERVER_CPUS[@]}" "$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" > "$work/nginx/stdout.log" 2>&1 &
  NGINX_PID=$!
  pids+=("$NGINX_PID")
  until curl -sfk -o /dev/null "https://127.0.0.1:$port/providers/$(provider_path small)/index.json"; do sleep 0.05; done
}

# start_floor WORK PORT JAVA_OPTS: FloorServer (mirror-bench's benchmarks.jar) over TLS with WORK's certificate,
# answering what nginx serves from WORK/www (and WORK/www.locations) out of memory; sets FLOOR_PID.
start_floor() {
  local work=$1 port=$2 opts=$3 jar=mirror-bench/target/benchmarks.jar
  [ -f "$jar" ] || { echo "bench: no $jar (mvn package builds it)" >&2; exit 1; }
  # shellcheck disable=SC2086
  "${SERVER_CPUS[@]}" java $opts -cp "$jar" io.providermirror.server.http.FloorServer "$port" "$work/cert.pem" \
    "$work/key.pem" "$work/www" "$work/www.locations" > "$work/floor.log" 2>&1 &
  FLOOR_PID=$!
  pids+=("$FLOOR_PID")
  await_answer "$FLOOR_PID" "https://127.0.0.1:$port/providers/$(provider_path small)/index.json" "the floor server" \
    "$work/floor.log" 0.05
}

# stop_nginx WORK: nginx removes its pid file as it exits: no file, nothing left to stop.
stop_nginx() {
  local nginx_pid
  nginx_pid=$(cat "$1/nginx/nginx.pid" 2>/dev/null) && kill "$nginx_pid" 2>/dev/null || true
}

# cpu_ticks PID...: the CPU time (user + system, in clock ticks) the processes PID and their children (nginx's
# workers under its master) have used so far, summed; every thread of a process counts (/proc/<pid>/stat).
cpu_ticks() {
  local pid all=()
  for pid in "$@"; do
    all+=("$pid")
    # shellcheck disable=SC2207
    all+=($(pgrep -P "$pid" || true))
  done
  for pid in "${all[@]}"; do
    # After "(comm) ", field 12 is utime and 13 stime.
    sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null || true
  done | awk '{ n += $12 + $13 } END { printf "%d\n", n }'
}

# wrk_run URL CONNECTIONS DURATION [PID...]: prints "<req/s> <MB/s> <p99 ms> <CPU us per request> <CPU us per MB>"
# (the server's CPU time over the run, of the processes PID and their children, divided by the requests answered,
# and by the MB wrk read, partial answers included: for archives too large to finish many in a round; 0 without
# PID) and fails on any 4xx/5xx or socket error. WRK_THREADS (2) wrk threads.
wrk_run() {
  local url=$1 connections=$2 duration=$3 out requests bytes micros p99 non2xx socket before after
  shift 3
  before=0
  [ $# -eq 0 ] || before=$(cpu_ticks "$@")
  out=$("${CLIENT_CPUS[@]}" wrk -t"${WRK_THREADS:-2}" -c"$connections" -d"$duration" --timeout 30s -s bench/report.lua "$url" | grep '^RESULT')
  after=0
  [ $# -eq 0 ] || after=$(cpu_ticks "$@")
  read -r _ requests bytes micros p99 non2xx socket <<< "$out"
  if [ "$non2xx" -ne 0 ] || [ "$socket" -ne 0 ]; then
    echo "bench: FAILED: $url: $non2xx 4xx/5xx responses, $socket socket errors" >&2
    exit 1
  fi
  awk -v r="$requests" -v b="$bytes" -v us="$micros" -v p="$p99" -v t="$((after - before))" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.0f %.1f %.2f %.1f %.1f\n", r / (us / 1e6), b / (us / 1e6) / 1e6, p / 1000, (r > 0 ? t / hz * 1e6 / r : 0), (b > 0 ? t / hz * 1e6 / (b / 1e6) : 0) }'
}

# median: the median of the numbers on standard input, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# scenario_path NAME: the path below the server's root of a warm scenario (index, version, small, large, the
# providers.v1 face's versions and download answers: face_versions, face_download, and the module registry's:
# module_versions, module_download (a 204 with X-Terraform-Get) and module_archive (the .tar.gz it names)).
scenario_path() {
  case $1 in
    index) echo "providers/$(provider_path small)/index.json" ;;
    version) echo "providers/$(provider_path small)/1.0.0.json" ;;
    small) echo "providers/$(provider_path small)/$(archive_name small)" ;;
    large) echo "providers/$(provider_path large)/$(archive_name large)" ;;
    face_versions) echo "$(face_path small)/versions" ;;
    face_download) echo "$(face_path small)/1.0.0/download/linux/amd64" ;;
    module_versions) echo "$(module_path)/versions" ;;
    module_download) echo "$(module_path)/1.0.0/download" ;;
    module_archive) echo "$(module_path)/1.0.0/module.tar.gz" ;;
    *) echo "bench: unknown scenario $1 (index, version, small, large, face_versions, face_download, module_versions, module_download, module_archive)" >&2; exit 1 ;;
  esac
}

# scenario_connections NAME: wrk's connections for a warm scenario when CONNECTIONS is "default" (as a crowd of
# CLIs would: many for the small documents, fewer for archives); otherwise CONNECTIONS itself (e.g. "32 64": each
# scenario at each).
scenario_connections() {
  if [ "${CONNECTIONS:-default}" != default ]; then
    echo "$CONNECTIONS"
    return
  fi
  case $1 in
    index | version | face_versions | face_download | module_versions | module_download) echo 64 ;;
    small | module_archive) echo 16 ;;
    large) echo 4 ;;
  esac
}
