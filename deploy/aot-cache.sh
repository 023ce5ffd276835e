#!/bin/sh
# Builds the mirror's AOT cache (JDK 25's class-data archive: classes loaded, parsed and linked, ahead of
# time) by a training run: starts the jar once with -XX:AOTCacheOutput, waits until it answers over TLS,
# asks the management listener for /readyz and /metrics, then stops it with SIGTERM; the JVM writes the
# cache as it exits. The image's build runs this (deploy/Dockerfile) and bench/startup.sh runs exactly
# the same, outside Docker, to measure what it gains.
#
#   aot-cache.sh <jar> <cache file> [java options the mirror will run with...]
#
# The options must be the ones the mirror runs with (the JVM refuses a cache made under other options). Its
# temporary directory is the training's own (java.io.tmpdir): the start-up rehearsal's files, should the stop come
# before it has deleted them, go with the rest and never into the image.
# The training uses a cache directory of its own, removed afterwards; the listener's and the management
# listener's ports are PROVIDER_MIRROR_SERVER_PORT and PROVIDER_MIRROR_MANAGEMENT_PORT (default 8443 and
# 9100). JAVA names the java to use (default: java on PATH).
set -eu

if [ $# -lt 2 ]; then
  echo "usage: aot-cache.sh <jar> <cache file> [java options...]" >&2
  exit 2
fi
jar=$1
cache=$2
shift 2
java=${JAVA:-java}
port=${PROVIDER_MIRROR_SERVER_PORT:-8443}
management=${PROVIDER_MIRROR_MANAGEMENT_PORT:-9100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

PROVIDER_MIRROR_CACHE_DIRECTORY="$work/cache" \
PROVIDER_MIRROR_SERVER_GENERATEDTLS_DIRECTORY="$work/tls" \
PROVIDER_MIRROR_SERVER_PORT="$port" \
PROVIDER_MIRROR_MANAGEMENT_PORT="$management" \
  "$java" "$@" -Djava.io.tmpdir="$work" -XX:AOTCacheOutput="$cache" -jar "$jar" > "$work/mirror.out" 2> "$work/mirror.log" &
mirror=$!

# The image has no curl: the jar's own healthcheck command asks (a JVM start per try, so a try each second).
ask() {
  "$java" -XX:TieredStopAtLevel=1 -Xmx32m -jar "$jar" healthcheck --url "$1" --ca "$work/tls/ca.pem" \
    > /dev/null 2>&1
}
tries=0
until [ -f "$work/tls/ca.pem" ] && ask "https://127.0.0.1:$port/healthz"; do
  if ! kill -0 "$mirror" 2> /dev/null; then
    echo "aot-cache.sh: the training run stopped before it answered:" >&2
    cat "$work/mirror.out" "$work/mirror.log" >&2
    exit 1
  fi
  tries=$((tries + 1))
  if [ "$tries" -gt 120 ]; then
    echo "aot-cache.sh: the training run did not answer within 2 minutes" >&2
    kill "$mirror"
    exit 1
  fi
  sleep 1
done
ask "http://127.0.0.1:$management/readyz"
ask "http://127.0.0.1:$management/metrics"

kill -TERM "$mirror"
wait "$mirror" || true
if [ ! -s "$cache" ]; then
  echo "aot-cache.sh: the JVM wrote no AOT cache to $cache:" >&2
  cat "$work/mirror.out" "$work/mirror.log" >&2
  exit 1
fi
echo "aot-cache.sh: wrote $cache ($(wc -c < "$cache") bytes)"
