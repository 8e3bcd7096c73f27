#include "tools/calibrate/sample_stats.h"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace mmreplay::tools::calibrate {
namespace {

constexpr double kP10 = 0.10;
constexpr double kP90 = 0.90;

double nearest_rank(const std::vector<double>& sorted, double q) {
  const double rank = std::ceil(q * static_cast<double>(sorted.size()));
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

Spread summarize(std::vector<double> samples) {
  Spread s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.p10 = nearest_rank(samples, kP10);
  s.p90 = nearest_rank(samples, kP90);
  s.samples = n;
  return s;
}

LineFit fit_line(const std::vector<double>& t_few, size_t n_few, const std::vector<double>& t_many,
                 size_t n_many) {
  const double dn = static_cast<double>(n_many - n_few);
  std::vector<double> slopes, intercepts;
  for (size_t i = 0; i < t_few.size() && i < t_many.size(); ++i) {
    const double slope = (t_many[i] - t_few[i]) / dn;
    slopes.push_back(slope);
    intercepts.push_back(t_few[i] - slope * static_cast<double>(n_few));
  }
  LineFit fit{summarize(slopes), summarize(intercepts)};
  const double few = summarize(t_few).median, many = summarize(t_many).median;
  fit.slope.median = (many - few) / dn;
  fit.intercept.median = few - fit.slope.median * static_cast<double>(n_few);
  return fit;
}

Spread difference(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) d.push_back(a[i] - b[i]);
  Spread s = summarize(d);
  s.median = summarize(a).median - summarize(b).median;
  return s;
}

uint64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void spin_for(uint64_t ns) {
  const uint64_t start = now_ns();
  while (now_ns() - start < ns) {
  }
}

uint64_t thread_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace mmreplay::tools::calibrate
