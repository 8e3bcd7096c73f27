// Fork (kernel/fork.h): the child's mm is a copy of the parent's, private pages shared
// copy-on-write; an mm is torn down by its last user's exit.

#include "kernelsim/kernel/fork.h"

#include <gtest/gtest.h>

#include <string>

#include "kernelsim/mm/mm_types.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr uint32_t kParent = 1;
constexpr uint32_t kChild = 2;

// The parent maps 4 pages and writes them, then `after` (from 1 ms on); the child forks at
// 100 us (mm_create with a parent, as the replay gives it) and runs `child_ops`.
std::unique_ptr<Simulation> fork_sim(std::vector<Op> child_ops, std::vector<Op> after = {},
                                     const std::string& policy = "") {
  auto sim = make_sim(2, policy);
  std::vector<Op> parent = {Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE),
                            Op::touch(kBase, 4 * kPage, true), Op::sleep(SimTime::ms(1))};
  parent.insert(parent.end(), after.begin(), after.end());
  parent.push_back(Op::sleep(SimTime::ms(1)));
  thread(*sim, kParent, 0, std::move(parent));
  child_ops.insert(child_ops.begin(), Op::mm_create(kChild, kParent));
  thread(*sim, kChild, 1, std::move(child_ops), SimTime::us(100));
  return sim;
}

uint8_t pte_of(Simulation& sim, uint32_t mm, uint64_t addr) {
  return sim.find_mm(mm)->vmas.vma_lookup(addr)->ptes.get(addr);
}

TEST(ForkTest, ChildSeesTheParentsVmasAndPagesSharedWriteProtected) {
  auto sim = fork_sim({Op::sleep(SimTime::ms(1))});
  sim->run_until(SimTime::us(99));
  const uint64_t flushes_before = sim->stats().vm.nr_tlb_flush_calls;
  sim->run_until(SimTime::us(500));
  Mm& parent = *sim->find_mm(kParent);
  Mm& child = *sim->find_mm(kChild);
  ASSERT_EQ(child.vmas.size(), parent.vmas.size());
  const Vma* v = child.vmas.vma_lookup(kBase);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->start, kBase);
  EXPECT_EQ(v->end, kBase + 4 * kPage);
  EXPECT_EQ(sim->stats().vm.fork_ptes_copied, 4u);
  EXPECT_EQ(parent.rss_anon, 4u);  // the parent owns the frames (Mm invariant (4))
  EXPECT_EQ(child.rss_anon, 0u);
  for (uint64_t a = kBase; a < kBase + 4 * kPage; a += kPage) {
    EXPECT_TRUE(pte_of(*sim, kParent, a) & pte::kCowShared);
    EXPECT_TRUE(pte_of(*sim, kParent, a) & pte::kOwnPage);
    EXPECT_TRUE(pte_of(*sim, kChild, a) & pte::kCowShared);
    EXPECT_FALSE(pte_of(*sim, kChild, a) & pte::kOwnPage);
  }
  // flush_tlb_mm(oldmm) after write-protecting the parent's ptes.
  EXPECT_EQ(sim->stats().vm.nr_tlb_flush_calls, flushes_before + 1);
}

TEST(ForkTest, ChildWriteCopiesAndReadShares) {
  auto sim = fork_sim({Op::page_fault(kBase, true), Op::page_fault(kBase + kPage, false),
                       Op::sleep(SimTime::ms(1))});
  sim->run_until(SimTime::us(99));
  const uint64_t alloc_before = sim->stats().vm.pages_alloc;
  sim->run_until(SimTime::us(500));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.fault_cow, 1u);
  EXPECT_EQ(vm.pages_alloc, alloc_before + 1);
  EXPECT_EQ(vm.fault_segv, 0u);
  EXPECT_EQ(sim->find_mm(kChild)->rss_anon, 1u);
  EXPECT_EQ(sim->find_mm(kParent)->rss_anon, 4u);
  EXPECT_TRUE(pte_of(*sim, kChild, kBase) & pte::kOwnPage);           // its own copy
  EXPECT_FALSE(pte_of(*sim, kChild, kBase + kPage) & pte::kOwnPage);  // still the parent's
  EXPECT_TRUE(pte_of(*sim, kParent, kBase) & pte::kOwnPage);          // the parent keeps its page
}

