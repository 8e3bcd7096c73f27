#!/usr/bin/env bash
# The README's second command: install what is missing, build, and run the default test suite
# (labels unit, integration, fuzz-smoke; validation runs are excluded, see tests/CMakeLists.txt).
#   bash tools/run-tests.sh            # release preset
#   bash tools/run-tests.sh asan       # the same suite under ASan + UBSan
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET="${1:-release}"
JOBS="$(nproc)"

bash tools/install-deps.sh
bash tools/check-format.sh  # the tree against .clang-format (clang-format --dry-run --Werror)
cmake --preset "$PRESET" >/dev/null
cmake --build --preset "$PRESET" -j "$JOBS"
ctest --preset "$PRESET" -j "$JOBS"
