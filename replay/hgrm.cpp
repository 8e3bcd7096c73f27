#include "replay/hgrm.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace mmreplay::replay {
namespace {

constexpr double kNsPerUs = 1000.0;

struct Bucket {
  uint64_t high;
  uint64_t cumulative;
};

std::string row(double value_us, double percentile, uint64_t count, bool last) {
  char buf[96];
  if (last) {
    std::snprintf(buf, sizeof buf, "%12.3f %12.12f %12llu %14s\n", value_us, percentile,
                  static_cast<unsigned long long>(count), "inf");
  } else {
    std::snprintf(buf, sizeof buf, "%12.3f %12.12f %12llu %14.2f\n", value_us, percentile,
                  static_cast<unsigned long long>(count), 1.0 / (1.0 - percentile));
  }
  return buf;
}

}  // namespace

void write_hgrm(std::ostream& out, const kernelsim::Histogram& h) {
  out << "       Value     Percentile TotalCount 1/(1-Percentile)\n\n";
  std::vector<Bucket> buckets;
  uint64_t cumulative = 0;
  size_t nonempty = 0;
  h.for_each_bucket([&](uint64_t, uint64_t high, uint64_t count) {
    cumulative += count;
    buckets.push_back({high, cumulative});
    ++nonempty;
  });
  const uint64_t total = h.count();
  if (total > 0) {
    // Walk percentiles as HdrHistogram does: ticks get finer as they approach 100%.
    size_t b = 0;
    for (int half = 0;; ++half) {
      const double reporting = 1.0 - std::pow(0.5, half);
      const double step = std::pow(0.5, half) / kHgrmTicksPerHalfDistance;
      bool done = false;
      for (int tick = 0; tick < kHgrmTicksPerHalfDistance; ++tick) {
        const double p = reporting + step * tick;
        const auto needed = static_cast<uint64_t>(std::ceil(p * static_cast<double>(total)));
        while (b + 1 < buckets.size() && buckets[b].cumulative < std::max<uint64_t>(needed, 1)) ++b;
        const double actual =
            static_cast<double>(buckets[b].cumulative) / static_cast<double>(total);
        if (buckets[b].cumulative == total) {
          done = true;
          break;
        }
        out << row(static_cast<double>(buckets[b].high) / kNsPerUs, actual, buckets[b].cumulative,
                   false);
      }
      if (done) break;
    }
    out << row(static_cast<double>(h.max()) / kNsPerUs, 1.0, total, true);
  }
  double variance = 0;
  const double mean = h.mean();
  h.for_each_bucket([&](uint64_t low, uint64_t high, uint64_t count) {
    const double mid = (static_cast<double>(low) + static_cast<double>(high)) / 2.0;
    variance += static_cast<double>(count) * (mid - mean) * (mid - mean);
  });
  const double stddev = total > 0 ? std::sqrt(variance / static_cast<double>(total)) : 0.0;
  char footer[256];
  std::snprintf(footer, sizeof footer,
                "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n"
                "#[Max     = %12.3f, Total count    = %12llu]\n"
                "#[Buckets = %12zu, SubBuckets     = %12d]\n",
                mean / kNsPerUs, stddev / kNsPerUs, static_cast<double>(h.max()) / kNsPerUs,
                static_cast<unsigned long long>(total), nonempty, 1 << h.sub_bucket_bits());
  out << footer;
}

}  // namespace mmreplay::replay