TEST(ForkTest, ParentWriteCopiesWhileTheChildMapsAndReusesAfterItExited) {
  // The child exits at once for page 0..3; the parent writes at 1 ms: no one else maps them.
  auto sim = fork_sim({}, {Op::touch(kBase, 4 * kPage, true)});
  sim->run_until(SimTime::us(500));
  EXPECT_TRUE(sim->find_mm(kChild)->dead);
  const uint64_t alloc_before = sim->stats().vm.pages_alloc;
  sim->run();
  EXPECT_EQ(sim->stats().vm.fault_wp_reuse, 4u);
  EXPECT_EQ(sim->stats().vm.fault_cow, 0u);
  EXPECT_EQ(sim->stats().vm.pages_alloc, alloc_before);
  EXPECT_EQ(sim->stats().vm.pages_free, sim->stats().vm.pages_alloc);  // all freed at exit

  // A child still mapping the pages: the parent copies, the child is left the old page.
  auto sim2 = fork_sim({Op::sleep(SimTime::ms(5))}, {Op::touch(kBase, 2 * kPage, true)});
  sim2->run_until(SimTime::us(1500));
  EXPECT_EQ(sim2->stats().vm.fault_cow, 2u);
  EXPECT_EQ(sim2->stats().vm.fault_wp_reuse, 0u);
  EXPECT_TRUE(pte_of(*sim2, kChild, kBase) & pte::kOwnPage);
  EXPECT_EQ(sim2->find_mm(kChild)->rss_anon, 2u);
  EXPECT_EQ(sim2->find_mm(kParent)->rss_anon, 4u);
  // The parent exits: the two pages only the child maps now pass to it, not to the free list.
  sim2->run_until(SimTime::ms(4));
  EXPECT_TRUE(sim2->find_mm(kParent)->dead);
  EXPECT_EQ(sim2->find_mm(kChild)->rss_anon, 4u);
  sim2->run();
  EXPECT_EQ(sim2->nr_live_tasks(), 0u);
}

// Parent and child write the 4 fork-shared pages at about the same time (the parent at 1 ms, the
// child, forked at 100 us, after a sleep swept across the parent's writes): where both faults on a
// page decided to copy before either installed its copy, wp_page_copy()'s pte_same() recheck passes
// for both (each pte still maps the old page), so both copy and the old page, mapped by no one, is
// freed by the second.
TEST(ForkTest, ParentAndChildRacingToWriteAPageBothCopyItAndFreeTheOld) {
  int both_copied = 0;
  uint64_t pages_in_use = 0;  // the first run's, which does not race
  for (int64_t ns = 866'000; ns <= 884'000; ns += 500) {
    auto sim = fork_sim(
        {Op::sleep(SimTime::ns(ns)), Op::touch(kBase, 4 * kPage, true), Op::sleep(SimTime::ms(1))},
        {Op::touch(kBase, 4 * kPage, true)}, "memcg=page_counter");
    sim->run_until(SimTime::us(1500));
    const VmCounters& vm = sim->stats().vm;
    SCOPED_TRACE(ns);
    EXPECT_EQ(vm.fault_spurious, 0u);
    // Each page: the first writer copies; the second copies too if it raced, else reuses.
    EXPECT_EQ(vm.fault_cow + vm.fault_wp_reuse, 8u);
    EXPECT_GE(vm.fault_cow, 4u);
    EXPECT_EQ(sim->find_mm(kParent)->rss_anon, 4u);
    EXPECT_EQ(sim->find_mm(kChild)->rss_anon, 4u);
    for (uint64_t a = kBase; a < kBase + 4 * kPage; a += kPage) {
      EXPECT_EQ(pte_of(*sim, kParent, a) & (pte::kOwnPage | pte::kCowShared), pte::kOwnPage);
      EXPECT_EQ(pte_of(*sim, kChild, a) & (pte::kOwnPage | pte::kCowShared), pte::kOwnPage);
    }
    // A page both copied is freed, not leaked or kept: as many pages in use (8 user pages and
    // the page tables) as where the two did not race, none of them allocated but unmapped.
    const uint64_t in_use = vm.pages_alloc - vm.pages_free;
    if (pages_in_use == 0) pages_in_use = in_use;
    EXPECT_EQ(in_use, pages_in_use);
    EXPECT_EQ(sim->lruvec().nr_unframed(), 0u);
    EXPECT_EQ(vm.memcg_charged_pages - vm.memcg_uncharged_pages, 8u) << "the freed page uncharged";
    if (vm.fault_cow > 4) ++both_copied;
    sim->run();
    EXPECT_EQ(sim->stats().vm.pages_free, sim->stats().vm.pages_alloc);
  }
  EXPECT_GT(both_copied, 0);  // the sweep raced on some page
}

