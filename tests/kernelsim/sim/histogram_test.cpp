#include "kernelsim/sim/histogram.h"

#include <gtest/gtest.h>

namespace mmreplay::kernelsim {
namespace {

TEST(HistogramTest, SmallValuesAreExact) {
  Histogram h;
  for (uint64_t v = 0; v < 100; ++v) h.record(v);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 99u);
  EXPECT_EQ(h.percentile(50), 49u);
  EXPECT_EQ(h.percentile(100), 99u);
}

TEST(HistogramTest, LargeValuesKeepRelativePrecision) {
  Histogram h;
  for (uint64_t v = 1; v <= 1'000'000; v += 7) h.record(v * 1000);
  const double p99 = static_cast<double>(h.percentile(99));
  EXPECT_NEAR(p99, 0.99e9, 0.99e9 / 100);  // within 1% (7 sub-bucket bits: 0.8%)
  EXPECT_EQ(h.max(), 1'000'000'000u);
}

TEST(HistogramTest, MergeAddsBuckets) {
  Histogram a, b, all;
  for (uint64_t v = 0; v < 5000; ++v) {
    (v % 2 ? a : b).record(v * 37);
    all.record(v * 37);
  }
  a.merge(b);
  EXPECT_EQ(a, all);
  uint64_t n = 0;
  a.for_each_bucket([&n](uint64_t lo, uint64_t hi, uint64_t c) {
    EXPECT_LE(lo, hi);
    n += c;
  });
  EXPECT_EQ(n, 5000u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
