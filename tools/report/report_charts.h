// The report's charts, each an <svg> string: latency percentile curves, lock contention and
// counters as grouped bars with ratios to the first series, and for scale studies throughput and
// p99 against core count with ideal linear scaling drawn. Series i always takes series_style(i),
// so a policy keeps its colour, dash and marker across every chart of a study.

#pragma once

#include <string>
#include <vector>

#include "tools/report/results_model.h"

namespace mmreplay::report {

// One line on a latency chart: a label (the policy) and its histogram (may be empty).
struct LatencySeries {
  std::string label;
  const HistogramData* histogram;
};

// "1 us", "250 ns", "1.5 ms": latency in the adaptive unit, as tick labels want it.
std::string latency_label(double ns);

// The percentile plot: one step curve per series on a log latency axis and the 1/(1-p) axis.
std::string percentile_chart(const std::string& title, const std::vector<LatencySeries>& series);

// Contended acquisitions, acquisitions and cache-line bounces of one lock, one bar per run.
std::string lock_counts_chart(const std::string& lock, const std::vector<std::string>& labels,
                              const std::vector<const RunData*>& runs);

// Every counter that is non-zero in some run, one bar per run, with its ratio to the first run.
std::string counters_chart(const std::vector<std::string>& labels,
                           const std::vector<const RunData*>& runs);

// Scale studies: throughput against CPUs per policy, ideal linear scaling from each policy's
// smallest core count drawn dotted. `policies` gives the legend order.
std::string scale_throughput_chart(const StudyData& study,
                                   const std::vector<std::string>& policies);

// Scale studies: p99 latency of `op` against CPUs per policy.
std::string scale_p99_chart(const StudyData& study, const std::vector<std::string>& policies,
                            const std::string& op);

// "1.52x", "=" (both zero), "new" (the base is zero).
std::string ratio_text(double value, double base);

}  // namespace mmreplay::report
