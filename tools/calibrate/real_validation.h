// trace-replay validate --real: record a few small programs on this machine through
// `trace-replay record --ground-truth`, replay each recording with a cost profile, and print the
// observed syscall latencies (perf's enter/exit pairs) beside the model's, as p50/p90/p99 per
// operation. Each program also runs once untraced with its calls timed from user space
// (real_programs.h), so that a call's own cost stands beside what it took under the recorder.
// Page faults carry no observed duration (one tracepoint per fault): only counts.
//
// Recording needs perf and permission to use tracepoints; without them the run is skipped with
// the recorder's message, and that is not a failure.

#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "replay/run.h"

namespace mmreplay::tools::calibrate {

struct RealValidationOptions {
  std::string trace_replay;         // the trace-replay binary that records and runs the programs
  std::string profile = "default";  // a built-in name or a .json file (calibrate -o)
  std::string policy = "default";
  std::vector<std::string> programs;  // empty = real_program_names()
  std::string work_dir;               // empty = a fresh folder under /tmp, removed at the end
};

// A run's spec for `profile` (a built-in name or a .json file, checked here) and `policy`
// (resolved): InvalidArgument naming whichever is bad.
Status resolve_real_run(const std::string& profile, const std::string& policy,
                        replay::RunSpec* spec);

// Ok when done, or skipped because recording is unavailable here (it says so on `out`);
// InvalidArgument for a bad profile, policy or program name; else the error of the recording or
// replay that failed, its message naming the program.
Status run_real_validation(const RealValidationOptions& o, std::ostream& out);

}  // namespace mmreplay::tools::calibrate
