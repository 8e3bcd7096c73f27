// trace-replay validate --real --throughput: the loops calibrate fits to (throughput_loops.h) run
// untraced on this machine at 1 CPU and at every CPU, the same loops generated with `gen` (or
// built as ops, loop_model.h) and replayed with a cost profile, and native against predicted
// ops/s and TLB IPIs per operation printed side by side with their ratio. Nothing is recorded:
// perf is not needed.

#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "tools/calibrate/throughput_fit.h"

namespace mmreplay::tools::calibrate {

struct ThroughputValidationOptions {
  std::string profile = "default";  // a built-in name or a .json file (calibrate -o)
  ThroughputOptions loops;
  double tolerance = 0.15;  // a ratio outside 1 +- tolerance is counted as off
};

// Ok when it ran (the table and a count of the loops off by more than the tolerance are on
// `out`); InvalidArgument for a bad profile or loop name; else the failure of a loop or replay.
Status run_throughput_validation(const ThroughputValidationOptions& o, std::ostream& out);

}  // namespace mmreplay::tools::calibrate
