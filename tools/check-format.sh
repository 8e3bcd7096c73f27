#!/usr/bin/env bash
# Checks every C++ source of the tree against the project's .clang-format (what .ci/run runs).
#   bash tools/check-format.sh          # report files that differ, exit 1 if any
#   bash tools/check-format.sh --fix    # rewrite them in place
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cc' '*.hpp')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/check-format.$$; then
  grep -oE '^[^ :]+:[0-9]+:[0-9]+: error' /tmp/check-format.$$ | cut -d: -f1 | sort -u |
    sed 's/^/needs clang-format: /'
  echo "check-format: $(grep -c 'error:' /tmp/check-format.$$) findings; run: bash tools/check-format.sh --fix"
  rm -f /tmp/check-format.$$
  exit 1
fi
rm -f /tmp/check-format.$$
echo "check-format: ${#files[@]} files clean"
