#include "tools/report/percentile_curve.h"

#include <algorithm>
#include <cmath>

namespace mmreplay::report {
namespace {

constexpr double kMinEdge = 1e4;  // 99.99%, the last label the report promises
constexpr double kMaxEdge = 1e6;  // 99.9999%

// The value a bucket reports: its top, but never above the recorded maximum.
double reported(const BucketData& b, const HistogramData& h) {
  return static_cast<double>(std::min(b.high, h.max_ns));
}

}  // namespace

double percentile_x(double p, double edge) {
  if (p >= 1.0) return edge;
  return std::min(edge, 1.0 / (1.0 - p));
}

std::vector<Point> percentile_curve(const HistogramData& h, double edge) {
  std::vector<Point> points;
  if (h.count == 0) return points;
  const double total = static_cast<double>(h.count);
  uint64_t cumulative = 0;
  for (const BucketData& b : h.buckets) {
    if (b.count == 0) continue;
    const double from = percentile_x(static_cast<double>(cumulative) / total, edge);
    cumulative += b.count;
    const double to = percentile_x(static_cast<double>(cumulative) / total, edge);
    const double y = reported(b, h);
    points.push_back({from, y});
    points.push_back({to, y});
    if (to >= edge) break;
  }
  return points;
}

std::vector<Point> percentile_marks(const HistogramData& h, const std::vector<double>& percentiles,
                                    double edge) {
  std::vector<Point> marks;
  if (h.count == 0) return marks;
  const double total = static_cast<double>(h.count);
  for (double p : percentiles) {
    const auto needed = static_cast<uint64_t>(std::ceil(p * total));
    uint64_t cumulative = 0;
    for (const BucketData& b : h.buckets) {
      cumulative += b.count;
      if (cumulative >= std::max<uint64_t>(needed, 1)) {
        marks.push_back({percentile_x(p, edge), reported(b, h)});
        break;
      }
    }
  }
  return marks;
}

double percentile_edge(uint64_t max_count) {
  const double want = std::pow(10.0, std::ceil(std::log10(std::max<double>(1, max_count))));
  return std::clamp(want, kMinEdge, kMaxEdge);
}

}  // namespace mmreplay::report
