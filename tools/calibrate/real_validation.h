// trace-replay validate --real: record a few small programs on this machine through
// `trace-replay record --ground-truth`, replay each recording with a cost profile, and print the
// observed syscall latencies (perf's enter/exit pairs) beside the model's, as p50/p90/p99 per
// operation. Page faults carry no observed duration (one tracepoint per fault): only counts.
//
// Recording needs perf and permission to use tracepoints; without them the run is skipped with
// the recorder's message, and that is not a failure.

#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mmreplay::tools::calibrate {

struct RealValidationOptions {
  std::string trace_replay;         // the trace-replay binary that records and runs the programs
  std::string profile = "default";  // a built-in name or a .json file (calibrate -o)
  std::string policy = "default";
  std::vector<std::string> programs;  // empty = real_program_names()
  std::string work_dir;               // empty = a fresh folder under /tmp, removed at the end
};

// Exit code: 0 (done, or skipped because recording is unavailable), 1 (a run failed),
// 2 (bad profile, policy or program name; one line on `err`).
int run_real_validation(const RealValidationOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mmreplay::tools::calibrate
