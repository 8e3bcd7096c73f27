// Repeating a noisy measurement until it agrees with itself.
//
// A throughput loop run twice on a shared machine gives two figures; a third may be preempted.
// repeat_until_steady() takes samples until `window` of them lie within `tolerance` of each other,
// spread measured as (max - min) / median of those samples, and reports their median. Taking the
// tightest window rather than the last samples drops a preempted outlier instead of restarting.
// It stops at `max_samples` and then reports the tightest window it has, marked not steady.

#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace mmreplay::tools::calibrate {

struct RepeatOptions {
  size_t window = 3;        // samples that must agree (and the fewest taken)
  size_t max_samples = 7;   // the bound
  double tolerance = 0.05;  // (max - min) / median of the window
};

struct Repeated {
  std::vector<double> samples;  // in the order taken
  std::vector<size_t> chosen;   // indices into samples of the tightest window
  double value = 0;             // median of the chosen samples
  double spread = 0;            // (max - min) / median of the chosen samples
  bool steady = false;          // spread < tolerance
};

// (max - min) / median of `values`; 0 for fewer than two values or a zero median.
double relative_spread(std::vector<double> values);

// The tightest window of `o.window` samples (all of them when fewer), and whether it is steady.
Repeated tightest_window(const std::vector<double>& samples, const RepeatOptions& o);

// Calls `measure` until tightest_window() is steady or `o.max_samples` were taken.
// REQUIRES: o.window >= 1, o.max_samples >= o.window.
Repeated repeat_until_steady(const std::function<double()>& measure, const RepeatOptions& o);

}  // namespace mmreplay::tools::calibrate
