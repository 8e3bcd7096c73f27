// The scheduler as the mm paths feel it: time slices, sleeping frees the CPU, lazy TLB on idle.

#include "kernelsim/sched/core.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "kernelsim/mm/mm_types.h"
#include "kernelsim/sched/cpu.h"
#include "kernelsim/sched/eevdf_lag.h"
#include "kernelsim/sched/time_slice.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::make_sim;
using testing::thread;

// Two busy tasks on one CPU, 10 ms of user time each, as two threads pinned to one CPU of the
// development guest (HZ=250), which switched every 4.0 ms: the slice (EEVDF's 0.75 ms x
// (1 + ilog2(cpus)) or CFS's share of sched_latency) ends at a tick, not in between. Returns the
// simulation after the run.
std::unique_ptr<Simulation> two_busy_tasks_on_cpu0(uint32_t nr_cpus, const std::string& policy) {
  auto sim = make_sim(nr_cpus, policy);
  thread(*sim, 1, 0, {Op::think(SimTime::ms(10))});
  thread(*sim, 2, 0, {Op::think(SimTime::ms(10))});
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_EQ(sim->cpu(0).counters.context_switches, sim->cpu(0).counters.involuntary_switches)
      << "neither sleeps; an exit's switch is not counted";
  return sim;
}

