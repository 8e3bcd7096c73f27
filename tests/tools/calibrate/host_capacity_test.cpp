// The host-capacity check of calibrate and validate --real --throughput: its figures from given
// rounds (a slow CPU, CPUs slower together, medians and ranges), its note, and one short round
// measured on this machine (no speed asserted).

#include <gtest/gtest.h>

#include <string>

#include "tools/calibrate/host_capacity.h"
#include "tools/calibrate/probes.h"

namespace mmreplay::tools::calibrate {
namespace {

namespace host_capacity_test {
// A round: each CPU's read-page rate alone, then all of them at once.
HostCapacityRound round_of(std::vector<double> alone, double together) {
  HostCapacityRound r;
  r.alone = std::move(alone);
  r.together = together;
  return r;
}
}  // namespace host_capacity_test
using host_capacity_test::round_of;

TEST(HostCapacity, AlikeCpusThatRunTogetherAsAloneGiveOnesAndNoWarning) {
  const HostCapacity c = summarize_host_capacity(2, {round_of({600e3, 600e3}, 1200e3)});
  EXPECT_DOUBLE_EQ(c.balance, 1.0);
  EXPECT_DOUBLE_EQ(c.capacity, 1.0);
  EXPECT_DOUBLE_EQ(c.alone, 600e3);
  const std::string note = host_capacity_note(c, "before the loops");
  EXPECT_NE(
      note.find("host capacity before the loops: read-page on one CPU at a time 600000 ops/s"),
      std::string::npos)
      << note;
  EXPECT_EQ(note.find("below"), std::string::npos) << note;
}

TEST(HostCapacity, ACpuTheHostSlowsIsTheBalanceNotTheCapacity) {
  // CPU 0 at 0.6 of CPU 1, and together exactly the sum: the host takes from one vCPU.
  const HostCapacity c = summarize_host_capacity(2, {round_of({300e3, 500e3}, 800e3)});
  EXPECT_DOUBLE_EQ(c.balance, 0.6);
  EXPECT_DOUBLE_EQ(c.capacity, 1.0);
  EXPECT_DOUBLE_EQ(c.alone, 400e3);
  const std::string note = host_capacity_note(c, "after them");
  EXPECT_NE(note.find("(one CPU slower than another)"), std::string::npos) << note;
}

TEST(HostCapacity, CpusSlowerTogetherThanAloneAreTheCapacity) {
  // Alike alone, 0.8 of their sum together: the host shares their cores when both run.
  const HostCapacity c = summarize_host_capacity(2, {round_of({500e3, 500e3}, 800e3)});
  EXPECT_DOUBLE_EQ(c.balance, 1.0);
  EXPECT_DOUBLE_EQ(c.capacity, 0.8);
  const std::string note = host_capacity_note(c, "after them");
  EXPECT_NE(note.find("(all of them together)"), std::string::npos) << note;
  EXPECT_NE(note.find("measure again when both are near 1"), std::string::npos) << note;
}

TEST(HostCapacity, MediansAndRangesAreOverTheRounds) {
  const HostCapacity c = summarize_host_capacity(
      2, {round_of({100, 100}, 160), round_of({100, 50}, 150), round_of({90, 100}, 171)});
  ASSERT_EQ(c.rounds.size(), 3u);
  // capacities 0.8, 1.0, 0.9; balances 1.0, 0.5, 0.9; the CPUs' mean rates 100, 75, 95.
  EXPECT_DOUBLE_EQ(c.capacity, 0.9);
  EXPECT_DOUBLE_EQ(c.capacity_min, 0.8);
  EXPECT_DOUBLE_EQ(c.capacity_max, 1.0);
  EXPECT_DOUBLE_EQ(c.balance, 0.9);
  EXPECT_DOUBLE_EQ(c.balance_min, 0.5);
  EXPECT_DOUBLE_EQ(c.balance_max, 1.0);
  EXPECT_DOUBLE_EQ(c.alone, 95);
  // Both medians at 0.9: not below the warning.
  EXPECT_EQ(host_capacity_note(c, "x").find("below"), std::string::npos);
  // An even count takes the mean of the middle two.
  const HostCapacity even =
      summarize_host_capacity(2, {round_of({100, 100}, 160), round_of({100, 100}, 200)});
  EXPECT_DOUBLE_EQ(even.capacity, 0.9);
}

TEST(HostCapacity, NoRoundsAndAZeroRateDivideByNothing) {
  const HostCapacity none = summarize_host_capacity(2, {});
  EXPECT_DOUBLE_EQ(none.balance, 1.0);
  EXPECT_DOUBLE_EQ(none.capacity, 1.0);
  EXPECT_DOUBLE_EQ(round_of({0, 0}, 0).balance(), 1.0);
  EXPECT_DOUBLE_EQ(round_of({0, 0}, 0).capacity(), 1.0);
}

TEST(HostCapacity, OneRoundOnThisMachineMeasuresEveryCpuAloneAndAllTogether) {
  const int cpus = std::min(allowed_cpus(), 2);
  if (cpus < 2) GTEST_SKIP() << "one CPU allowed";
  HostCapacity c;
  ASSERT_TRUE(measure_host_capacity(ThroughputOptions{}, cpus, 1, &c).is_ok());
  ASSERT_EQ(c.rounds.size(), 1u);
  ASSERT_EQ(c.rounds[0].alone.size(), 2u);
  EXPECT_GT(c.rounds[0].alone[0], 0);
  EXPECT_GT(c.rounds[0].alone[1], 0);
  EXPECT_GT(c.rounds[0].together, 0);
  EXPECT_GT(c.balance, 0);
  EXPECT_LE(c.balance, 1.0);
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