TEST(ForkTest, MmCreateOfTheMmATaskIsInDoesNotTearItDown) {
  // Two threads of the child: the first runs mm_create then exits; the second keeps faulting.
  auto sim = fork_sim({});
  thread(*sim, kChild, 1,
         {Op::sleep(SimTime::us(300)), Op::page_fault(kBase, true), Op::sleep(SimTime::ms(1))},
         SimTime::us(100));
  sim->run_until(SimTime::us(500));
  EXPECT_FALSE(sim->find_mm(kChild)->dead);
  EXPECT_EQ(sim->stats().vm.fault_segv, 0u);
  EXPECT_EQ(sim->stats().vm.fault_cow, 1u);
  sim->run();
  EXPECT_TRUE(sim->find_mm(kChild)->dead);  // torn down by its last user's exit
  EXPECT_TRUE(sim->find_mm(kParent)->dead);
}

// The replay of format 1.4: the child waits for the parent's clone (do_clone()).
constexpr uint64_t kChildTid = 77;

// The parent maps 8 pages, writes the first 4, thinks 10 ms, clones, then writes the other 4.
// The child, in mm kChild (fork) or kParent (CLONE_VM), runs mm_create (fork) and sleeps 1 ms.
std::unique_ptr<Simulation> clone_sim(bool fork) {
  auto sim = make_sim(2);
  thread(*sim, kParent, 0,
         {Op::mmap_anon(kBase, 8 * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, 4 * kPage, true), Op::think(SimTime::ms(10)), Op::clone(kChildTid),
          Op::touch(kBase + 4 * kPage, 4 * kPage, true), Op::sleep(SimTime::ms(1))});
  std::vector<Op> child;
  if (fork) child.push_back(Op::mm_create(kChild, kParent));
  child.push_back(Op::sleep(SimTime::ms(1)));
  sim->spawn_thread_on_clone(kChildTid, fork ? kChild : kParent, 1,
                             std::make_unique<VectorOpSource>(std::move(child)));
  return sim;
}

TEST(ForkTest, TheParentsCloneCopiesWhatItWroteBeforeAndStartsTheChildThen) {
  auto sim = clone_sim(true);
  const Task* child = sim->clone_child(kChildTid);
  ASSERT_NE(child, nullptr);
  sim->run_until(SimTime::ms(9));
  EXPECT_EQ(child->state(), TaskState::kNew);  // not at a recorded time: at the clone
  EXPECT_TRUE(sim->find_mm(kChild)->vmas.empty());
  sim->run_until(SimTime::ms(11));
  EXPECT_EQ(sim->clone_child(kChildTid), nullptr);
  EXPECT_NE(child->state(), TaskState::kNew);
  // Copied by the parent: the 4 pages written before the fork, not the 4 written after it.
  EXPECT_EQ(sim->stats().vm.fork_ptes_copied, 4u);
  EXPECT_TRUE(sim->find_mm(kChild)->forked);
  for (uint64_t i = 0; i < 8; ++i) {
    const uint8_t p = pte_of(*sim, kChild, kBase + i * kPage);
    EXPECT_EQ((p & pte::kCowShared) != 0, i < 4) << i;
  }
  sim->run();
  EXPECT_EQ(sim->stats().vm.fault_segv, 0u);
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_TRUE(sim->find_mm(kChild)->dead);
}

