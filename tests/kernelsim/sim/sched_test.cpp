// The scheduler as the mm paths feel it: time slices, sleeping frees the CPU, lazy TLB on idle.

#include "kernelsim/sched/core.h"

#include <gtest/gtest.h>

#include "kernelsim/mm/mm_types.h"
#include "kernelsim/sched/cpu.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::make_sim;
using testing::thread;

TEST(SchedTest, TwoTasksOnOneCpuTimeShare) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0, {Op::think(SimTime::ms(3))});
  thread(*sim, 2, 0, {Op::think(SimTime::ms(3))});
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  // Both ran to completion in ~6 ms; neither finished its 3 ms before the other started.
  const uint64_t slices = SimTime::ms(3).count_ns() / sim->machine().time_slice.count_ns();
  EXPECT_GE(sim->cpu(0).counters.context_switches, 2 * slices - 1);
  EXPECT_GE(sim->now(), SimTime::ms(6));
  EXPECT_LT(sim->now(), SimTime::ms(7));
  EXPECT_GT(sim->stats().latency(OpKind::kThink).min(),
            static_cast<uint64_t>(SimTime::ms(5).count_ns()));
}

TEST(SchedTest, SleepingTaskFreesItsCpu) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0, {Op::sleep(SimTime::ms(5))});
  thread(*sim, 2, 0, {Op::think(SimTime::ms(1))});
  sim->run();
  // The thinker ran while the sleeper slept: the whole run takes ~5 ms, not 6.
  EXPECT_LT(sim->now(), SimTime::ms(5) + SimTime::us(100));
  EXPECT_LT(sim->stats().latency(OpKind::kThink).max(),
            static_cast<uint64_t>(SimTime::ms(1).count_ns() + 10'000));
}

// A write loop over resident pages takes no fault, so it reaches the kernel only through the
// timer tick; the tick preempts it once its slice is used up. Without that, a task rewriting its
// lazily freed pages kept its CPU for a whole 128 MiB pass while the task queued behind it
// waited (madv-bomb under a memcg, `validate --real --pressure`).
TEST(SchedTest, UserModeAccessesArePreemptedAtSliceEnd) {
  CostProfile costs = cost_profile_default();
  costs.user_access = SimTime::us(1);  // 1,024 resident pages: 1 ms of user time a pass
  auto sim = make_sim(1, "", costs);
  constexpr uint64_t kPages = 1024;
  thread(*sim, 1, 0,
         {Op::mmap_anon(testing::kBase, kPages * testing::kPage, PROT_READ | PROT_WRITE),
          Op::touch(testing::kBase, kPages * testing::kPage, true),
          Op::touch(testing::kBase, kPages * testing::kPage, true),
          Op::touch(testing::kBase, kPages * testing::kPage, true),
          Op::touch(testing::kBase, kPages * testing::kPage, true)});
  // Wakes while the toucher rewrites its pages, then needs only a moment of CPU.
  thread(*sim, 2, 0, {Op::sleep(SimTime::us(1500)), Op::think(SimTime::us(10))});
  sim->run();
  EXPECT_EQ(sim->stats().vm.pgfault, kPages) << "only the first pass faults";
  // The sleeper waited at most the rest of one slice (and a switch) after its wake-up, not the
  // rest of the toucher's passes (2.5 ms more).
  const SimTime slice = sim->machine().time_slice;
  EXPECT_LT(sim->stats().latency(OpKind::kSleep).max(),
            static_cast<uint64_t>((SimTime::us(1500) + slice + SimTime::us(50)).count_ns()));
}

TEST(SchedTest, IdleCpuKeepsItsLastMmLazily) {
  auto sim = make_sim(2);
  thread(*sim, 1, 0, {Op::think(SimTime::ms(5))});
  thread(*sim, 1, 1, {Op::think(SimTime::us(10))});
  sim->run_until(SimTime::ms(1));
  const Mm* mm = sim->find_mm(1);
  EXPECT_EQ(sim->cpu(1).loaded_mm, mm);
  EXPECT_TRUE(sim->cpu(1).is_lazy);
  EXPECT_TRUE(mm->cpumask.test(1)) << "a lazy CPU stays in mm_cpumask";
  EXPECT_FALSE(sim->cpu(0).is_lazy);
}

TEST(SchedTest, ExitOfTheLastThreadTearsTheMmDown) {
  auto sim = make_sim(2);
  thread(*sim, 1, 0,
         {Op::mmap_anon(testing::kBase, 64 * testing::kPage, PROT_READ | PROT_WRITE),
          Op::touch(testing::kBase, 64 * testing::kPage, true)});
  thread(*sim, 1, 1, {Op::think(SimTime::ms(1))});
  sim->run();
  const Mm* mm = sim->find_mm(1);
  EXPECT_TRUE(mm->dead);
  EXPECT_TRUE(mm->vmas.empty());
  EXPECT_EQ(sim->page_alloc().allocated(), 0u);
  // The exiting CPU keeps the dead mm only lazily, until it switches to another (mmdrop()).
  mm->cpumask.for_each(
      [&sim](uint32_t cpu) { EXPECT_TRUE(sim->cpu(cpu).is_lazy) << "cpu " << cpu; });
}

TEST(SchedTest, MmExitTearsDownWhileOtherThreadsStillRun) {
  auto sim = make_sim(2);
  thread(*sim, 1, 0,
         {Op::mmap_anon(testing::kBase, 64 * testing::kPage, PROT_READ | PROT_WRITE),
          Op::touch(testing::kBase, 64 * testing::kPage, true), Op::mm_exit(),
          Op::think(SimTime::ms(1))});
  thread(*sim, 1, 1, {Op::think(SimTime::ms(2)), Op::touch(testing::kBase, testing::kPage, true)});
  sim->run();
  EXPECT_TRUE(sim->find_mm(1)->dead);
  EXPECT_EQ(sim->stats().vm.pages_free, 64u);
  EXPECT_EQ(sim->stats().vm.fault_segv, 1u) << "an access after exit_mmap() faults";
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
}

TEST(SchedTest, MmCreateMovesTheThreadToANewMm) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0,
         {Op::mmap_anon(testing::kBase, 4 * testing::kPage, PROT_READ | PROT_WRITE),
          Op::touch(testing::kBase, 4 * testing::kPage, true), Op::mm_create(2),
          Op::mmap_anon(testing::kBase, 4 * testing::kPage, PROT_READ), Op::think(SimTime::ms(1))});
  sim->run_until(SimTime::us(500));
  EXPECT_TRUE(sim->find_mm(1)->dead) << "exec drops the old mm";
  EXPECT_EQ(sim->find_mm(2)->vmas.size(), 1u);
  EXPECT_EQ(sim->cpu(0).loaded_mm, sim->find_mm(2));
}

