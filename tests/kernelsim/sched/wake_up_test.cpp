// Wake-ups across CPUs (sched/core.h): the waker pays the IPI try_to_wake_up() sends to an idle
// CPU, and the wakee's CPU keeps its lazy mm until the wakee runs, so a flush in between skips it.

#include <gtest/gtest.h>

#include <vector>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr uint32_t kMm = 1;
constexpr uint32_t kOtherMm = 2;
constexpr uint64_t kWakeId = 1;

// The waker's CPU 0 wakes a sleeper of kOtherMm on `sleeper_cpu`, whose CPU runs `busy_for` of
// another task's work meanwhile when it is not zero. Returns the waker's wakeup_ipis and when
// its futex_wake returned.
struct WakerRun {
  uint64_t wakeup_ipis = 0;
  uint64_t wakeups_polling = 0;
  uint64_t resched_ipis = 0;
  SimTime waker_done;
  SimTime sleeper_done;
};

// `idle_polls`: the machine's idle CPUs wait in MWAIT (MachineConfig::idle_polls).
WakerRun wake_a_sleeper(uint32_t sleeper_cpu, SimTime busy_for, bool idle_polls = false) {
  std::string error;
  MachineConfig m;
  m.nr_cpus = 2;
  m.idle_polls = idle_polls;
  auto sim = Simulation::create(m, cost_profile_default(), "wake_affine=off", &error);
  EXPECT_NE(sim, nullptr) << error;
  Task& sleeper = thread(*sim, kOtherMm, sleeper_cpu, {Op::futex_wait(kWakeId, SimTime::zero())});
  if (busy_for > SimTime::zero()) thread(*sim, 3, sleeper_cpu, {Op::think(busy_for)});
  Task& waker = thread(*sim, kMm, 0, {Op::think(SimTime::us(20)), Op::futex_wake(kWakeId)});
  WakerRun r;
  sim->run();
  EXPECT_TRUE(waker.finished());
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  r.wakeup_ipis = sim->cpu(0).counters.wakeup_ipis;
  r.wakeups_polling = sim->cpu(0).counters.wakeups_polling;
  r.resched_ipis = sim->cpu(0).counters.resched_ipis;
  r.waker_done = waker.clock();
  r.sleeper_done = sleeper.clock();
  return r;
}

TEST(WakeUpTest, TheWakerPaysAnIpiForASleeperOnAnotherIdleCpu) {
  const WakerRun idle = wake_a_sleeper(1, SimTime::zero());
  EXPECT_EQ(idle.wakeup_ipis, 1u);
  // The sleeper's CPU busy with another task: it is queued there, with no wake-up IPI. It ran
  // only a moment before it slept, so it is eligible when it wakes (sched/eevdf_lag.h) and
  // preempts that task: the waker pays a reschedule IPI instead (wakeup_preemption_test.cpp).
  const WakerRun busy = wake_a_sleeper(1, SimTime::ms(1));
  EXPECT_EQ(busy.wakeup_ipis, 0u);
  EXPECT_EQ(busy.resched_ipis, 1u);
  EXPECT_EQ(idle.waker_done, busy.waker_done);
}

// On bare-metal x86 the idle CPU waits in MWAIT on its thread flags: the waker sets need_resched
// there (a line moved to it) instead of sending an IPI, and returns that much sooner; the
// wakee's CPU still takes wakeup_latency to leave its idle state. A busy CPU still gets a
// reschedule IPI.
TEST(WakeUpTest, AnIdleCpuThatPollsIsWokenWithoutAnIpi) {
  const CostProfile c = cost_profile_default();
  const WakerRun ipi = wake_a_sleeper(1, SimTime::zero());
  const WakerRun mwait = wake_a_sleeper(1, SimTime::zero(), true);
  EXPECT_EQ(mwait.wakeup_ipis, 0u);
  EXPECT_EQ(mwait.wakeups_polling, 1u);
  EXPECT_EQ(ipi.wakeups_polling, 0u);
  EXPECT_EQ(ipi.waker_done - mwait.waker_done, c.ipi_send - c.cacheline_transfer);
  EXPECT_EQ(ipi.sleeper_done - mwait.sleeper_done, c.ipi_send - c.cacheline_transfer);
  const WakerRun busy = wake_a_sleeper(1, SimTime::ms(1), true);
  EXPECT_EQ(busy.wakeups_polling, 0u);
  EXPECT_EQ(busy.resched_ipis, 1u);
}

TEST(WakeUpTest, ASleeperOnTheWakersOwnCpuNeedsNoIpi) {
  const WakerRun same = wake_a_sleeper(0, SimTime::zero());
  EXPECT_EQ(same.wakeup_ipis, 0u);
}

// Thread B of the mm sleeps on CPU 1 (its CPU idles with the mm loaded, lazily); thread A on
// CPU 0 wakes it and unmaps a page after `a_gap`, at once or once B runs. The page's neighbour
// stays mapped: no page table is freed, which would flush lazy CPUs too.
struct FlushRun {
  uint64_t ipis_sent = 0;
  uint64_t lazy_catch_ups = 0;
};

FlushRun flush_while_waking(SimTime a_gap) {
  CostProfile c = cost_profile_default();
  c.wakeup_latency = SimTime::us(50);
  auto sim = make_sim(2, "wake_affine=off,lazy_tlb=skip", c);
  thread(*sim, kMm, 1, {Op::futex_wait(kWakeId, SimTime::zero()), Op::think(SimTime::ms(5))});
  thread(*sim, kMm, 0,
         {Op::mmap_anon(kBase, 2 * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, 2 * kPage, true), Op::think(SimTime::us(20)), Op::futex_wake(kWakeId),
          Op::think(a_gap), Op::munmap(kBase, kPage)});
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  return {sim->cpu(0).counters.ipis_sent, sim->cpu(1).counters.tlb_lazy_flushes};
}

TEST(WakeUpTest, AFlushBeforeTheWakeeRunsSkipsItsLazyCpu) {
  // switch_mm_irqs_off() runs when the wakee does: until then its CPU is idle in lazy TLB mode,
  // and should_flush_tlb() passes it over; it flushes its stale TLB when it switches back.
  const FlushRun early = flush_while_waking(SimTime::zero());
  EXPECT_EQ(early.ipis_sent, 0u);
  EXPECT_EQ(early.lazy_catch_ups, 1u);
  // Once the wakee runs the mm, the same unmap sends it a shootdown.
  const FlushRun late = flush_while_waking(SimTime::us(100));
  EXPECT_EQ(late.ipis_sent, 1u);
  EXPECT_EQ(late.lazy_catch_ups, 0u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
