#!/usr/bin/env bash
# JMH benchmarks of the hot code (not part of mvn verify, which only builds them): route parsing, the Host
# header's check (HostAuthorityBenchmark, beside the regular expression it replaced), version-document
# rendering, h1: hashing against plain sha256 over the same archive, and what a cold fill does per chunk
# (ArchiveChunkBenchmark: sha256 and the file write from the decrypted buffer, against a copy through an array
# first), URLs redacted in a log line (UrlsBenchmark, beside the regular expression it replaced) and one whole
# access-log line into the text format (AccessLineBenchmark, beside the line as a pattern with arguments).
#
#   bench/jmh.sh                                    # everything, about 6 minutes
#   bench/jmh.sh HashingBenchmark                   # one class (any JMH arguments work)
#   JAVA_OPTS=-Dbench.archive=/path/to/provider.zip bench/jmh.sh HashingBenchmark
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -B -q package -DskipTests  # no install: nothing of this build goes into ~/.m2
out=$(mktemp /tmp/provider-mirror-jmh.XXXXXX)
# shellcheck disable=SC2086
java ${JAVA_OPTS:-} -jar mirror-bench/target/benchmarks.jar ${JAVA_OPTS:+-jvmArgsAppend "$JAVA_OPTS"} "$@" | tee "$out"

# h1: as a share of sha256 over the same archive bytes.
h1=$(awk '/HashingBenchmark.h1:archiveBytes/ { print $(NF-3) }' "$out")
sha=$(awk '/HashingBenchmark.sha256:archiveBytes/ { print $(NF-3) }' "$out")
if [ -n "$h1" ] && [ -n "$sha" ]; then
  awk -v h="$h1" -v s="$sha" 'BEGIN { printf "\nh1: %.0f MB/s, sha256: %.0f MB/s of archive bytes: h1 runs at %.0f%% of sha256\n", h / 1e6, s / 1e6, 100 * h / s }'
fi
echo "full output: $out"