TEST(SchedTest, EevdfPreemptsAtTheTickAfterTheBaseSlice) {
  // One CPU: a 0.75 ms base slice, so each tick (every 4 ms) switches the two: the first runs
  // to 4, 12 and ~18 ms, the second to 8, 16 and ~20 ms.
  auto sim = two_busy_tasks_on_cpu0(1, "");
  EXPECT_EQ(sim->cpu(0).counters.involuntary_switches, 4u);
  EXPECT_GT(sim->now(), SimTime::ms(20));
  EXPECT_LT(sim->now(), SimTime::us(20'200));
  // Each think spans from its first run to its end: ~18 ms for the first, 16 for the second.
  EXPECT_GT(sim->stats().latency(OpKind::kThink).max(),
            static_cast<uint64_t>(SimTime::ms(18).count_ns()));
  EXPECT_GT(sim->stats().latency(OpKind::kThink).min(),
            static_cast<uint64_t>(SimTime::ms(16).count_ns()));
}

TEST(SchedTest, CfsGivesTwoTasksHalfOfSchedLatencyEachToTheNextTick) {
  // Two CPUs: sched_latency 6 ms x 2 = 12 ms, so a 6 ms slice each, which the tick at 8 ms ends:
  // the first runs to 8 and ~18 ms, the second to 16 and ~20 ms.
  auto cfs = two_busy_tasks_on_cpu0(2, "sched=cfs");
  EXPECT_EQ(cfs->cpu(0).counters.involuntary_switches, 2u);
  EXPECT_LT(cfs->now(), SimTime::us(20'200));
  // EEVDF on the same machine: a 1.5 ms base slice, still one tick.
  auto eevdf = two_busy_tasks_on_cpu0(2, "sched=eevdf");
  EXPECT_EQ(eevdf->cpu(0).counters.involuntary_switches, 4u);
}

TEST(SchedTest, TheSliceScalesWithLog2OfTheCpusUpToEight) {
  // get_update_sysctl_factor(): 1 + ilog2(min(cpus, 8)).
  EXPECT_EQ(sched_tunable_factor(1), 1);
  EXPECT_EQ(sched_tunable_factor(2), 2);
  EXPECT_EQ(sched_tunable_factor(3), 2);
  EXPECT_EQ(sched_tunable_factor(4), 3);
  EXPECT_EQ(sched_tunable_factor(8), 4);
  EXPECT_EQ(sched_tunable_factor(160), 4);
  EXPECT_EQ(TimeSlice(SchedSliceMode::kEevdf, 48).base_slice(), SimTime::ms(3));
  // CFS: 12 ms over three tasks on two CPUs; beyond sched_nr_latency tasks, min_granularity.
  const TimeSlice cfs(SchedSliceMode::kCfs, 2);
  EXPECT_EQ(cfs.slice(3), SimTime::ms(4));
  EXPECT_EQ(cfs.slice(9), SimTime::us(1500));
  EXPECT_EQ(cfs.preempt_tick(SimTime::ms(1), 3), SimTime::ms(8));
  EXPECT_EQ(cfs.preempt_tick(SimTime::zero(), 3), SimTime::ms(4)) << "a tick at the slice's end";
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
// timer tick (or a wake-up's resched IPI); the tick preempts it once its slice is used up. Without
// that, a task rewriting its lazily freed pages kept its CPU for a whole 128 MiB pass while the
// task queued behind it waited (madv-bomb under a memcg, `validate --real --pressure`). Starts a
// task that does 1,024 write faults and then rewrites the pages for ~8 ms on CPU 0 of a one-CPU
// machine, and `other` beside it; returns the simulation, not yet run.
std::unique_ptr<Simulation> toucher_and(const std::string& policy, std::vector<Op> other,
                                        SimTime other_start = SimTime::zero()) {
  CostProfile costs = cost_profile_default();
  costs.user_access = SimTime::us(1);  // 1,024 resident pages: 1 ms of user time a pass
  auto sim = make_sim(1, policy, costs);
  constexpr uint64_t kPages = 1024;
  std::vector<Op> ops = {
      Op::mmap_anon(testing::kBase, kPages * testing::kPage, PROT_READ | PROT_WRITE)};
  for (int pass = 0; pass < 8; ++pass) {
    ops.push_back(Op::touch(testing::kBase, kPages * testing::kPage, true));
  }
  thread(*sim, 1, 0, std::move(ops));
  thread(*sim, 2, 0, std::move(other), other_start);
  return sim;
}

TEST(SchedTest, UserModeAccessesArePreemptedAtTheTickThatEndsTheSlice) {
  // A task started at 0.5 ms does not preempt at its first wake-up: it waits for the tick at
  // 4 ms, which finds the toucher's 0.75 ms slice used up.
  auto sim = toucher_and("", {Op::think(SimTime::us(10))}, SimTime::us(500));
  sim->run_until(SimTime::us(3'990));
  EXPECT_EQ(sim->cpu(0).counters.involuntary_switches, 0u);
  sim->run_until(SimTime::us(4'010));
  EXPECT_EQ(sim->cpu(0).counters.involuntary_switches, 1u) << "the toucher, at the tick";
  sim->run();
  EXPECT_EQ(sim->stats().vm.pgfault, 1024u) << "only the first pass faults";
}

// toucher_and() with a task that, once it first runs (at the 4 ms tick: a new task does not
// preempt), sleeps `sleep` and then needs a moment of CPU; run to the end.
std::unique_ptr<Simulation> toucher_and_sleeper(const std::string& policy, SimTime sleep) {
  auto sim = toucher_and(policy, {Op::sleep(sleep), Op::think(SimTime::us(10))});
  sim->run();
  return sim;
}

// The sleeper's sleep, from its start until it had the CPU again (ns).
uint64_t sleeper_wait_ns(const Simulation& sim) {
  return sim.stats().latency(OpKind::kSleep).max();
}

// The longest wait of a sleeper whose wake-up preempts: the toucher's next preemption check.
uint64_t preempting_wait_ns(SimTime sleep) {
  return static_cast<uint64_t>((sleep + kUserModePreemptCheck + SimTime::us(50)).count_ns());
}

// A sleeper woken at 4.3 ms that waits for the 8 ms tick.
void expect_waited_for_the_tick(const Simulation& sim) {
  EXPECT_GT(sleeper_wait_ns(sim), static_cast<uint64_t>(SimTime::us(3'900).count_ns()));
  EXPECT_LT(sleeper_wait_ns(sim), static_cast<uint64_t>(SimTime::us(4'050).count_ns()));
}

TEST(SchedTest, AWakeUpPastTheRunningSliceEndPreemptsItAtOnce) {
  // EEVDF: the sleeper wakes 1.5 ms after the 4 ms tick, past the toucher's new slice (0.75 ms),
  // and takes the CPU at the toucher's next preemption check, not at the 8 ms tick.
  auto eevdf = toucher_and_sleeper("", SimTime::us(1500));
  EXPECT_LT(sleeper_wait_ns(*eevdf), preempting_wait_ns(SimTime::us(1500)));
  EXPECT_EQ(eevdf->cpu(0).counters.involuntary_switches, 2u) << "the tick, then the wake-up";
}

TEST(SchedTest, AnEevdfWakeeOwedCpuTimePreemptsAtOnce) {
  // Woken 0.3 ms after the 4 ms tick, inside the toucher's new slice: the sleeper, which waited
  // 3.5 ms for its first run, is owed CPU time (positive lag), so it is eligible where it is
  // placed and preempts the toucher as it wakes (sched/eevdf_lag.h), in user mode at once.
  auto sim = toucher_and_sleeper("sched=eevdf", SimTime::us(300));
  EXPECT_LT(sleeper_wait_ns(*sim), static_cast<uint64_t>(SimTime::us(350).count_ns()));
  EXPECT_EQ(sim->cpu(0).counters.involuntary_switches, 2u) << "the tick, then the wake-up";
}

// W runs 2 ms of think while H waits on one CPU, then sleeps `sleep` and needs 10 us more.
std::unique_ptr<Simulation> worker_then_sleeper(const std::string& policy, SimTime sleep) {
  auto sim = make_sim(1, policy);
  thread(*sim, 1, 0, {Op::think(SimTime::ms(2)), Op::sleep(sleep), Op::think(SimTime::us(10))});
  thread(*sim, 2, 0, {Op::think(SimTime::ms(10))});
  sim->run();
  return sim;
}

TEST(SchedTest, AnEevdfSleeperPaysItsDebtWhileQueuedAsleep) {
  // As below, but W sleeps 2.5 ms: it stays queued (DELAY_DEQUEUE) while H runs, and H's 2.5 ms
  // pay back W's 1 ms of lag (V moves at half H's rate with two queued), so W wakes eligible and
  // preempts at once. 6.6-6.11 had no delayed dequeue: W keeps the lag it slept with, wakes
  // ineligible and waits.
  auto sim = worker_then_sleeper("sched=eevdf", SimTime::us(2'500));
  EXPECT_LT(sleeper_wait_ns(*sim), static_cast<uint64_t>(SimTime::us(2'550).count_ns()));
  EXPECT_EQ(sim->cpu(0).counters.involuntary_switches, 1u) << "H, at W's wake-up";
  auto parity = worker_then_sleeper("sched=eevdf,eevdf_wakeup=parity", SimTime::us(2'500));
  EXPECT_GT(sleeper_wait_ns(*parity), static_cast<uint64_t>(SimTime::us(2'600).count_ns()));
}

TEST(SchedTest, UnderRunToParityAWakeeInDebtWaitsForTheSliceAndAnOwedOnePreempts) {
  // eevdf_wakeup=parity (6.6-6.11). A sleeper owed CPU time (it waited 3.5 ms for its first run)
  // leaves the toucher ineligible once placed and preempts at once, as under eligible.
  auto owed = toucher_and_sleeper("sched=eevdf,eevdf_wakeup=parity", SimTime::us(300));
  EXPECT_LT(sleeper_wait_ns(*owed), static_cast<uint64_t>(SimTime::us(350).count_ns()));
  // A sleeper beside a spinner that sleeps 500 us 50 times, asleep first: it leaves its first
  // run a little ineligible (the spinner, new, has had nothing), and with no delayed dequeue to
  // pay that back it wakes ineligible and waits for the 4 ms tick that ends the spinner's slice;
  // the 3.5 ms it waited are then owed to it, and its later wake-ups preempt. Under eligible the
  // spinner's run pays the debt while it sleeps, and every wake-up preempts.
  const auto sleeper_beside_spinner = [](const std::string& policy) {
    auto sim = make_sim(1, policy);
    std::vector<Op> ops;
    for (int i = 0; i < 50; ++i) {
      ops.push_back(Op::sleep(SimTime::us(500)));
      ops.push_back(Op::think(SimTime::us(10)));
    }
    Task& sleeper = thread(*sim, 1, 0, std::move(ops));
    thread(*sim, 2, 0, {Op::think(SimTime::ms(200))});
    sim->run();
    return sleeper.clock();
  };
  const SimTime eligible = sleeper_beside_spinner("sched=eevdf");
  const SimTime parity = sleeper_beside_spinner("sched=eevdf,eevdf_wakeup=parity");
  EXPECT_LT(eligible, SimTime::ms(30));  // 50 x 510 us and the switches
  EXPECT_GT(parity, eligible + SimTime::ms(3));
  EXPECT_LT(parity, eligible + SimTime::ms(4));
}

TEST(SchedTest, AnEevdfWakeeThatHadMoreThanItsShareWaitsForTheTick) {
  // One CPU: W runs 2 ms of think while H waits, then sleeps 20 us. It leaves ineligible (lag
  // -1 ms), stays queued (DELAY_DEQUEUE) and is still ineligible when it wakes: H keeps the CPU
  // past its 0.75 ms slice (6.6-6.11: the same, its lag kept from the sleep). At the 4 ms tick W
  // has had its 2 ms and its sleep's syscall, H its 2 ms less the switch to it: W is still a
  // little over its share, so pick_eevdf() gives H another slice, to the 8 ms tick. Under CFS,
  // 20 us is less than the wakeup granularity: H keeps the CPU for its 3 ms slice, to the 8 ms
  // tick.
  for (const auto& [policy, tick] : {std::pair{"sched=eevdf", SimTime::ms(8)},
                                     std::pair{"sched=eevdf,eevdf_wakeup=parity", SimTime::ms(8)},
                                     std::pair{"sched=cfs", SimTime::ms(8)}}) {
    auto sim = worker_then_sleeper(policy, SimTime::us(20));
    const SimTime slept_at = SimTime::ms(2);
    EXPECT_GT(sleeper_wait_ns(*sim), static_cast<uint64_t>((tick - slept_at).count_ns()) - 100'000)
        << policy;
    EXPECT_LT(sleeper_wait_ns(*sim), static_cast<uint64_t>((tick - slept_at).count_ns()) + 50'000)
        << policy;
  }
}

TEST(SchedTest, UnderCfsAWakeePreemptsOnlyAfterSleepingTheWakeupGranularity) {
  // One CPU: a 3 ms slice each (sched_latency 6 ms over two), wakeup granularity 1 ms. Woken
  // 0.3 ms after the 4 ms tick the sleeper is not far enough behind and waits for the tick at
  // 8 ms; woken 1.5 ms after it, it preempts at once.
  expect_waited_for_the_tick(*toucher_and_sleeper("sched=cfs", SimTime::us(300)));
  EXPECT_LT(sleeper_wait_ns(*toucher_and_sleeper("sched=cfs", SimTime::us(1500))),
            preempting_wait_ns(SimTime::us(1500)));
  // The rule itself, on a two-CPU machine (granularity 2 ms).
  const TimeSlice cfs(SchedSliceMode::kCfs, 2);
  EXPECT_EQ(cfs.wakeup_preempt(SimTime::ms(9), SimTime::ms(11)), SimTime::ms(11));
  EXPECT_EQ(cfs.wakeup_preempt(SimTime::ms(10), SimTime::ms(11)), SimTime::infinite());
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

// One CPU, two spinners and a sleeper (asleep first) that wakes 3 ms in, past CFS's wake-up
// granularity and owed CPU time under EEVDF: its wake-up preempts the running spinner, and the
// CPU goes to it, not to the other spinner waiting since the start (pick_next_entity(): the
// wakee is leftmost under CFS, the next buddy under EEVDF). Taking the run queue's head instead
// left it waiting for that spinner's slice.
TEST(SchedTest, AWakeeThatPreemptsRunsNextAheadOfTasksAlreadyWaiting) {
  const SimTime kSleep = SimTime::ms(3);
  for (const char* policy : {"sched=cfs", "sched=eevdf"}) {
    auto sim = make_sim(1, policy);
    Task& sleeper = thread(*sim, 1, 0, {Op::sleep(kSleep), Op::think(SimTime::us(10))});
    thread(*sim, 2, 0, {Op::think(SimTime::ms(20))});
    thread(*sim, 3, 0, {Op::think(SimTime::ms(20))});
    sim->run();
    EXPECT_LT(sleeper_wait_ns(*sim), static_cast<uint64_t>((kSleep + SimTime::us(50)).count_ns()))
        << policy;
    EXPECT_LT(sleeper.clock(), kSleep + SimTime::us(100)) << policy;
  }
}

// pick_eevdf() on a queue set by hand: the eligible task (vruntime at most the queue's mean)
// with the earliest deadline; an ineligible one is passed over whatever its deadline, and
// equal deadlines go to the first queued.
TEST(SchedTest, EevdfPicksTheEarliestDeadlineAmongEligibleTasks) {
  auto sim = make_sim(1, "sched=eevdf");
  Cpu& cpu = sim->cpu(0);
  std::vector<Task*> tasks;
  for (int i = 0; i < 4; ++i) tasks.push_back(&sim->create_task(0, nullptr));
  const auto set = [](Task& t, int64_t v_us, int64_t deadline_us) {
    t.vruntime = SimTime::us(v_us);
    t.eevdf_deadline = SimTime::us(deadline_us);
  };
  // Mean vruntime 2,000 us: tasks 0, 1 and 3 are eligible, task 2 (3,000 us) is not.
  set(*tasks[0], 1'000, 2'500);
  set(*tasks[1], 2'000, 2'200);
  set(*tasks[2], 3'000, 1'000);
  set(*tasks[3], 2'000, 2'200);
  for (Task* t : tasks) cpu.runqueue.push_back(t);
  EXPECT_EQ(eevdf_pick(cpu, sim->now()), std::optional<size_t>(1));
  // Task 1 gone: task 3 has the same deadline and is next; with it gone too, task 0.
  cpu.runqueue.erase(cpu.runqueue.begin() + 1);
  EXPECT_EQ(cpu.runqueue[eevdf_pick(cpu, sim->now()).value()], tasks[3]);
  cpu.runqueue.pop_back();
  EXPECT_EQ(cpu.runqueue[eevdf_pick(cpu, sim->now()).value()], tasks[0]);
  // Task 2 runnable alone beside task 0 asleep but still queued (DELAY_DEQUEUE): V is 2,000 us
  // and task 2 (3,000 us) is not eligible; none is picked until the sleeper is settled.
  cpu.runqueue.pop_front();
  cpu.eevdf_delayed.push_back(tasks[0]);
  EXPECT_EQ(eevdf_pick(cpu, sim->now()), std::nullopt);
  cpu.eevdf_delayed.clear();
  cpu.runqueue.clear();  // the tasks were never started: no CPU of theirs to leave
}

// eevdf_wakeup=parity (6.6-6.11): check_preempt_wakeup_fair() preempts only when pick_eevdf()
// is the wakee. A queue set by hand: A runs, B waits, W wakes (placed at 1,000 us, deadline
// 3,000 us); the base slice is 3,000 us.
TEST(SchedTest, UnderRunToParityAWakeePreemptsOnlyWhenItIsPickEevdfsChoice) {
  auto sim = make_sim(1, "sched=eevdf,eevdf_wakeup=parity");
  Cpu& cpu = sim->cpu(0);
  Task& a = sim->create_task(0, nullptr);
  Task& b = sim->create_task(0, nullptr);
  Task& w = sim->create_task(0, nullptr);
  const SimTime slice = SimTime::us(3'000);
  const auto set = [](Task& t, int64_t v_us, int64_t deadline_us) {
    t.vruntime = SimTime::us(v_us);
    t.eevdf_deadline = SimTime::us(deadline_us);
  };
  cpu.curr = &a;
  cpu.busy_since = sim->now();  // A's vruntime is its own: no run since
  const auto preempts = [&](bool curr_eligible) {
    const EevdfPlacement p{.vruntime = SimTime::us(1'000),
                           .deadline = SimTime::us(3'000),
                           .eligible = true,
                           .curr_eligible = curr_eligible};
    return eevdf_wakeup_preempts(cpu, w, p, sim->now(), EevdfWakeup::kParity, slice);
  };
  // A (2,000 us) is ineligible once W counts in V (1,333 us). B (1,000 us) is eligible, and
  // with the earlier deadline it is the pick, not W; with the later one W is.
  set(a, 2'000, 1'500);
  cpu.runqueue.push_back(&b);
  set(b, 1'000, 2'000);
  EXPECT_FALSE(preempts(false)) << "B's deadline is earlier: pick_eevdf() is B";
  set(b, 1'000, 4'000);
  EXPECT_TRUE(preempts(false));
  cpu.runqueue.clear();
  // A eligible (1,000 us, V 1,000 us) keeps the CPU while its deadline is the one it was picked
  // with (RUN_TO_PARITY); past it, its next one (1,000 + 3,000 us) against W's 3,000 us.
  set(a, 1'000, 5'000);
  EXPECT_FALSE(preempts(true)) << "RUN_TO_PARITY";
  set(a, 1'000, 900);
  EXPECT_TRUE(preempts(true)) << "W's deadline is earlier than A's next";
  set(a, 1'000, 900);
  const EevdfPlacement late{.vruntime = SimTime::us(1'000),
                            .deadline = SimTime::us(4'500),
                            .eligible = true,
                            .curr_eligible = true};
  EXPECT_FALSE(eevdf_wakeup_preempts(cpu, w, late, sim->now(), EevdfWakeup::kParity, slice))
      << "A's next deadline (4,000 us) is earlier";
  EXPECT_TRUE(eevdf_wakeup_preempts(cpu, w, late, sim->now(), EevdfWakeup::kEligible, slice))
      << "6.12+ (as measured on 6.18): an eligible wakee preempts";
  cpu.curr = nullptr;  // the tasks were never started: no CPU of theirs to leave
}

}  // namespace
}  // namespace mmreplay::kernelsim
