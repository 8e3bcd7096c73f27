#!/usr/bin/env bash
# The long fuzz runs of issue 15 (a bench script, not CI): builds the `fuzz` preset (clang,
# libFuzzer, ASan + UBSan), then runs every libFuzzer target for SECONDS (default 600), one after
# the other, each on a scratch copy of its seed corpus, and prints one line per target: name,
# seconds, executions (libFuzzer's stat::number_of_executed_units), exec/s, and the crashes,
# timeouts and OOMs it wrote, with their directory. Exits 1 when any target found one.
#
#   bench/fuzz/run-fuzz.sh [SECONDS]        e.g. nice -n 10 bench/fuzz/run-fuzz.sh 600
#
# FUZZ_BUILD_JOBS=N limits the build's parallelism (default: Ninja's). The scratch directory
# (corpora grown by the runs, logs, artifacts) is kept and named at the end.

set -euo pipefail

seconds=${1:-600}
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds == 0)); then
  echo "usage: $0 [SECONDS]   (whole seconds per target, default 600)" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=build/fuzz

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz ${FUZZ_BUILD_JOBS:+-j"$FUZZ_BUILD_JOBS"}
# fuzz_trace_reader's seeds are generated traces: the fuzz.make_seed_corpus test writes them.
ctest --test-dir "$build" -R '^fuzz\.make_seed_corpus$' --output-on-failure >/dev/null

# name | executable under $build | seed corpus directory | extra libFuzzer flags
# trace_cmd's seeds are assembled in the build tree (committed cuts + the 1.1 MB fixture), and
# its -max_len lets the fixture in whole (libFuzzer's default cap is 1 MiB).
targets=(
  "fuzz_trace_reader|tests/fuzz/fuzz_trace_reader|$build/tests/fuzz/corpus|"
  "fuzz_import_perf_script|tests/fuzz/import/fuzz_import_perf_script|tests/fuzz/import/perf_script_corpus|"
  "fuzz_import_strace|tests/fuzz/import/fuzz_import_strace|tests/fuzz/import/strace_corpus|"
  "fuzz_import_trace_cmd|tests/fuzz/import/fuzz_import_trace_cmd|$build/tests/fuzz/import/trace_cmd_corpus|-max_len=2000000"
  "fuzz_cost_profile_json|tests/fuzz/json/fuzz_cost_profile_json|tests/fuzz/json/cost_profile_corpus|"
  "fuzz_results_json|tests/fuzz/json/fuzz_results_json|tests/fuzz/json/results_corpus|"
)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mmreplay-fuzz.XXXXXX")
found=0
summary=()
for t in "${targets[@]}"; do
  IFS='|' read -r name exe seeds extra <<<"$t"
  if [[ ! -x $build/$exe ]]; then
    # fuzz_import_trace_cmd is built only where libtracecmd is found.
    summary+=("$(printf '%-24s not built (skipped)' "$name")")
    continue
  fi
  dir=$scratch/$name
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp -R "$seeds"/. "$dir/corpus/"
  echo "== $name: ${seconds}s on $(find "$dir/corpus" -type f | wc -l) seeds (log: $dir/log)"
  start=$(date +%s)
  # -timeout: a unit that hangs is a finding too, and must not eat the rest of the budget.
  rc=0
  # shellcheck disable=SC2086
  "$build/$exe" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=60 \
    -artifact_prefix="$dir/artifacts/" $extra "$dir/corpus" >"$dir/log" 2>&1 || rc=$?
  elapsed=$(($(date +%s) - start))
  execs=$(awk '/stat::number_of_executed_units:/ {n = $2} END {print n + 0}' "$dir/log")
  rate=$(awk '/stat::average_exec_per_sec:/ {n = $2} END {print n + 0}' "$dir/log")
  # Findings only: libFuzzer also writes slow-unit-* there, which are not.
  crashes=$(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | wc -l)
  line=$(printf '%-24s %5ss %12s execs %8s exec/s  crashes: %s' "$name" "$elapsed" "$execs" \
    "$rate" "$crashes")
  if ((crashes > 0)); then
    found=1
    line+=" ($dir/artifacts: $(find "$dir/artifacts" -type f -printf '%f '))"
    # The first lines of libFuzzer's report: what went wrong, and where.
    grep -m 3 -E 'ERROR: (libFuzzer|AddressSanitizer|UndefinedBehaviorSanitizer)|runtime error|SUMMARY' \
      "$dir/log" | sed "s|^|   $name: |" || true
  fi
  if ((crashes == 0 && rc != 0)); then
    found=1
    line+=" (libFuzzer exited $rc without an artifact: see $dir/log)"
  fi
  summary+=("$line")
done

echo
echo "fuzz summary (${seconds}s per target; scratch: $scratch)"
printf '%s\n' "${summary[@]}"
exit $found
