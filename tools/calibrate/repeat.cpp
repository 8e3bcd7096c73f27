#include "tools/calibrate/repeat.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace mmreplay::tools::calibrate {
namespace {

double median_of_sorted(const std::vector<double>& v) {
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

double relative_spread(std::vector<double> values) {
  if (values.size() < 2) return 0;
  std::sort(values.begin(), values.end());
  const double median = median_of_sorted(values);
  if (median == 0) return 0;
  return (values.back() - values.front()) / median;
}

Repeated tightest_window(const std::vector<double>& samples, const RepeatOptions& o) {
  Repeated r;
  r.samples = samples;
  if (samples.empty()) return r;
  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return samples[a] < samples[b]; });
  const size_t w = std::min(std::max<size_t>(o.window, 1), samples.size());
  // Neighbours in sorted order: the tightest window of w samples is w consecutive ones.
  size_t best = 0;
  double best_spread = -1;
  for (size_t start = 0; start + w <= order.size(); ++start) {
    std::vector<double> window;
    for (size_t i = start; i < start + w; ++i) window.push_back(samples[order[i]]);
    const double s = relative_spread(window);
    if (best_spread < 0 || s < best_spread) {
      best_spread = s;
      best = start;
    }
  }
  std::vector<double> window;
  for (size_t i = best; i < best + w; ++i) {
    r.chosen.push_back(order[i]);
    window.push_back(samples[order[i]]);
  }
  r.value = median_of_sorted(window);  // already sorted: order is ascending
  r.spread = best_spread;
  r.steady = w >= o.window && best_spread < o.tolerance;
  return r;
}

Repeated repeat_until_steady(const std::function<double()>& measure, const RepeatOptions& o) {
  assert(o.window >= 1 && o.max_samples >= o.window);
  std::vector<double> samples;
  Repeated r;
  while (samples.size() < o.max_samples) {
    samples.push_back(measure());
    if (samples.size() < o.window) continue;
    r = tightest_window(samples, o);
    if (r.steady) return r;
  }
  return r;
}

}  // namespace mmreplay::tools::calibrate
