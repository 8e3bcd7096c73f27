#!/usr/bin/env bash
# Installs the Debian 12 packages mmreplay builds with, skipping those already present.
# Idempotent; uses sudo when not run as root. Used by run-default.sh and run-tests.sh.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config          # toolchain (CMake presets use Ninja)
  libtbb-dev                                # oneTBB: parallel decode and runs side by side
  libcapnp-dev capnproto                    # Cap'n Proto library and schema compiler
  libzstd-dev zstd                          # zstd frames; zstdcat for the standard-tools test
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libtracecmd-dev libtracefs-dev libtraceevent-dev  # trace.dat import (formats/import/trace_cmd.h)
  chromium libpng-dev                       # report test: render the HTML headless, read the PNG
  clang-format                              # tools/check-format.sh (.ci/run): the tree against .clang-format
  linux-perf strace libjemalloc2            # record/import, and tests/real (label real: jemalloc churn)
)
EXTRA=("$@")  # callers may ask for more (e.g. clang for the fuzz preset)

missing=()
for p in "${PACKAGES[@]}" "${EXTRA[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