TEST(ForkTest, ACloneWithVmSharesTheMmAndCopiesNothing) {
  auto sim = clone_sim(false);
  sim->run_until(SimTime::ms(11));
  EXPECT_EQ(sim->stats().vm.fork_ptes_copied, 0u);
  EXPECT_EQ(sim->find_mm(kParent)->users, 2u);
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_TRUE(sim->find_mm(kParent)->dead);  // by the last of its two users
}

TEST(ForkTest, ACloneNoTaskWaitsForDoesNothingAndAnUnclaimedChildStillRuns) {
  auto sim = make_sim(2);
  Task& parent = thread(*sim, kParent, 0, {Op::clone(kChildTid), Op::think(SimTime::ms(1))});
  Task& orphan = sim->spawn_thread_on_clone(
      kChildTid + 1, kChild, 1,
      std::make_unique<VectorOpSource>(std::vector<Op>{Op::think(SimTime::ms(2))}));
  sim->run();
  EXPECT_EQ(parent.last_result, 0);  // no child under that key
  EXPECT_TRUE(orphan.finished());    // started once nothing else was left, not left waiting
  EXPECT_GE(sim->now(), SimTime::ms(3));
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
}

// wait4 (do_wait()): the parent sleeps until the child's exit, the recorded wake-up, however
// short its recorded wait was; then the pages it shared with the child are its own again.
TEST(WaitTest, TheParentWakesAtTheChildsExitNotAfterItsRecordedTime) {
  auto sim = make_sim(2);
  Task& parent =
      thread(*sim, kParent, 0,
             {Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE),
              Op::touch(kBase, 4 * kPage, true), Op::clone(kChildTid),
              Op::wait_child(kChildTid, SimTime::us(1)), Op::touch(kBase, 4 * kPage, true)});
  Task& child = sim->spawn_thread_on_clone(
      kChildTid, kChild, 1,
      std::make_unique<VectorOpSource>(std::vector<Op>{
          Op::mm_create(kChild, kParent), Op::think(SimTime::ms(5)), Op::sleep(SimTime::ms(1))}));
  sim->run_until(SimTime::ms(3));
  EXPECT_EQ(parent.state(), TaskState::kSleeping);  // not woken after 1 us
  EXPECT_FALSE(child.finished());
  sim->run();
  EXPECT_TRUE(child.finished());
  EXPECT_GE(sim->now(), SimTime::ms(6));
  // The child's mm was gone before the parent wrote: its writes reuse its pages, no copies.
  EXPECT_EQ(sim->stats().vm.fault_wp_reuse, 4u);
  EXPECT_EQ(sim->stats().vm.fault_cow, 0u);
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
}

