// Swap entries fork shares (mm/swap_count.h): fork copies a swapped pte, the child's access
// reads the page from swap, the other side finds it in the swap cache, a write copies it, the last
// holder frees the slot, and reclaim of a fork-shared page gives every mapper the entry. The swap
// account (SwapInfo invariant (1)) is checked at each step.

#include "kernelsim/mm/swap_count.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/pgtable.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::expect_swap_accounted;
using testing::kMiB;
using testing::kPage;
using testing::pte_at;
using testing::write_anon;

constexpr uint32_t kParent = 1;
constexpr uint32_t kChild = 2;
constexpr uint64_t kA = 0x10000000;  // the parent's data
constexpr uint64_t kB = 0x40000000;  // pressure
constexpr uint8_t kSharedEntry = pte::kSwapped | pte::kCowShared;

// The fork happens once the parent has written its memory and reclaim has settled.
constexpr SimTime kFork = SimTime::ms(20'000);
constexpr SimTime kStep = SimTime::ms(1'000);

// 64 MiB of memory, `swap_mib` of swap, two CPUs: the parent on CPU 0, the child on CPU 1.
std::unique_ptr<Simulation> machine(uint64_t swap_mib, std::string policy = "",
                                    SwapDevice device = SwapDevice::kBlock) {
  std::string error;
  MachineConfig m;
  m.nr_cpus = 2;
  m.memory_bytes = 64 * kMiB;
  m.swap_bytes = swap_mib * kMiB;
  m.swap_device = device;
  auto sim = Simulation::create(m, cost_profile_default(), policy, &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

// The parent writes 80 MiB on the 64 MiB machine (its first pages go to swap) and then runs
// `after` from kFork + 2 steps; the child forks at kFork and runs `child` from kFork + 1 step.
void fork_after_swapping(Simulation& sim, std::vector<Op> child, std::vector<Op> after = {}) {
  std::vector<Op> parent = write_anon(kA, 80);
  parent.push_back(Op::sleep(kFork + 2 * kStep));
  parent.insert(parent.end(), after.begin(), after.end());
  parent.push_back(Op::sleep(SimTime::ms(100'000)));
  testing::thread(sim, kParent, 0, std::move(parent));
  std::vector<Op> ops = {Op::mm_create(kChild, kParent), Op::sleep(kStep)};
  ops.insert(ops.end(), child.begin(), child.end());
  ops.push_back(Op::sleep(SimTime::ms(50'000)));
  testing::thread(sim, kChild, 1, std::move(ops), kFork);
}

TEST(SwapCountTest, ForkSharesEverySwapEntryWithoutTakingASlot) {
  auto sim = machine(256);
  fork_after_swapping(*sim, {});
  sim->run_until(kFork - SimTime::ms(1));
  const uint64_t swapped = sim->find_mm(kParent)->swapents;
  const uint64_t inuse = sim->swap().inuse();
  ASSERT_GT(swapped, 0u) << "the parent's first pages are in swap";
  ASSERT_EQ(pte_at(*sim, kA, kParent), pte::kSwapped);
  sim->run_until(kFork + SimTime::ms(500));
  EXPECT_EQ(sim->stats().vm.fork_swap_entries_copied, swapped);
  EXPECT_EQ(sim->find_mm(kChild)->swapents, swapped);
  EXPECT_EQ(sim->swap().shared_refs(), swapped);
  EXPECT_EQ(sim->swap().inuse(), inuse) << "swap_duplicate() takes no slot";
  EXPECT_EQ(pte_at(*sim, kA, kParent), kSharedEntry);
  EXPECT_EQ(pte_at(*sim, kA, kChild), kSharedEntry);
  expect_swap_accounted(*sim);
}

// The child's read is a major fault; the parent then finds the page in the swap cache (a minor
// fault) and both map it, the parent without owning it.
TEST(SwapCountTest, TheOtherHolderFindsTheReadPageInTheSwapCache) {
  auto sim = machine(256);
  fork_after_swapping(*sim, {Op::page_fault(kA, false)}, {Op::page_fault(kA, false)});
  sim->run_until(kFork + SimTime::ms(500));
  const VmCounters before = sim->stats().vm;
  sim->run_until(kFork + kStep + SimTime::ms(500));
  EXPECT_EQ(sim->stats().vm.pgmajfault, before.pgmajfault + 1);
  const uint8_t child = pte_at(*sim, kA, kChild);
  EXPECT_TRUE(pte::is_mapped(child) && (child & pte::kOwnPage) && (child & pte::kCowShared));
  EXPECT_FALSE(child & pte::kDirty) << "mapped read-only: the page is in the swap cache";
  EXPECT_EQ(pte_at(*sim, kA, kParent), pte::kPresent | pte::kCowShared | pte::kSwapCache);
  expect_swap_accounted(*sim);

  const VmCounters read = sim->stats().vm;
  sim->run_until(kFork + 2 * kStep + SimTime::ms(500));
  EXPECT_EQ(sim->stats().vm.pgmajfault, read.pgmajfault) << "no second read";
  EXPECT_EQ(sim->stats().vm.fault_swapcache, read.fault_swapcache + 1);
  EXPECT_EQ(sim->stats().vm.pages_alloc, read.pages_alloc);
  const uint8_t parent = pte_at(*sim, kA, kParent);
  EXPECT_TRUE(pte::is_mapped(parent) && (parent & pte::kCowShared));
  EXPECT_FALSE(parent & (pte::kOwnPage | pte::kSwapCache));
  expect_swap_accounted(*sim);
}

// do_swap_page() -> do_wp_page(): the child's write reads the page and copies it in one fault;
// the page read stays in the swap cache, the parent's now.
TEST(SwapCountTest, AWriteCopiesThePageAndLeavesTheSwapCachePageToTheOtherHolder) {
  auto sim = machine(256);
  fork_after_swapping(*sim, {Op::page_fault(kA, true)}, {Op::page_fault(kA, false)});
  sim->run_until(kFork + SimTime::ms(500));
  const VmCounters before = sim->stats().vm;
  sim->run_until(kFork + kStep + SimTime::ms(500));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pgfault, before.pgfault + 1) << "one fault";
  EXPECT_EQ(vm.pgmajfault, before.pgmajfault + 1);
  EXPECT_EQ(vm.fault_cow, before.fault_cow + 1);
  const uint8_t child = pte_at(*sim, kA, kChild);
  EXPECT_TRUE(pte::is_mapped(child) && (child & pte::kOwnPage) && (child & pte::kDirty));
  EXPECT_FALSE(child & pte::kCowShared);
  const uint8_t parent = pte_at(*sim, kA, kParent);
  EXPECT_EQ(parent & ~pte::kCowShared, pte::kPresent | pte::kOwnPage | pte::kSwapCache);
  expect_swap_accounted(*sim);

  const VmCounters copied = sim->stats().vm;
  sim->run_until(kFork + 2 * kStep + SimTime::ms(500));
  EXPECT_EQ(sim->stats().vm.pgmajfault, copied.pgmajfault);
  EXPECT_EQ(sim->stats().vm.fault_swapcache, copied.fault_swapcache + 1);
  expect_swap_accounted(*sim);
}

// The child exits without touching the entries: each is the parent's alone again, and the
// parent's munmap frees every slot.
TEST(SwapCountTest, TheLastHolderFreesTheSlot) {
  auto sim = machine(256);
  fork_after_swapping(*sim, {Op::mm_exit()}, {Op::munmap(kA, 80 * kMiB)});
  sim->run_until(kFork + kStep + SimTime::ms(500));
  ASSERT_TRUE(sim->find_mm(kChild)->dead);
  EXPECT_EQ(sim->swap().shared_refs(), 0u);
  EXPECT_EQ(pte_at(*sim, kA, kParent), pte::kSwapped);
  EXPECT_TRUE(sim->find_mm(kParent)->shared_swap.empty());
  expect_swap_accounted(*sim);
  sim->run_until(kFork + 2 * kStep + SimTime::ms(500));
  EXPECT_EQ(sim->swap().inuse(), 0u);
  expect_swap_accounted(*sim);
}

// The parent's munmap first: the child's entries are its own, and its exit frees them.
TEST(SwapCountTest, EitherSideMayLetGoFirst) {
  auto sim = machine(256);
  fork_after_swapping(*sim, {Op::sleep(3 * kStep), Op::mm_exit()}, {Op::munmap(kA, 80 * kMiB)});
  sim->run_until(kFork + 2 * kStep + SimTime::ms(500));
  EXPECT_EQ(sim->find_mm(kParent)->swapents, 0u);
  EXPECT_GT(sim->find_mm(kChild)->swapents, 0u);
  EXPECT_EQ(pte_at(*sim, kA, kChild), pte::kSwapped);
  expect_swap_accounted(*sim);
  sim->run_until(kFork + 5 * kStep);
  EXPECT_EQ(sim->swap().inuse(), 0u);
  expect_swap_accounted(*sim);
}

// A page shared by fork and then reclaimed: try_to_unmap() gives both ptes the entry, so the
// child's later access reads it back (a major fault) instead of finding it still mapped.
TEST(SwapCountTest, ReclaimOfAForkSharedPageGivesEveryMapperTheEntry) {
  auto sim = machine(256);
  std::vector<Op> parent = write_anon(kA, 16);
  parent.push_back(Op::sleep(SimTime::ms(2'000)));
  std::vector<Op> pressure = write_anon(kB, 80);
  parent.insert(parent.end(), pressure.begin(), pressure.end());
  parent.push_back(Op::sleep(SimTime::ms(100'000)));
  testing::thread(*sim, kParent, 0, std::move(parent));
  testing::thread(*sim, kChild, 1,
                  {Op::mm_create(kChild, kParent), Op::sleep(kFork), Op::page_fault(kA, false),
                   Op::sleep(SimTime::ms(50'000))},
                  SimTime::ms(1'000));
  sim->run_until(SimTime::ms(1'500));
  ASSERT_EQ(pte_at(*sim, kA, kChild), pte::kPresent | pte::kCowShared);
  sim->run_until(kFork);
  const uint64_t unmapped = sim->stats().vm.fork_swap_entries_unmapped;
  EXPECT_GT(unmapped, 0u) << "the pressure swapped the shared pages out";
  EXPECT_EQ(sim->find_mm(kChild)->swapents, unmapped);
  ASSERT_EQ(pte_at(*sim, kA, kChild), kSharedEntry);
  EXPECT_EQ(pte_at(*sim, kA, kParent), kSharedEntry);
  expect_swap_accounted(*sim);
  const uint64_t majflt = sim->stats().vm.pgmajfault;
  sim->run_until(kFork + SimTime::ms(1'500));
  EXPECT_EQ(sim->stats().vm.pgmajfault, majflt + 1);
  expect_swap_accounted(*sim);
}

// On zram (SWP_SYNCHRONOUS_IO, 4.15+) a read of an entry only one pte holds skips the swap
// cache; a shared one goes through it, so the other holder's access is a minor fault.
TEST(SwapCountTest, OnZramASharedEntryStillGoesThroughTheSwapCache) {
  auto sim = machine(256, "", SwapDevice::kSynchronous);
  fork_after_swapping(*sim, {Op::page_fault(kA, false)}, {Op::page_fault(kA, false)});
  sim->run_until(kFork + kStep + SimTime::ms(500));
  EXPECT_EQ(pte_at(*sim, kA, kParent), pte::kPresent | pte::kCowShared | pte::kSwapCache);
  const VmCounters read = sim->stats().vm;
  sim->run_until(kFork + 2 * kStep + SimTime::ms(500));
  EXPECT_EQ(sim->stats().vm.pgmajfault, read.pgmajfault);
  EXPECT_EQ(sim->stats().vm.fault_swapcache, read.fault_swapcache + 1);
  expect_swap_accounted(*sim);
}

// mremap moves the parent's shared entries: their record follows, the child's exit leaves the
// moved ptes the parent's own entries, and the parent's munmap frees them.
TEST(SwapCountTest, MremapMovesASharedEntrysRecord) {
  constexpr uint64_t kMoved = 0xc0000000;
  auto sim = machine(256);
  fork_after_swapping(
      *sim, {Op::sleep(3 * kStep), Op::mm_exit()},
      {Op::mremap(kA, 80 * kMiB, 80 * kMiB, MREMAP_MAYMOVE | MREMAP_FIXED, kMoved)});
  sim->run_until(kFork + 2 * kStep + SimTime::ms(500));
  ASSERT_EQ(pte_at(*sim, kMoved, kParent), kSharedEntry);
  EXPECT_EQ(pte_at(*sim, kA, kChild), kSharedEntry);
  expect_swap_accounted(*sim);
  sim->run_until(kFork + 5 * kStep);
  ASSERT_TRUE(sim->find_mm(kChild)->dead);
  EXPECT_EQ(pte_at(*sim, kMoved, kParent), pte::kSwapped);
  EXPECT_EQ(sim->swap().shared_refs(), 0u);
  expect_swap_accounted(*sim);
}

// Lets go of every swap entry of a VMA out of the tree, as the zap of a munmap's detached range
// does (mm/mmap.cpp do_munmap_downgrade()).
void zap_detached_entries(Simulation& sim, Mm& mm, Vma& v) {
  for (uint64_t a = v.ptes.next_populated(v.start, v.end); a < v.end;
       a = v.ptes.next_populated(a + kPage, v.end)) {
    uint8_t& p = v.ptes.ref(a);
    if (pte::state(p) != pte::kSwapped) continue;
    swap_entry_free(sim, mm, p, a);
    p = pte::kNone;
  }
}

// A holder whose VMA is out of the tree (a munmap's detached range, before its zap) when the
// other holder exits keeps its entry, and its zap frees the slot.
TEST(SwapCountTest, AHolderOutOfTheTreeKeepsItsEntryWhenTheOtherExits) {
  auto sim = machine(256);
  fork_after_swapping(*sim, {Op::mm_exit()});
  sim->run_until(kFork + SimTime::ms(500));
  Mm& parent = *sim->find_mm(kParent);
  std::unique_ptr<Vma> detached = parent.vmas.erase(parent.vmas.vma_lookup(kA));
  sim->run_until(kFork + kStep + SimTime::ms(500));
  ASSERT_TRUE(sim->find_mm(kChild)->dead);
  EXPECT_EQ(detached->ptes.get(kA), kSharedEntry) << "left as it was: no VMA to find it by";
  zap_detached_entries(*sim, parent, *detached);
  EXPECT_EQ(parent.swapents, 0u);
  EXPECT_TRUE(parent.shared_swap.empty());
  EXPECT_EQ(sim->swap().shared_refs(), 0u);
  expect_swap_accounted(*sim);
}

// The other holder's swap-in while this one's VMA is out of the tree: the page goes to the swap
// cache and this holder keeps its entry beside it; its zap then lets go of it without freeing
// the slot the page holds.
TEST(SwapCountTest, ASwapInWhileAHolderIsOutOfTheTreeLeavesItTheEntry) {
  auto sim = machine(256);
  fork_after_swapping(*sim, {Op::page_fault(kA, false)});
  sim->run_until(kFork + SimTime::ms(500));
  Mm& parent = *sim->find_mm(kParent);
  std::unique_ptr<Vma> detached = parent.vmas.erase(parent.vmas.vma_lookup(kA));
  const uint64_t cached_before = sim->swap().swap_cache_pages();
  sim->run_until(kFork + kStep + SimTime::ms(500));
  EXPECT_GT(sim->swap().swap_cache_pages(), cached_before) << "the child read into the cache";
  EXPECT_EQ(detached->ptes.get(kA), kSharedEntry);
  ASSERT_TRUE(parent.shared_swap.contains(kA));
  EXPECT_TRUE(parent.shared_swap.at(kA)->page_in_swap_cache);
  const uint64_t inuse = sim->swap().inuse();
  zap_detached_entries(*sim, parent, *detached);
  EXPECT_TRUE(parent.shared_swap.empty());
  EXPECT_EQ(sim->swap().shared_refs(), 0u);
  EXPECT_LE(sim->swap().inuse(), inuse);
  EXPECT_GE(sim->swap().inuse(), sim->swap().swap_cache_pages()) << "the cached pages' slots";
  expect_swap_accounted(*sim);
}

}  // namespace
}  // namespace mmreplay::kernelsim
