#!/usr/bin/env bash
# The README's first command: install what is missing, build (Release), and run the main job on
# the bundled default workload: compare the seed policies on generated seed workloads.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="$(nproc)"

bash tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$JOBS" --target trace-replay

TR=build/release/tools/trace-replay
OUT=build/release/default
mkdir -p "$OUT"

# Seed 000 (mm: throttle MADV_FREE): 12 processes x 512 MiB, 5 loops of memset + MADV_FREE,
# scaled to 1/64. The memory-pressure model (watermarks, reclaim, swap) is not in yet, so the
# machine gets enough memory for every process: this shows what lazy freeing saves in refaults;
# the pressure side of the thread comes with the reclaim model.
"$TR" gen madv-bomb --scale 1/64 -o "$OUT/madv-bomb.mmtrace"
"$TR" check "$OUT/madv-bomb.mmtrace"
"$TR" info "$OUT/madv-bomb.mmtrace" | head -12
"$TR" compare "$OUT/madv-bomb.mmtrace" --policy dontneed,free --memory 1G \
  --json "$OUT/seed000.json"

# Seed 002 (vector madvise): jemalloc-style purging, one madvise per run vs one vector call.
"$TR" gen jemalloc-purge --threads 12 --loops 2000 --scale small -o "$OUT/jemalloc.mmtrace"
"$TR" gen jemalloc-purge --threads 12 --loops 2000 --scale small --vector on \
  -o "$OUT/jemalloc-vector.mmtrace"
"$TR" compare "$OUT/jemalloc.mmtrace" --policy per-call,broadcast --cpus 12 --json "$OUT/seed002.json"
"$TR" replay "$OUT/jemalloc-vector.mmtrace" --policy vector --cpus 12 --json "$OUT/seed002-vector.json"
echo "results: $OUT/*.json"
