// Summaries of repeated measurements: median and the p10-p90 spread, in nanoseconds.

#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mmreplay::tools::calibrate {

struct Spread {
  double median = 0;
  double p10 = 0;
  double p90 = 0;
  size_t samples = 0;
};

// Median and p10/p90 (nearest rank) of `samples`; all zero when empty.
Spread summarize(std::vector<double> samples);

// t(n) = intercept + slope * n through the medians of the times measured at two sizes (medians
// first: a preempted repetition moves one sample, not the line). The p10-p90 spreads are those
// of the per-repetition lines. REQUIRES: t_few.size() == t_many.size(), n_few < n_many.
struct LineFit {
  Spread slope;
  Spread intercept;
};
LineFit fit_line(const std::vector<double>& t_few, size_t n_few, const std::vector<double>& t_many,
                 size_t n_many);

// median(a) - median(b), with the spread of the per-repetition differences.
Spread difference(const std::vector<double>& a, const std::vector<double>& b);

// Nanoseconds on CLOCK_MONOTONIC, and how many make a second.
uint64_t now_ns();
// Busy-waits `ns` on CLOCK_MONOTONIC: this CPU stays busy while a partner's idles.
void spin_for(uint64_t ns);
// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in ns.
uint64_t thread_cpu_ns();
inline constexpr double kNsPerSecond = 1e9;

}  // namespace mmreplay::tools::calibrate
