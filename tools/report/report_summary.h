// Which runs a study's charts compare, under which labels, and the summary that opens the report:
// per operation the run with the lowest p50 and the lowest p99, and its margin over the next best.

#pragma once

#include <string>
#include <vector>

#include "tools/report/results_model.h"

namespace mmreplay::report {

// The runs compared side by side: all runs, or for a scale study each policy's run at its largest
// core count. Labels are policy names, with "#N" (the run number) added where a policy repeats.
struct Compared {
  std::vector<const RunData*> runs;
  std::vector<std::string> labels;
  std::vector<std::string> policies;  // distinct, in order of first appearance
  uint32_t cpus = 0;                  // scale studies: the core count compared
};

Compared compared_runs(const StudyData& study);

// One winner: the best label, its value, and the runner-up (empty when there is one run).
struct Win {
  std::string best;
  double value = 0;
  std::string next;
  double next_value = 0;
  bool tie = false;  // best and runner-up equal
};

struct SummaryRow {
  std::string what;  // "op fault", "throughput"
  uint64_t samples = 0;
  Win p50;  // for throughput: the highest ops/s
  Win p99;
};

// Operations with samples in some run, then throughput.
std::vector<SummaryRow> summarize(const Compared& compared);

// "1.85x lower than free (2.1 µs)", "tie", "only run" (for the report's table).
std::string margin_text(const Win& w, bool higher_is_better);

}  // namespace mmreplay::report
