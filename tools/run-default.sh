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

# Seed 000 (mm: throttle MADV_FREE): 12 processes x 512 MiB, 5 loops of memset + MADV_FREE on
# 12 CPUs, 3 GiB RAM, 8 GiB swap, all scaled to 1/16 so the processes still want twice the RAM,
# with THP's min_free_kbytes of that machine (45,056 KB) scaled with them, as validate's ci scale
# (1/16, not smaller: at 1/32 the MADV_FREE arm is bimodal, tipped by changes of under 2 ms).
# The thread measured dontneed 48.9 s / free 1:30.7 / free + throttle 36.5 s, and 1,612 /
# 879,585 / 1,878 (free + freeing swapped PTEs) swap-ins; compare the directions and the swap-in
# counters. `trace-replay validate seed-000-madv-free` sets the model's figures beside the
# thread's (tools/validate/seed_000_madv_free.cpp says why this min_free_kbytes).
"$TR" gen madv-bomb --scale 1/16 -o "$OUT/madv-bomb.mmtrace"
"$TR" check "$OUT/madv-bomb.mmtrace"
"$TR" info "$OUT/madv-bomb.mmtrace" | head -12
"$TR" compare "$OUT/madv-bomb.mmtrace" --policy dontneed,free,free-throttled,free-swapped \
  --min-free-kbytes 2816 --profile xeon-2014 --json "$OUT/seed000.json"

# Seed 002 (vector madvise): jemalloc-style purging, one madvise per run vs one vector call.
"$TR" gen jemalloc-purge --threads 12 --loops 2000 --scale small -o "$OUT/jemalloc.mmtrace"
"$TR" gen jemalloc-purge --threads 12 --loops 2000 --scale small --vector on \
  -o "$OUT/jemalloc-vector.mmtrace"
"$TR" compare "$OUT/jemalloc.mmtrace" --policy per-call,broadcast --cpus 12 --json "$OUT/seed002.json"
"$TR" replay "$OUT/jemalloc-vector.mmtrace" --policy vector --cpus 12 --json "$OUT/seed002-vector.json"
echo "results: $OUT/*.json"