// A CPU's pending handler time comes out in the order it went in, across the compaction a queue
// that never empties goes through, and a spinner is forgiven only what ran before its grant.
TEST(IrqStealQueueTest, KeepsHandlerOrderAndForgivesOnlyTimeBeforeAGrant) {
  Cpu cpu(0);
  IrqStealQueue& q = cpu.pending_steal;
  int64_t next_in = 0;
  int64_t next_out = 0;
  const auto push = [&] {
    q.push_back(IrqSteal{SimTime::ns(next_in * 10), SimTime::ns(5)});
    ++next_in;
  };
  for (int i = 0; i < 3; ++i) push();
  for (int round = 0; round < 500; ++round) {  // one in, one out: never empty
    push();
    ASSERT_FALSE(q.empty());
    EXPECT_EQ(q.front().start, SimTime::ns(next_out * 10));
    q.pop_front();
    ++next_out;
  }
  EXPECT_EQ(q.end() - q.begin(), 3);
  // Handlers at 5000, 5010, 5020 ns (5 ns each); a grant at 5012 ns: the first ran before it,
  // the second up to 5015 and keeps its last 3 ns from the grant, the third stays whole.
  cpu.forgive_steal_before(SimTime::ns(5012));
  ASSERT_EQ(q.end() - q.begin(), 2);
  EXPECT_EQ(q.begin()[0].start, SimTime::ns(5012));
  EXPECT_EQ(q.begin()[0].duration, SimTime::ns(3));
  EXPECT_EQ(q.begin()[1].start, SimTime::ns(5020));
  EXPECT_EQ(q.begin()[1].duration, SimTime::ns(5));
  cpu.forgive_steal_before(SimTime::ns(6000));
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace mmreplay::kernelsim
