#!/usr/bin/env bash
# The README's first command: install what is missing, build (Release), and run the main job on
# the bundled default workload. Until the replay engine lands the main job is: generate the
# seed-000 workload (MADV_FREE bomb) at a scale that replays in seconds, verify it, describe it.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="$(nproc)"

bash tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$JOBS" --target trace-replay

TR=build/release/tools/trace-replay
OUT=build/release/default
mkdir -p "$OUT"
TRACE="$OUT/madv-bomb.mmtrace"
# Seed 000 (mm: throttle MADV_FREE): 12 processes x 512 MiB, 5 loops; scaled to 1/64.
"$TR" gen madv-bomb --scale 1/64 -o "$TRACE"
"$TR" check "$TRACE"
"$TR" info "$TRACE"
