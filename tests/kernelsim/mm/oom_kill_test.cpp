// The machine-wide OOM killer (mm/oom_kill.h): with no swap, an allocation that reclaim cannot
// satisfy kills the process with the most oom_badness() points, whoever allocates, reaps it, and
// retries. Machines are small (64 MiB, no swap) so that two processes of 40 MiB cannot both fit.

#include "kernelsim/mm/oom_kill.h"

#include <gtest/gtest.h>

#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/page_alloc.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kMiB;
using testing::kPage;
using testing::kPagesPerMiB;
using testing::thread;

constexpr uint64_t kA = 0x10000000;
constexpr uint64_t kB = 0x40000000;
constexpr SimTime kLater = SimTime::ms(100);  // the second process starts once the first is done

// 64 MiB, no swap, 2 CPUs (kswapd on CPU 1).
std::unique_ptr<Simulation> no_swap_machine() {
  return testing::make_sim_with_memory(2, 64 * kMiB);
}

// Maps and writes `mib` MiB at addr, then `after` (a sleep off the CPU, or user work).
std::vector<Op> write_then(uint64_t addr, uint64_t mib, Op after) {
  return {Op::mmap_anon(addr, mib * kMiB, PROT_READ | PROT_WRITE),
          Op::touch(addr, mib * kMiB, true), after};
}

