// Queued spinlock: strict FIFO and the handoff arithmetic of an MCS queue.

#include "kernelsim/locking/qspinlock.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::make_sim;

struct Grant {
  SimTime arrived;
  SimTime granted;
  SimTime released;
};

Co<void> spinner(Task& t, QSpinLock& l, SimTime arrive, SimTime hold, Grant* g) {
  t.work(arrive - t.clock());
  g->arrived = t.clock();
  co_await l.lock(t);
  g->granted = t.clock();
  t.work(hold);
  co_await l.unlock(t);
  g->released = t.clock();
}

TEST(QSpinLockTest, KthWaiterWaitsForPriorHoldsPlusKHandoffs) {
  constexpr int kWaiters = 4;
  auto sim = make_sim(kWaiters + 1);
  QSpinLock lock(*sim, "test_lock");
  Grant holder;
  std::vector<Grant> w(kWaiters);
  const SimTime holds[kWaiters] = {SimTime::us(5), SimTime::us(6), SimTime::us(7), SimTime::us(8)};
  Task& th = sim->create_task(0, nullptr);
  sim->start_task(th, spinner(th, lock, SimTime::us(10), SimTime::us(50), &holder));
  for (int k = 0; k < kWaiters; ++k) {
    Task& t = sim->create_task(static_cast<uint32_t>(k + 1), nullptr);
    sim->start_task(t, spinner(t, lock, SimTime::us(20), holds[k], &w[static_cast<size_t>(k)]));
  }
  sim->run();
  const SimTime handoff = sim->costs().cacheline_transfer;
  SimTime prior_holds = holder.released - w[0].arrived;  // what remained of the first hold
  for (int k = 0; k < kWaiters; ++k) {
    const Grant& g = w[static_cast<size_t>(k)];
    EXPECT_EQ(g.granted - g.arrived, prior_holds + handoff * (k + 1)) << "waiter " << k + 1;
    prior_holds += holds[k];
  }
  EXPECT_EQ(lock.stats().acquisitions, static_cast<uint64_t>(kWaiters + 1));
  EXPECT_EQ(lock.stats().contentions, static_cast<uint64_t>(kWaiters));
  EXPECT_EQ(lock.stats().hold_time.count(), static_cast<uint64_t>(kWaiters + 1));
}

// spinlock=ticket (x86 before 4.2): the same FIFO order, but each handoff also waits for half of
// the other waiters' re-reads of the released lock word, so it grows with the queue behind.
TEST(QSpinLockTest, TicketHandoffGrowsWithTheWaitersLeft) {
  constexpr int kWaiters = 4;
  auto sim = make_sim(kWaiters + 1, "spinlock=ticket");
  QSpinLock lock(*sim, "test_lock");
  Grant holder;
  std::vector<Grant> w(kWaiters);
  Task& th = sim->create_task(0, nullptr);
  sim->start_task(th, spinner(th, lock, SimTime::us(10), SimTime::us(50), &holder));
  for (int k = 0; k < kWaiters; ++k) {
    Task& t = sim->create_task(static_cast<uint32_t>(k + 1), nullptr);
    sim->start_task(
        t, spinner(t, lock, SimTime::us(20 + k), SimTime::us(5), &w[static_cast<size_t>(k)]));
  }
  sim->run();
  const SimTime line = sim->costs().cacheline_transfer;
  SimTime release = holder.released;
  for (int k = 0; k < kWaiters; ++k) {
    const Grant& g = w[static_cast<size_t>(k)];
    const int64_t left = kWaiters - 1 - k;  // still spinning on the word when k is granted
    EXPECT_EQ(g.granted - release, line + SimTime::ns(left * line.count_ns() / 2))
        << "waiter " << k + 1;
    release = g.released;
  }
  // The last handoff, with no one else spinning, is the queued lock's.
  EXPECT_EQ(w[kWaiters - 1].granted - w[kWaiters - 2].released, line);
  EXPECT_EQ(lock.stats().contentions, static_cast<uint64_t>(kWaiters));
}

TEST(QSpinLockTest, GrantsInArrivalOrderNotCpuOrder) {
  auto sim = make_sim(5);
  QSpinLock lock(*sim, "test_lock");
  Grant holder;
  std::vector<Grant> w(4);
  const int arrival_us[4] = {23, 20, 22, 21};  // CPU 1..4
  Task& th = sim->create_task(0, nullptr);
  sim->start_task(th, spinner(th, lock, SimTime::us(10), SimTime::us(50), &holder));
  for (int k = 0; k < 4; ++k) {
    Task& t = sim->create_task(static_cast<uint32_t>(k + 1), nullptr);
    sim->start_task(t, spinner(t, lock, SimTime::us(arrival_us[k]), SimTime::us(1),
                               &w[static_cast<size_t>(k)]));
  }
  sim->run();
  // Arrival order: CPU 2 (20), CPU 4 (21), CPU 3 (22), CPU 1 (23).
  EXPECT_LT(w[1].granted, w[3].granted);
  EXPECT_LT(w[3].granted, w[2].granted);
  EXPECT_LT(w[2].granted, w[0].granted);
  EXPECT_EQ(w[3].granted, w[1].released + sim->costs().cacheline_transfer);
}

TEST(QSpinLockTest, WaitersBurnTheirCpu) {
  auto sim = make_sim(2);
  QSpinLock lock(*sim, "test_lock");
  Grant holder, waiter;
  SimTime other_ran;
  Task& th = sim->create_task(0, nullptr);
  Task& tw = sim->create_task(1, nullptr);
  Task& to = sim->create_task(1, nullptr);
  sim->start_task(th, spinner(th, lock, SimTime::us(10), SimTime::us(50), &holder));
  sim->start_task(tw, spinner(tw, lock, SimTime::us(20), SimTime::us(1), &waiter));
  sim->start_task(to, [](Task& t, SimTime* ran) -> Co<void> {
    *ran = t.clock();
    co_return;
  }(to, &other_ran));
  sim->run();
  EXPECT_GE(other_ran, waiter.released);
}

}  // namespace
}  // namespace mmreplay::kernelsim
