// The HTML report (trace-replay report, and --report on compare and scale): one self-contained
// file, no scripts, no fonts, no network, inline CSS that prints well. For each results file a
// summary table (which policy wins each operation at p50 and p99, and by how much), then per
// operation a percentile plot, per contended lock its wait percentiles and counts, the counters
// as bars with ratios, and for scale studies throughput and p99 against core count.
// The page depends only on the results: the same files give the same bytes.

#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "tools/report/results_model.h"

namespace mmreplay::report {

// REQUIRES: every study has at least one run.
std::string build_report(const std::vector<StudyData>& studies);

// Loads every file in `inputs`, builds the report and writes it to `output`. Errors name the file.
Status write_report(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace mmreplay::report
