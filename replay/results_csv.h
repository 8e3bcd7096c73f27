// CSV results: one row per (run, operation or lock), with the latency summary in nanoseconds.
//   run,policy,cpus,kind,name,count,mean_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,contentions

#pragma once

#include <ostream>
#include <vector>

#include "replay/run.h"

namespace mmreplay::replay {

void write_csv(std::ostream& out, const std::vector<size_t>& run_index,
               const std::vector<RunResult>& runs);

}  // namespace mmreplay::replay
