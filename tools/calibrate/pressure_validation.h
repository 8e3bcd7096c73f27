// trace-replay validate --real --pressure: seed 000's madv-bomb on this machine, under a memory
// cgroup smaller than the processes' memory and with swap, once with MADV_DONTNEED and once with
// MADV_FREE; then the same workload (gen madv-bomb) replayed by the model on this machine's CPUs
// with the same limit and swap. Prints native against predicted wall time, CPU time (user +
// system), faults, swap-outs, swap-ins and lazily freed pages for each advice, and the free arm
// against the dontneed arm on both sides.
//
// Root, a memory cgroup controller and a swap area (one is made in the work folder when none is
// active) are needed; without them the run is skipped with the reason, and that is not a failure.

#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "tools/calibrate/madv_bomb_runs.h"

namespace mmreplay::tools::calibrate {

struct PressureValidationOptions {
  std::string profile = "default";  // a built-in name or a .json file (calibrate -o)
  // A policy with memcg off (the defaults) gets memcg=page_counter: the limit needs one. The
  // native runs are this machine's kernel, so the model runs as it (replay/running_kernel.h), as
  // calibrate --reclaim fits it (reclaim_fit.h).
  std::string policy = "running-kernel";
  MadvBombShape shape;
  uint64_t swap_file_bytes = uint64_t{1} << 30;  // made only when no swap is active
  std::string work_dir;                          // empty = a fresh folder under /var/tmp
  std::string json_path;                         // write the figures here too ("" = no)
};

// One advice's figures, native and predicted.
struct PressureArm {
  std::string advice;  // "dontneed" or "free"
  BombFigures native, model;
};

struct PressureValidationResult {
  bool skipped = false;
  std::string skip_reason;
  std::vector<PressureArm> arms;
};

// Ok when done or skipped (the reason on `out` and in `result`); InvalidArgument for a bad
// profile or policy; else the error of the generation or replay that failed.
Status run_pressure_validation(const PressureValidationOptions& o, std::ostream& out,
                               PressureValidationResult* result);

}  // namespace mmreplay::tools::calibrate
