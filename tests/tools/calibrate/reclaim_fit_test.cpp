// calibrate --reclaim's native runs: how their spread is measured and which run an arm is fitted
// to (the median's, so one run in a slow or fast phase of the host does not set the costs).

#include "tools/calibrate/reclaim_fit.h"

#include <gtest/gtest.h>

#include <vector>

namespace mmreplay::tools::calibrate {
namespace {

std::vector<BombFigures> runs_of(const std::vector<double>& cpu) {
  std::vector<BombFigures> runs;
  for (size_t i = 0; i < cpu.size(); ++i) {
    BombFigures f;
    f.cpu_seconds = cpu[i];
    f.swapouts = 1000 + i;  // tells the runs apart
    runs.push_back(f);
  }
  return runs;
}

TEST(ReclaimNativeRuns, SpreadIsTheRangeOverTheMedian) {
  EXPECT_DOUBLE_EQ(cpu_spread(runs_of({3.0})), 0);
  EXPECT_DOUBLE_EQ(cpu_spread(runs_of({4.0, 5.0, 3.0})), 0.5);
  // The guest of 2026-12-06: one dontneed run of 2.85 s, the next 4.90 s.
  EXPECT_NEAR(cpu_spread(runs_of({2.85, 4.90, 4.70})), (4.90 - 2.85) / 4.70, 1e-12);
  EXPECT_LT(cpu_spread(runs_of({5.00, 5.10, 4.95})), kReclaimNativeSpread);
}

TEST(ReclaimNativeRuns, AnArmIsFittedToItsMedianRunWholly) {
  // The outlier, first or last, is not the one fitted to; the figures come from one run.
  const std::vector<BombFigures> runs = runs_of({2.85, 4.90, 4.70});
  EXPECT_EQ(median_cpu_run(runs).cpu_seconds, 4.70);
  EXPECT_EQ(median_cpu_run(runs).swapouts, 1002u);
  EXPECT_EQ(median_cpu_run(runs_of({6.0, 5.0, 4.0, 3.0, 7.0})).swapouts, 1001u);  // 5.0 s
  EXPECT_EQ(median_cpu_run(runs_of({3.0})).cpu_seconds, 3.0);
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