// do_wp_page(): both write-protect faults pay wp_pte_update (what a shadow-paging hypervisor adds
// to changing a present pte); only wp_page_copy() flushes the old pte (ptep_clear_flush()), and
// neither looks the page up in the page cache (an anonymous COW has no file).
TEST(ForkTest, WriteProtectFaultsPayWpPteUpdateAndOnlyACopyFlushes) {
  // The parent writes its 4 pages at 1 ms and exits at 3 ms (exit_mmap() flushes too); the child
  // maps them for `child_ms` (5: the writes copy; 0: it exits at once and the writes reuse).
  struct Run {
    uint64_t flushes_in_writes = 0;
    SimTime end;
  };
  auto run = [](SimTime wp_update, SimTime cache_lookup, int child_ms) {
    CostProfile costs = cost_profile_default();
    costs.wp_pte_update = wp_update;
    costs.page_cache_lookup = cache_lookup;
    auto sim = make_sim(2, "", costs);
    thread(
        *sim, kParent, 0,
        {Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE), Op::touch(kBase, 4 * kPage, true),
         Op::sleep(SimTime::ms(1)), Op::touch(kBase, 4 * kPage, true), Op::sleep(SimTime::ms(2))});
    thread(*sim, kChild, 1, {Op::mm_create(kChild, kParent), Op::sleep(SimTime::ms(child_ms))},
           SimTime::us(100));
    sim->run_until(SimTime::us(999));
    Run r;
    const uint64_t before = sim->stats().vm.nr_tlb_flush_calls;
    sim->run_until(SimTime::ms(2));
    r.flushes_in_writes = sim->stats().vm.nr_tlb_flush_calls - before;
    EXPECT_EQ(sim->stats().vm.fault_cow, child_ms > 0 ? 4u : 0u);
    EXPECT_EQ(sim->stats().vm.fault_wp_reuse, child_ms > 0 ? 0u : 4u);
    sim->run();
    r.end = sim->now();  // the parent's exit, the last task's
    return r;
  };
  // One ptep_clear_flush() per copy, whatever the costs.
  EXPECT_EQ(run(SimTime::zero(), SimTime::zero(), 5).flushes_in_writes, 4u);
  EXPECT_EQ(run(SimTime::us(5), SimTime::us(7), 5).flushes_in_writes, 4u);
  // Reuse flushes nothing, and costs exactly wp_pte_update more per fault: the parent's last
  // sleep ends 4 x 5 us later (page_cache_lookup plays no part).
  const Run fast = run(SimTime::zero(), SimTime::zero(), 0);
  const Run slow = run(SimTime::us(5), SimTime::us(7), 0);
  EXPECT_EQ(fast.flushes_in_writes, 0u);
  EXPECT_EQ(slow.flushes_in_writes, 0u);
  EXPECT_EQ(slow.end - fast.end, SimTime::us(20));
}

// wp_page_copy()'s flush reaches every other CPU running the mm: a COW fault of one thread of a
// two-thread process while its sibling computes on another CPU sends that CPU one shootdown IPI.
TEST(ForkTest, CowCopyInAThreadedChildShootsDownItsSiblingsTlb) {
  auto sim = make_sim(3);
  thread(*sim, kParent, 0,
         {Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, 4 * kPage, true), Op::sleep(SimTime::ms(2))});
  thread(*sim, kChild, 1,
         {Op::mm_create(kChild, kParent), Op::think(SimTime::us(200)), Op::page_fault(kBase, true),
          Op::sleep(SimTime::ms(1))},
         SimTime::us(100));
  thread(*sim, kChild, 2, {Op::think(SimTime::ms(1))}, SimTime::us(150));
  sim->run_until(SimTime::us(250));
  const uint64_t ipis_before = sim->cpu_totals().ipis_sent;
  const uint64_t shootdowns_before = sim->stats().vm.nr_tlb_shootdowns;
  sim->run_until(SimTime::us(600));
  EXPECT_EQ(sim->stats().vm.fault_cow, 1u);
  EXPECT_EQ(sim->cpu_totals().ipis_sent - ipis_before, 1u);
  EXPECT_EQ(sim->stats().vm.nr_tlb_shootdowns - shootdowns_before, 1u);
}

