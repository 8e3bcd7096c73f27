// Idle balancing (sched/load_balance.h): a CPU about to idle pulls a task waiting on another
// CPU's run queue, and an idle CPU takes one when the tick that ends a slice finds it waiting.

#include "kernelsim/sched/load_balance.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace load_balance_test {
namespace {

using testing::make_sim;
using testing::thread;

constexpr SimTime kWork = SimTime::ms(8);

// CPU 0 runs A and B, 8 ms of work each; CPU 1 runs C, 1 ms, which then exits. Newly idle at
// C's exit, CPU 1 takes B, which has waited since it was created (never ran: not cache hot), and
// both are done by 9 ms; without balancing B shares CPU 0 with A until 16 ms.
TEST(LoadBalanceTest, ACpuAboutToIdlePullsATaskWaitingOnAnother) {
  for (const char* policy : {"idle_balance=newidle", "idle_balance=off"}) {
    SCOPED_TRACE(policy);
    const bool balances = std::string(policy) == "idle_balance=newidle";
    auto sim = make_sim(2, policy);
    thread(*sim, 1, 0, {Op::think(kWork)});
    Task& b = thread(*sim, 2, 0, {Op::think(kWork)});
    thread(*sim, 3, 1, {Op::think(SimTime::ms(1))});
    sim->run_until(SimTime::ms(2));
    EXPECT_EQ(b.cpu().id, balances ? 1u : 0u);
    EXPECT_EQ(sim->cpu(1).counters.balance_pulls, balances ? 1u : 0u);
    sim->run();
    EXPECT_EQ(sim->nr_live_tasks(), 0u);
    if (balances) {
      EXPECT_LT(sim->now(), SimTime::ms(9) + SimTime::us(100));
    } else {
      EXPECT_GE(sim->now(), SimTime::ms(16));
    }
  }
}

// CPU 1 has nothing to run from the start, so it never becomes newly idle: the tick that ends
// A's slice on CPU 0 with B waiting kicks it (nohz_balancer_kick()), and it takes B, not A,
// which has just left the CPU (cache hot).
TEST(LoadBalanceTest, TheTickThatEndsASliceWithTasksWaitingKicksAnIdleCpu) {
  auto sim = make_sim(2, "idle_balance=newidle");
  Task& a = thread(*sim, 1, 0, {Op::think(kWork)});
  Task& b = thread(*sim, 2, 0, {Op::think(kWork)});
  sim->run();
  EXPECT_EQ(a.cpu().id, 0u);
  EXPECT_EQ(b.cpu().id, 1u);
  EXPECT_EQ(sim->cpu(1).counters.balance_pulls, 1u);
  EXPECT_EQ(sim->cpu(0).counters.involuntary_switches, 1u);  // A, at the tick that kicked
  // B started on CPU 1 at that tick, a slice in: well before A's 8 ms of work were done.
  EXPECT_LT(sim->now(), 2 * kWork);
  EXPECT_GE(sim->now(), kWork);
}

// Before 5.13 a newly idle CPU looks only while its idle periods average
// sysctl_sched_migration_cost (0.5 ms). C on CPU 1 sleeps 50 us twenty times before it exits
// (at ~3 ms), which brings the average to about 0.12 ms; B arrives on CPU 0, behind A, at
// 2.9 ms. 5.13+ pulls it when CPU 1 next idles; before, CPU 1 waits for the kick of CPU 0's tick
// at the end of A's slice (4 ms).
TEST(LoadBalanceTest, Before513AnIdleCpuWithShortIdlePeriodsDoesNotLook) {
  SimTime b_done[2];
  uint64_t avg_idle_ns = 0;
  int k = 0;
  for (const char* policy : {"idle_balance=newidle", "idle_balance=newidle-avg-idle"}) {
    SCOPED_TRACE(policy);
    auto sim = make_sim(2, policy);
    thread(*sim, 1, 0, {Op::think(SimTime::ms(20))});
    std::vector<Op> c;
    for (int i = 0; i < 20; ++i) {
      c.push_back(Op::think(SimTime::us(100)));
      c.push_back(Op::sleep(SimTime::us(50)));
    }
    thread(*sim, 3, 1, std::move(c));
    Task& b = thread(*sim, 2, 0, {Op::think(kWork)}, SimTime::us(2900));
    sim->run_until(SimTime::us(3900));
    if (k == 1) avg_idle_ns = static_cast<uint64_t>(sim->cpu(1).avg_idle.count_ns());
    EXPECT_EQ(b.cpu().id, k == 0 ? 1u : 0u);  // not yet moved before 5.13
    sim->run();
    EXPECT_EQ(b.cpu().id, 1u);
    b_done[k++] = b.clock();
  }
  EXPECT_LT(avg_idle_ns, static_cast<uint64_t>(sysctl_sched_migration_cost_ns));
  EXPECT_LT(b_done[0] + SimTime::us(500), b_done[1]);
}

}  // namespace
}  // namespace load_balance_test
}  // namespace mmreplay::kernelsim
