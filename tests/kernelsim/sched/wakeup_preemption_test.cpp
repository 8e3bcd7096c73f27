// Wake-up preemption of a task in user mode (sched/core.h, Task::cut_user_run()): the model runs
// a user-mode task ahead of global time in chunks of up to kUserModePreemptCheck, but a wake-up
// that preempts it lands when it happens, as the interrupt's return to user mode schedules; from
// another CPU, once the waker's reschedule IPI lands. Measured on the 6.18 PVM guest
// (2026-12-07): a thread pinned beside a spinner and sleeping 2 ms 300 times overshot each sleep
// by 79 us at the median, as it did alone (the timer's slack and the wake-up), 0.624 s in all;
// its recording replayed in 0.773 s while wake-ups waited for the spinner's chunk to end, 0.627 s
// since.

#include <gtest/gtest.h>

#include <vector>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {
// Its own names: the unity build compiles this file with the other sched tests.
namespace wakeup_preemption {

using testing::make_sim;
using testing::thread;

constexpr uint32_t kHogMm = 1;
constexpr uint32_t kSleeperMm = 2;
constexpr uint32_t kWakerMm = 3;
constexpr uint64_t kWakeId = 1;
// The hog thinks this long on the sleeper's CPU, in one op or in kPieces ops.
constexpr SimTime kHogThink = SimTime::ms(10);
constexpr int kPieces = 1000;
constexpr SimTime kPiece = SimTime::us(10);  // kHogThink / kPieces
// Past both sched modes' preemption rules for a wake-up on two CPUs (CFS: slept at least the
// wake-up granularity, 2 ms; EEVDF: the sleeper, asleep from its start, is eligible), and 450 us
// before the end of the hog's fourth kUserModePreemptCheck chunk.
constexpr SimTime kSleep = SimTime::us(2550);
constexpr SimTime kSleeperWork = SimTime::us(10);

std::vector<Op> hog_ops(bool in_pieces) {
  if (!in_pieces) return {Op::think(kHogThink)};
  return std::vector<Op>(kPieces, Op::think(kPiece));
}

struct Outcome {
  SimTime sleeper_done;  // the sleeper's clock at its exit
  SimTime hog_done;
  uint64_t user_ns = 0;  // CPU 0's
  uint64_t involuntary_switches = 0;
  uint64_t resched_ipis = 0;  // sent from CPU 1
  uint64_t irq_ns = 0;        // CPU 0's interrupt time
};

// On CPU 0 the hog thinks while the sleeper (another mm) sleeps kSleep, or, with `futex`, waits
// until a waker on CPU 1 wakes it after kSleep; then it works kSleeperWork and exits.
Outcome run(const std::string& policy, bool hog_in_pieces, bool futex) {
  auto sim = make_sim(2, policy + (policy.empty() ? "" : ",") + "wake_affine=off");
  std::vector<Op> sleeper_ops;
  if (futex) {
    sleeper_ops.push_back(Op::futex_wait(kWakeId, SimTime::zero()));
    thread(*sim, kWakerMm, 1, {Op::think(kSleep), Op::futex_wake(kWakeId)});
  } else {
    sleeper_ops.push_back(Op::sleep(kSleep));
  }
  sleeper_ops.push_back(Op::think(kSleeperWork));
  // The sleeper first, so that it is asleep when the hog starts.
  Task& sleeper = thread(*sim, kSleeperMm, 0, std::move(sleeper_ops));
  Task& hog = thread(*sim, kHogMm, 0, hog_ops(hog_in_pieces));
  sim->run();
  EXPECT_TRUE(hog.finished() && sleeper.finished());
  Outcome o;
  o.sleeper_done = sleeper.clock();
  o.hog_done = hog.clock();
  o.user_ns = sim->cpu(0).counters.user_ns;
  o.involuntary_switches = sim->cpu(0).counters.involuntary_switches;
  o.resched_ipis = sim->cpu(1).counters.resched_ipis;
  o.irq_ns = sim->cpu(0).counters.irq_ns;
  return o;
}

class WakeupPreemptionTest : public ::testing::TestWithParam<const char*> {};

// A hog in one long think and one whose think is a thousand 10-us thinks, each ending at a sync
// point: the sleeper gets the CPU at the same instant within a piece, where it waited up to a
// chunk for the long think. The hog's user time is its think, counted once.
TEST_P(WakeupPreemptionTest, ATimerWakeUpPreemptsAUserModeRunWhereItLands) {
  const Outcome whole = run(GetParam(), false, false);
  const Outcome pieces = run(GetParam(), true, false);
  EXPECT_LE(whole.sleeper_done, pieces.sleeper_done + kPiece);
  EXPECT_GE(whole.sleeper_done + kPiece, pieces.sleeper_done);
  EXPECT_LT(whole.sleeper_done, kSleep + SimTime::us(100));
  EXPECT_EQ(whole.involuntary_switches, 1u);
  EXPECT_EQ(whole.user_ns, static_cast<uint64_t>((kHogThink + kSleeperWork).count_ns()));
  EXPECT_EQ(pieces.user_ns, whole.user_ns);
  // The hog's think is all done, after the sleeper's work and the switches.
  EXPECT_GT(whole.hog_done, kHogThink + kSleeperWork);
  EXPECT_EQ(whole.resched_ipis, 0u);  // the timer fires on the sleeper's own CPU
}

// From CPU 1 the wake-up needs a reschedule IPI: the waker pays its send, and the preemption
// lands after its delivery and the interrupt's entry on CPU 0.
TEST_P(WakeupPreemptionTest, ARemoteWakeUpPreemptsOnceItsRescheduleIpiLands) {
  const Outcome whole = run(GetParam(), false, true);
  const Outcome pieces = run(GetParam(), true, true);
  EXPECT_EQ(whole.resched_ipis, 1u);
  EXPECT_EQ(pieces.resched_ipis, 1u);
  EXPECT_LE(whole.sleeper_done, pieces.sleeper_done + kPiece);
  EXPECT_GE(whole.sleeper_done + kPiece, pieces.sleeper_done);
  const CostProfile c = make_sim(1)->costs();  // a copy: the simulation goes with the statement
  EXPECT_GE(whole.sleeper_done,
            kSleep + c.ipi_send + c.ipi_delivery + c.ipi_handler_entry + kSleeperWork);
  EXPECT_LT(whole.sleeper_done, kSleep + SimTime::us(100));
  EXPECT_EQ(whole.user_ns, static_cast<uint64_t>((kHogThink + kSleeperWork).count_ns()));
  // The interrupt is CPU 0's only one.
  EXPECT_EQ(whole.irq_ns, static_cast<uint64_t>(c.ipi_handler_entry.count_ns()));
  EXPECT_EQ(pieces.irq_ns, whole.irq_ns);
}

// A hog in the kernel (faults on kernel accesses back to back, no user-mode work between them)
// cannot be cut: the reschedule IPI still interrupts it, which costs its entry, and the
// preemption waits for the hog's next preemption point, the end of the fault it is in.
TEST_P(WakeupPreemptionTest, ARescheduleIpiToATaskInTheKernelCostsItsEntryThere) {
  auto sim = make_sim(2, std::string(GetParam()) + ",wake_affine=off");
  constexpr uint64_t kBase = 0x10000000;
  constexpr uint64_t kPages = 16384;  // longer than kSleep at any profile's fault cost
  std::vector<Op> hog = {Op::mmap_anon(kBase, kPages * PAGE_SIZE, PROT_READ | PROT_WRITE)};
  for (uint64_t i = 0; i < kPages; ++i)
    hog.push_back(Op::page_fault(kBase + i * PAGE_SIZE, true, /*user=*/false));
  Task& sleeper = thread(*sim, kSleeperMm, 0,
                         {Op::futex_wait(kWakeId, SimTime::zero()), Op::think(kSleeperWork)});
  Task& faulter = thread(*sim, kHogMm, 0, std::move(hog));
  thread(*sim, kWakerMm, 1, {Op::think(kSleep), Op::futex_wake(kWakeId)});
  sim->run();
  EXPECT_TRUE(faulter.finished() && sleeper.finished());
  EXPECT_GT(faulter.clock(), kSleep + kSleeperWork);  // still faulting when the wake-up came
  EXPECT_EQ(sim->cpu(1).counters.resched_ipis, 1u);
  const CostProfile c = make_sim(1)->costs();
  EXPECT_EQ(sim->cpu(0).counters.irq_ns, static_cast<uint64_t>(c.ipi_handler_entry.count_ns()));
  EXPECT_EQ(sim->cpu(0).counters.involuntary_switches, 1u);
  EXPECT_LT(sleeper.clock(), kSleep + SimTime::us(100));
}

// A wake-up the rules do not let preempt (EEVDF: the wakee has had more than its share, 1 ms
// of think while the hog waited; CFS: it slept less than the wakeup granularity) leaves the
// hog's run alone and sends no reschedule IPI: the sleeper waits for the tick that ends the
// hog's slice.
TEST_P(WakeupPreemptionTest, NoIpiAndNoCutForAWakeeThatDoesNotPreempt) {
  auto sim = make_sim(2, std::string(GetParam()) + ",wake_affine=off");
  Task& sleeper = thread(*sim, kSleeperMm, 0,
                         {Op::think(SimTime::ms(1)), Op::futex_wait(kWakeId, SimTime::zero()),
                          Op::think(kSleeperWork)});
  Task& hog = thread(*sim, kHogMm, 0, {Op::think(kHogThink)});
  thread(*sim, kWakerMm, 1, {Op::think(SimTime::us(1100)), Op::futex_wake(kWakeId)});
  sim->run();
  EXPECT_TRUE(hog.finished() && sleeper.finished());
  EXPECT_EQ(sim->cpu(1).counters.resched_ipis, 0u);
  EXPECT_EQ(sim->cpu(0).counters.involuntary_switches, 1u);  // the hog, at the tick
  EXPECT_GE(sleeper.clock(), SimTime::ms(4));  // the tick, not the wake-up, gave it the CPU
}

INSTANTIATE_TEST_SUITE_P(CfsAndEevdf, WakeupPreemptionTest,
                         ::testing::Values("sched=cfs", "sched=eevdf"));

}  // namespace wakeup_preemption
}  // namespace
}  // namespace mmreplay::kernelsim
