// Terminal tables for compare/scale/replay: per operation and per lock, one row per run with
// count, p50, p90, p99, p99.9, max and mean, and each run's ratio to the first run; counters side
// by side. Times are printed in adaptive units (ns, us, ms, s).

#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "replay/run.h"

namespace mmreplay::replay {

// `labels` names each run in the table (policy, or "policy @ N CPUs").
void print_comparison(std::ostream& out, const std::vector<RunResult>& runs,
                      const std::vector<std::string>& labels);

// Scale table: per run, CPUs, throughput, speed-up over the first run of the same policy,
// p50/p99 of the busiest operation and the most contended lock.
void print_scaling(std::ostream& out, const std::vector<RunResult>& runs);

// "1.23 us".
std::string format_ns(double ns);

}  // namespace mmreplay::replay
