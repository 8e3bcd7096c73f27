// Futex waits in the recorded wake-up order (kernel/futex.h).

#include "kernelsim/kernel/futex.h"

#include <gtest/gtest.h>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::make_sim;
using testing::thread;

constexpr uint32_t kMm = 1;
constexpr uint64_t kWakeId = 5;

TEST(FutexTest, AWaitEndsAtItsWakeNotAfterItsRecordedTime) {
  // The waiter recorded 1 us asleep; its waker replays the wake after 4 ms of work.
  auto sim = make_sim(2);
  Task& waiter = thread(*sim, kMm, 0, {Op::futex_wait(kWakeId, SimTime::us(1))});
  thread(*sim, kMm, 1, {Op::think(SimTime::ms(4)), Op::futex_wake(kWakeId)});
  sim->run_until(SimTime::ms(3));
  EXPECT_EQ(waiter.state(), TaskState::kSleeping);
  sim->run();
  EXPECT_TRUE(waiter.finished());
  EXPECT_GE(sim->now(), SimTime::ms(4));
  EXPECT_TRUE(sim->futex_wakes().waiters.empty());
}

TEST(FutexTest, AWaitWhoseWakeAlreadyReplayedReturnsAtOnceAndOneWithoutAWakeSleepsItsTime) {
  auto sim = make_sim(2);
  thread(*sim, kMm, 1, {Op::futex_wake(kWakeId)});
  Task& late = thread(*sim, kMm, 0,
                      {Op::think(SimTime::ms(1)), Op::futex_wait(kWakeId, SimTime::ms(100)),
                       Op::futex_wait(0, SimTime::ms(2))});
  sim->run();
  EXPECT_TRUE(late.finished());
  // 1 ms of work, no sleep for the wake that came first, 2 ms for the unpaired wait.
  EXPECT_GE(sim->now(), SimTime::ms(3));
  EXPECT_LT(sim->now(), SimTime::ms(4));
}

TEST(FutexTest, AWakeThatNeverReplaysDoesNotHangTheRun) {
  auto sim = make_sim(1);
  Task& waiter = thread(*sim, kMm, 0, {Op::futex_wait(kWakeId, SimTime::us(1))});
  sim->run();
  EXPECT_TRUE(waiter.finished());
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
}

TEST(FutexTest, WokenIdsAreRememberedWhetherDenseOrNot) {
  // The importer's ids (1, 2, ...) in bits, another tool's arbitrary ones in a set.
  WokenSet woken;
  const uint64_t ids[] = {1,         63, 64, 4095, WokenSet::kDenseLimit - 1, WokenSet::kDenseLimit,
                          UINT64_MAX};
  for (uint64_t id : ids) {
    EXPECT_FALSE(woken.contains(id)) << id;
    woken.insert(id);
    EXPECT_TRUE(woken.contains(id)) << id;
  }
  for (uint64_t id : ids) EXPECT_TRUE(woken.contains(id)) << id;
  for (uint64_t id : {uint64_t{0}, uint64_t{2}, uint64_t{65}, uint64_t{4096},
                      WokenSet::kDenseLimit + 1, UINT64_MAX - 1}) {
    EXPECT_FALSE(woken.contains(id)) << id;
  }
}

}  // namespace
}  // namespace mmreplay::kernelsim