// A small process allocating past the machine's memory gets the large idle one killed: the
// reaper unmaps the sleeping victim's pages, every page of the allocator's write is mapped (no
// failed fault), and SIGKILL ends the victim's sleep (its timer is cancelled: the run does not
// last until it).
TEST(OomKillTest, KillsTheLargestProcessNotTheAllocatorAndReapsItAsleep) {
  auto sim = no_swap_machine();
  thread(*sim, 1, 0, write_then(kA, 40, Op::sleep(SimTime::ms(100'000))));
  thread(*sim, 2, 0, write_then(kB, 24, Op::think(SimTime::ms(1))), kLater);
  sim->run();
  EXPECT_LT(sim->now(), SimTime::ms(1'000)) << "the victim's 100 s sleep ended at the kill";
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.oom, 1u) << "one process killed";
  EXPECT_EQ(vm.fault_oom, 0u) << "the allocator retried once the victim was reaped";
  EXPECT_GE(vm.oom_reaped_pages, 40 * kPagesPerMiB) << "the sleeping victim's pages";
  const Mm& victim = *sim->find_mm(1);
  EXPECT_TRUE(victim.oom_skip);
  EXPECT_EQ(victim.rss_anon, 0u);
  EXPECT_EQ(sim->stats().count(OpKind::kTouch), 2u);
  EXPECT_EQ(vm.fault_anon, (40 + 24) * kPagesPerMiB) << "both writes were mapped in full";
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  ASSERT_EQ(sim->stats().oom_kills.size(), 1u) << "the kill is recorded as the kernel logs it";
  const OomKillRecord& k = sim->stats().oom_kills.front();
  EXPECT_EQ(k.victim_mm, 1u);
  EXPECT_EQ(k.invoked_by, 2u);
  EXPECT_EQ(k.memcg_id, 0u) << "machine-wide";
  EXPECT_EQ(k.anon_rss, 40 * kPagesPerMiB) << "its resident pages at the kill, before the reaper";
  EXPECT_EQ(k.pte_tables, 20u) << "40 MiB of PTE pages";
  EXPECT_GT(k.at, kLater);
}

// A victim asleep in wait4() for the very child whose allocation killed it is woken by the
// SIGKILL and exits before the child does, as oom_victim.c's parent does natively.
TEST(OomKillTest, AVictimInWait4ExitsBeforeTheChildItWaitsFor) {
  constexpr uint64_t kChildTid = 7;
  auto sim = no_swap_machine();
  Task& parent =
      thread(*sim, 1, 0,
             {Op::mmap_anon(kA, 40 * kMiB, PROT_READ | PROT_WRITE), Op::touch(kA, 40 * kMiB, true),
              Op::clone(kChildTid), Op::wait_child(kChildTid, SimTime::ms(1))});
  // The child drops its copy of the parent's pages and writes as much of its own, then lives on.
  std::vector<Op> child_ops = {Op::mm_create(2, 1), Op::munmap(kA, 40 * kMiB)};
  for (const Op& op : write_then(kB, 40, Op::sleep(SimTime::ms(2'000)))) child_ops.push_back(op);
  Task& child = sim->spawn_thread_on_clone(kChildTid, 2, 1,
                                           std::make_unique<VectorOpSource>(std::move(child_ops)));
  sim->run_until(SimTime::ms(1'000));
  EXPECT_EQ(sim->stats().vm.oom, 1u);
  EXPECT_EQ(sim->stats().vm.fault_oom, 0u);
  EXPECT_TRUE(parent.finished()) << "woken from wait4() by the kill";
  EXPECT_FALSE(child.finished());
  EXPECT_EQ(sim->find_mm(2)->rss_anon, 40 * kPagesPerMiB);
  sim->run();
  EXPECT_TRUE(child.finished());
}

// A victim asleep in a futex wait whose wake never comes leaves the futex's queue and exits.
TEST(OomKillTest, AVictimInAFutexWaitLeavesTheQueueAndExits) {
  constexpr uint64_t kNeverWoken = 77;
  auto sim = no_swap_machine();
  Task& victim =
      thread(*sim, 1, 0, write_then(kA, 40, Op::futex_wait(kNeverWoken, SimTime::zero())));
  thread(*sim, 2, 0, write_then(kB, 40, Op::sleep(SimTime::ms(2'000))), kLater);
  sim->run_until(SimTime::ms(1'000));
  EXPECT_EQ(sim->stats().vm.oom, 1u);
  EXPECT_TRUE(victim.finished());
  EXPECT_TRUE(sim->futex_wakes().waiters.empty()) << "futex_unqueue()";
  EXPECT_EQ(sim->find_mm(2)->rss_anon, 40 * kPagesPerMiB);
}

// The allocator is the largest: it is the victim, its allocation fails and its exit frees the
// memory; the smaller process keeps its pages.
TEST(OomKillTest, KillsTheAllocatorWhenItIsTheLargest) {
  auto sim = no_swap_machine();
  thread(*sim, 1, 0, write_then(kA, 8, Op::sleep(SimTime::ms(100'000))));
  thread(*sim, 2, 0, write_then(kB, 80, Op::think(SimTime::ms(1))), kLater);
  sim->run_until(SimTime::ms(50'000));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.oom, 1u);
  EXPECT_EQ(vm.fault_oom, 1u) << "its failed fault ends its ops";
  EXPECT_EQ(vm.oom_reaped_pages, 0u) << "the allocator's own exit frees its memory";
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 8 * kPagesPerMiB) << "the smaller process is left alone";
  EXPECT_FALSE(sim->find_mm(1)->oom_skip);
  EXPECT_EQ(sim->nr_live_tasks(), 1u) << "the allocator was killed and exited";
}

// One process of two threads allocating past memory: the OOM kills the process once, both
// threads end, and the process's exit frees every page.
TEST(OomKillTest, KillsEveryThreadOfTheVictimOnce) {
  auto sim = no_swap_machine();
  thread(*sim, 1, 0, write_then(kA, 40, Op::think(SimTime::ms(1))));
  thread(*sim, 1, 1, write_then(kB, 40, Op::think(SimTime::ms(1))));
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.oom, 1u) << "one kill for the process, not one per thread";
  EXPECT_GE(vm.fault_oom, 1u);
  EXPECT_EQ(sim->nr_live_tasks(), 0u) << "both threads ended";
  EXPECT_EQ(sim->page_alloc().allocated(), 0u) << "the process's exit freed its memory";
}

// Two allocators run out together: one kill serves both (the second finds the victim killed, and
// waits for its memory or finds it reaped), and both writes complete.
TEST(OomKillTest, TwoAllocatorsShareOneKill) {
  auto sim = no_swap_machine();
  thread(*sim, 1, 0, write_then(kA, 40, Op::sleep(SimTime::ms(100'000))));
  thread(*sim, 2, 0, write_then(kB, 14, Op::sleep(SimTime::ms(100'000))), kLater);
  thread(*sim, 3, 1, write_then(kB, 14, Op::sleep(SimTime::ms(100'000))), kLater);
  sim->run_until(SimTime::ms(50'000));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.oom, 1u);
  EXPECT_EQ(vm.fault_oom, 0u);
  EXPECT_EQ(sim->find_mm(2)->rss_anon, 14 * kPagesPerMiB);
  EXPECT_EQ(sim->find_mm(3)->rss_anon, 14 * kPagesPerMiB);
}

// oom_badness(): resident pages, swap entries and page-table pages.
TEST(OomKillTest, BadnessCountsResidentSwappedAndPageTablePages) {
  auto sim = no_swap_machine();
  thread(*sim, 1, 0, write_then(kA, 4, Op::sleep(SimTime::ms(100'000))));
  sim->run_until(SimTime::ms(1'000));
  const Mm& mm = *sim->find_mm(1);
  EXPECT_EQ(oom_badness(mm), 4 * kPagesPerMiB + 2) << "4 MiB at a 2 MiB boundary: two PTE pages";
}

}  // namespace
}  // namespace mmreplay::kernelsim
