# Shared by the bench scripts (sourced, not run): building, and starting the signed fake origin.

# build_all WORK: builds every module (tests skipped) and writes mirror-testkit's classpath to WORK/classpath.txt.
# Packages only: installing would put this build into ~/.m2, where other checkouts' builds would pick it up.
build_all() {
  mvn -B -q package -DskipTests
  mvn -B -q -pl mirror-testkit dependency:build-classpath -Dmdep.outputFile="$1/classpath.txt" > /dev/null
}

# start_bench_origin WORK SMALL_BYTES LARGE_BYTES DELAY_MS: starts BenchOrigin in WORK/origin, adds its pid to
# the caller's pids, waits until it is ready and sources its origin.env (DISCOVERY_URL, ORIGIN_CA, ORIGIN_PORT).
start_bench_origin() {
  local work=$1
  java -Xmx1g -cp "mirror-testkit/target/classes:$(cat "$work/classpath.txt")" io.providermirror.testkit.BenchOrigin \
    "$work/origin" "$2" "$3" "$4" > "$work/origin.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 240); do [ -f "$work/origin/origin.env" ] && break; sleep 0.5; done
  [ -f "$work/origin/origin.env" ] || { echo "the bench origin did not start:" >&2; cat "$work/origin.log" >&2; exit 1; }
  # shellcheck disable=SC1091
  source "$work/origin/origin.env"
}