TEST(WaitTest, AnExitedChildReturnsAtOnceAndAnUntracedOneSleepsTheRecordedTime) {
  auto sim = make_sim(2);
  thread(
      *sim, kParent, 0,
      {Op::clone(kChildTid), Op::think(SimTime::ms(2)), Op::wait_child(kChildTid, SimTime::ms(50)),
       Op::wait_child(kChildTid + 1, SimTime::ms(3))});
  sim->spawn_thread_on_clone(
      kChildTid, kChild, 1,
      std::make_unique<VectorOpSource>(std::vector<Op>{Op::think(SimTime::ms(1))}));
  sim->run();
  // 2 ms of thinking, no wait for the exited child, 3 ms for the untraced one.
  EXPECT_GE(sim->now(), SimTime::ms(5));
  EXPECT_LT(sim->now(), SimTime::ms(6));
}

// wait4(-1) (do_wait() over the children list): a parent that cloned A, then B, waits for any
// child where the recording reaped A. B exits first in the replay (1 ms against A's 5 ms): the
// first wait reaps B then, the second A at 5 ms. Waiting for A by name, as a wait4(pid) does,
// the first wait lasts until 5 ms and the program ends 2 ms later, after the parent's think.
TEST(WaitTest, AWaitForAnyChildReapsTheFirstToExitNotTheOneRecorded) {
  constexpr uint64_t kA = kChildTid;
  constexpr uint64_t kB = kChildTid + 1;
  for (const bool any : {true, false}) {
    SCOPED_TRACE(any ? "wait4(-1)" : "wait4(pid)");
    auto sim = make_sim(3);
    thread(*sim, kParent, 0,
           {Op::clone(kA), Op::clone(kB), Op::wait_child(kA, SimTime::us(1), any),
            Op::think(SimTime::ms(2)), Op::wait_child(kB, SimTime::us(1), any)});
    Task& a = sim->spawn_thread_on_clone(
        kA, kParent, 1,
        std::make_unique<VectorOpSource>(std::vector<Op>{Op::think(SimTime::ms(5))}));
    Task& b = sim->spawn_thread_on_clone(
        kB, kParent, 2,
        std::make_unique<VectorOpSource>(std::vector<Op>{Op::think(SimTime::ms(1))}));
    sim->run_until(SimTime::ms(2));
    EXPECT_EQ(b.reaped, any);  // reaped at its exit only by the wait for any child
    EXPECT_FALSE(a.reaped);
    sim->run();
    EXPECT_TRUE(a.reaped);
    EXPECT_TRUE(b.reaped);
    const SimTime end = any ? SimTime::ms(5) : SimTime::ms(7);
    EXPECT_GE(sim->now(), end);
    EXPECT_LT(sim->now(), end + SimTime::us(100));
  }
}

// Two children have both exited when the parent waits for any: wait_task_zombie() takes the
// first of its children list, the oldest clone, not the first to exit; the list keeps the rest.
TEST(WaitTest, OfTwoExitedChildrenTheOldestCloneIsReapedFirst) {
  constexpr uint64_t kA = kChildTid;
  constexpr uint64_t kB = kChildTid + 1;
  auto sim = make_sim(3);
  Task& parent =
      thread(*sim, kParent, 0,
             {Op::clone(kA), Op::clone(kB), Op::think(SimTime::ms(3)),
              Op::wait_child(kB, SimTime::us(1), /*any_child=*/true), Op::sleep(SimTime::ms(1))});
  Task& a = sim->spawn_thread_on_clone(
      kA, kParent, 1, std::make_unique<VectorOpSource>(std::vector<Op>{Op::think(SimTime::ms(2))}));
  Task& b = sim->spawn_thread_on_clone(
      kB, kParent, 2, std::make_unique<VectorOpSource>(std::vector<Op>{Op::think(SimTime::ms(1))}));
  sim->run_until(SimTime::us(3500));
  EXPECT_TRUE(a.reaped);
  EXPECT_FALSE(b.reaped);
  ASSERT_EQ(parent.children.size(), 1u);
  EXPECT_EQ(parent.children[0], &b);
  EXPECT_EQ(a.parent, &parent);
}

}  // namespace
}  // namespace mmreplay::kernelsim
