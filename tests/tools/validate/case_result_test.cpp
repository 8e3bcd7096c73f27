// The arithmetic of validation verdicts: ratios to the baseline, directions with a tie band,
// declared gaps counted as GAP (never PASS), and per-arm published baselines (seed 000's second
// run).

#include <gtest/gtest.h>

#include "tools/validate/case_result.h"
#include "tools/validate/cases.h"
#include "tools/validate/extract.h"

namespace mmreplay::validate {
namespace {

replay::RunResult run_with(uint64_t makespan_ns, uint64_t swapins) {
  replay::RunResult r;
  r.makespan_ns = makespan_ns;
  r.cpus = 4;
  r.counters["swapins"] = swapins;
  return r;
}

ValidationCase two_metric_case() {
  ValidationCase c;
  c.name = "t";
  c.arms = {{"base", "dontneed", {}}, {"a", "free", {}}, {"b", "free-swapped", {}}};
  c.metrics = {
      {"elapsed", "s", elapsed_seconds(), {10.0, 20.0, 12.0}, {{}, {}, {6.0}}, ""},
      {"swap-ins", "pages", counter("swapins"), {100, 50000, std::nullopt}, {}, ""},
  };
  return c;
}

TEST(Direction, TieBandAndZeroBase) {
  EXPECT_EQ(direction_of(1.01, 1.0, 0.02), Direction::kSame);
  EXPECT_EQ(direction_of(1.03, 1.0, 0.02), Direction::kHigher);
  EXPECT_EQ(direction_of(0.5, 1.0, 0.02), Direction::kLower);
  EXPECT_EQ(direction_of(5.0, 0.0, 0.02), Direction::kHigher);
  EXPECT_EQ(direction_of(0.0, 0.0, 0.02), Direction::kSame);
  EXPECT_EQ(direction_of(std::nullopt, 1.0, 0.02), Direction::kUnknown);
  EXPECT_FALSE(ratio_of(3.0, 0.0).has_value());
  EXPECT_DOUBLE_EQ(*ratio_of(3.0, 2.0), 1.5);
}

TEST(CaseResult, RowsRatiosAndVerdicts) {
  const ValidationCase c = two_metric_case();
  CaseResult cr;
  cr.vc = &c;
  cr.runs = {run_with(1'000'000'000, 0), run_with(2'200'000'000, 900), run_with(900'000'000, 3)};
  compute_rows(&cr);
  ASSERT_EQ(cr.rows.size(), 6u);
  // elapsed, arm a: published 2.0x, model 2.2x: same direction, 10% apart.
  const Row& a = cr.rows[1];
  EXPECT_EQ(a.arm, "a");
  EXPECT_DOUBLE_EQ(*a.published_ratio, 2.0);
  EXPECT_NEAR(*a.model_ratio, 2.2, 1e-12);
  EXPECT_TRUE(a.direction_agrees());
  EXPECT_NEAR(*a.ratio_error(), 0.1, 1e-12);
  EXPECT_TRUE(a.within_tolerance());
  // elapsed, arm b: published against its own baseline run (12 / 6 = 2x higher); model 0.9x lower.
  const Row& b = cr.rows[2];
  EXPECT_DOUBLE_EQ(*b.published_ratio, 2.0);
  EXPECT_EQ(b.published_direction, Direction::kHigher);
  EXPECT_EQ(b.model_direction, Direction::kLower);
  EXPECT_FALSE(b.direction_agrees());
  // swap-ins: the model's baseline is 0, so no model ratio, but the direction (more) is known.
  const Row& sa = cr.rows[4];
  EXPECT_FALSE(sa.model_ratio.has_value());
  EXPECT_EQ(sa.model_direction, Direction::kHigher);
  EXPECT_TRUE(sa.direction_agrees());
  // No published figure for arm b: not comparable, not checked.
  EXPECT_FALSE(cr.rows[5].comparable());
  EXPECT_EQ(cr.checked(), 3);
  EXPECT_EQ(cr.directions_agreeing(), 2);
  EXPECT_EQ(cr.ratios_compared(), 2);  // the swap-in row has no model ratio (zero baseline)
  EXPECT_EQ(cr.ratios_within_tolerance(), 1);
  EXPECT_FALSE(cr.passed());
}

TEST(CaseResult, DrawsTakeTheMedianOfEachDrawsRatio) {
  ValidationCase c;
  c.name = "t";
  c.arms = {{"base", "dontneed", {}}, {"a", "free", {}}};
  c.metrics = {{"elapsed", "s", elapsed_seconds(), {10.0, 7.5}, {}, ""},
               {"swap-ins", "pages", counter("swapins"), {100, 50000}, {}, ""}};
  CaseResult cr;
  cr.vc = &c;
  cr.draws = 3;
  // Draw-major: (base, a) of draw 1, then of draws 2 and 3. Arm a's ratios within each draw are
  // 0.5, 1.2 and 0.6, so it is lower (median 0.6x), where the ratio of the arms' median figures
  // (1.2 s / 1.0 s) would call it higher: each draw's arms share the draw's start instants.
  cr.runs = {run_with(1'000'000'000, 0),  run_with(500'000'000, 10),  run_with(1'000'000'000, 0),
             run_with(1'200'000'000, 30), run_with(2'000'000'000, 0), run_with(1'200'000'000, 20)};
  compute_rows(&cr);
  ASSERT_EQ(cr.rows.size(), 4u);
  const Row& base = cr.rows[0];
  EXPECT_DOUBLE_EQ(*base.model, 1.0) << "the baseline's median figure (1, 1, 2 s)";
  const Row& a = cr.rows[1];
  EXPECT_DOUBLE_EQ(*a.model, 1.2) << "arm a's median figure (0.5, 1.2, 1.2 s)";
  EXPECT_NEAR(*a.model_ratio, 0.6, 1e-12) << "the median of the draws' ratios";
  EXPECT_NEAR(*a.model_ratio_min, 0.5, 1e-12);
  EXPECT_NEAR(*a.model_ratio_max, 1.2, 1e-12);
  EXPECT_EQ(a.model_direction, Direction::kLower) << "read from the median ratio";
  EXPECT_TRUE(a.direction_agrees());
  // A baseline of 0 swap-ins leaves no ratio in any draw: the medians decide the direction.
  const Row& s = cr.rows[3];
  EXPECT_FALSE(s.model_ratio.has_value());
  EXPECT_FALSE(s.model_ratio_min.has_value());
  EXPECT_DOUBLE_EQ(*s.model, 20);
  EXPECT_EQ(s.model_direction, Direction::kHigher);
}

TEST(CaseResult, MedianOfOddAndEvenCountsAndMissingFigures) {
  EXPECT_DOUBLE_EQ(*median_of({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(*median_of({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_FALSE(median_of({}).has_value());
  EXPECT_FALSE(median_of({1.0, std::nullopt}).has_value());
}

TEST(CaseResult, DisagreementsAreFailuresUnlessDeclaredGaps) {
  ValidationCase c = two_metric_case();
  CaseResult cr;
  cr.vc = &c;
  cr.runs = {run_with(1'000'000'000, 0), run_with(2'200'000'000, 900), run_with(900'000'000, 3)};
  compute_rows(&cr);
  EXPECT_EQ(cr.failures(), 1);
  EXPECT_EQ(cr.gaps_disagreeing(), 0);
  EXPECT_STREQ(verdict_name(cr.verdict()), "FAIL");
  EXPECT_EQ(cr.ratios_outside_tolerance(), 1);
}

// A declared gap is still counted: it is a disagreement the case explains, never a PASS.
TEST(CaseResult, DeclaredGapIsCountedAndNeverPasses) {
  ValidationCase c = two_metric_case();
  c.gaps = {{"elapsed", "b", "the model lacks X"}};
  CaseResult cr;
  cr.vc = &c;
  cr.runs = {run_with(1'000'000'000, 0), run_with(2'200'000'000, 900), run_with(900'000'000, 3)};
  compute_rows(&cr);
  EXPECT_NE(cr.rows[2].gap, nullptr);
  EXPECT_EQ(cr.checked(), 3);
  EXPECT_EQ(cr.directions_agreeing(), 2);
  EXPECT_EQ(cr.gaps_disagreeing(), 1);
  EXPECT_EQ(cr.failures(), 0);
  EXPECT_FALSE(cr.passed());
  EXPECT_STREQ(verdict_name(cr.verdict()), "GAP");
  // The same gap where the model now goes the thread's way: the case passes.
  cr.runs[2] = run_with(1'500'000'000, 3);
  compute_rows(&cr);
  EXPECT_EQ(cr.gaps_disagreeing(), 0);
  EXPECT_STREQ(verdict_name(cr.verdict()), "PASS");
}

// A gap declared for some scales only: at another scale the same disagreement fails.
TEST(CaseResult, GapOfOneScaleDoesNotCoverAnother) {
  ValidationCase c = two_metric_case();
  c.gaps = {{"elapsed", "b", "the model lacks X at full size", {"full"}}};
  const Scale full{"full", {}, 4, 0, 0, 0, ""};
  const Scale ci{"ci", {}, 4, 0, 0, 0, ""};
  CaseResult cr;
  cr.vc = &c;
  cr.runs = {run_with(1'000'000'000, 0), run_with(2'200'000'000, 900), run_with(900'000'000, 3)};
  cr.scale = &full;
  compute_rows(&cr);
  EXPECT_NE(cr.rows[2].gap, nullptr);
  EXPECT_STREQ(verdict_name(cr.verdict()), "GAP");
  cr.scale = &ci;
  compute_rows(&cr);
  EXPECT_EQ(cr.rows[2].gap, nullptr);
  EXPECT_EQ(cr.failures(), 1);
  EXPECT_STREQ(verdict_name(cr.verdict()), "FAIL");
}

TEST(Cases, EveryCaseIsWellFormed) {
  ASSERT_FALSE(all_cases().empty());
  for (const ValidationCase& c : all_cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(find_case(c.name), &c);
    EXPECT_GE(c.arms.size(), 2u);
    EXPECT_FALSE(c.metrics.empty());
    for (const Metric& m : c.metrics) {
      EXPECT_EQ(m.published.size(), c.arms.size()) << m.name;
      EXPECT_FALSE(m.source.empty()) << m.name;
    }
    for (const char* scale : {"ci", "default", "full"})
      EXPECT_NE(c.find_scale(scale), nullptr) << scale;
    for (const KnownGap& g : c.gaps) {
      EXPECT_FALSE(g.reason.empty());
      for (const std::string& scale : g.scales) EXPECT_NE(c.find_scale(scale), nullptr) << scale;
    }
  }
}

}  // namespace
}  // namespace mmreplay::validate
