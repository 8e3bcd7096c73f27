// madvise() advice that changes VMA flags (mm/madvise_behavior.h): the write lock, the split and
// merge of the advised range, and what the flags change: mmap read-around (MADV_RANDOM,
// MADV_SEQUENTIAL) and what a fork's child gets (MADV_DONTFORK, MADV_WIPEONFORK).

#include "kernelsim/mm/madvise_behavior.h"

#include <gtest/gtest.h>

#include "kernelsim/mm/mm_types.h"
#include "kernelsim/sim/task.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kFile;
using testing::kPage;
using testing::make_sim;
using testing::run_then_look;
using testing::sim_with_file;
using testing::thread;

uint64_t acquisitions(const Simulation& sim, const char* cls) {
  const LockClassStats* s = sim.lockstat().find(cls);
  return s == nullptr ? 0 : s->acquisitions;
}

const Vma& vma_at(const Simulation& sim, uint64_t addr) {
  return *sim.find_mm(1)->vmas.vma_lookup(addr);
}

TEST(MadviseBehaviorTest, RandomTakesTheWriteLockSplitsTheRangeAndNormalMergesItBack) {
  auto sim = make_sim(1);
  run_then_look(*sim, {Op::mmap_anon(kBase, 16 * kPage, PROT_READ | PROT_WRITE),
                       Op::madvise(kBase + 4 * kPage, 4 * kPage, MADV_RANDOM)});
  const Mm& mm = *sim->find_mm(1);
  EXPECT_EQ(mm.vmas.size(), 3u) << "split at both ends of the range";
  EXPECT_EQ(vma_at(*sim, kBase + 4 * kPage).vm_flags, VM_RAND_READ);
  EXPECT_EQ(vma_at(*sim, kBase + 4 * kPage).end, kBase + 8 * kPage);
  EXPECT_EQ(vma_at(*sim, kBase).vm_flags, 0u);
  EXPECT_EQ(acquisitions(*sim, "&mm->mmap_sem-W"), 2u) << "the mmap and the madvise";

  auto back = make_sim(1);
  run_then_look(*back, {Op::mmap_anon(kBase, 16 * kPage, PROT_READ | PROT_WRITE),
                        Op::madvise(kBase + 4 * kPage, 4 * kPage, MADV_RANDOM),
                        Op::madvise(kBase, 16 * kPage, MADV_NORMAL),
                        Op::madvise(kBase, 16 * kPage, MADV_NORMAL)});
  EXPECT_EQ(back->find_mm(1)->vmas.size(), 1u) << "the flags match again: merged";
  EXPECT_EQ(vma_at(*back, kBase).vm_flags, 0u);
  EXPECT_EQ(acquisitions(*back, "&mm->mmap_sem-W"), 4u)
      << "a flag advice takes the write lock even when it changes nothing";
}

TEST(MadviseBehaviorTest, AHoleIsEnomemButTheMappedPartsAreAdvised) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE),
          Op::mmap_anon(kBase + 8 * kPage, 4 * kPage, PROT_READ | PROT_WRITE),
          Op::madvise(kBase, 12 * kPage, MADV_DONTFORK), Op::think(SimTime::ms(100))});
  sim->run_until(SimTime::ms(50));
  EXPECT_EQ(sim->tasks().front()->last_result, -ERRNO_ENOMEM);
  EXPECT_EQ(vma_at(*sim, kBase).vm_flags, VM_DONTCOPY);
  EXPECT_EQ(vma_at(*sim, kBase + 8 * kPage).vm_flags, VM_DONTCOPY);
}

TEST(MadviseBehaviorTest, WipeonforkOfAFileMappingIsEinval) {
  auto sim = sim_with_file(kFile, /*warm=*/true, 16);
  thread(*sim, 1, 0,
         {Op::mmap_file(kBase, 4 * kPage, PROT_READ, MAP_PRIVATE, kFile, 0),
          Op::madvise(kBase, 4 * kPage, MADV_WIPEONFORK), Op::think(SimTime::ms(100))});
  sim->run_until(SimTime::ms(50));
  EXPECT_EQ(sim->tasks().front()->last_result, -ERRNO_EINVAL);
  EXPECT_EQ(vma_at(*sim, kBase).vm_flags, 0u);
}

TEST(MadviseBehaviorTest, MergeableMarksPrivateMemoryAndLeavesASharedMappingAlone) {
  auto sim = sim_with_file(kFile, /*warm=*/true, 16);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 16 * kPage, PROT_READ | PROT_WRITE),
          Op::mmap_file(kBase + 32 * kPage, 4 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
          Op::madvise(kBase + 4 * kPage, 4 * kPage, MADV_MERGEABLE),
          Op::madvise(kBase + 32 * kPage, 4 * kPage, MADV_MERGEABLE), Op::think(SimTime::ms(100))});
  sim->run_until(SimTime::ms(50));
  EXPECT_EQ(sim->tasks().front()->last_result, 0) << "a shared mapping: skipped, not refused";
  EXPECT_EQ(vma_at(*sim, kBase + 4 * kPage).vm_flags, VM_MERGEABLE);
  EXPECT_EQ(vma_at(*sim, kBase + 4 * kPage).end, kBase + 8 * kPage) << "split at the range";
  EXPECT_EQ(vma_at(*sim, kBase + 32 * kPage).vm_flags, 0u);
  EXPECT_EQ(acquisitions(*sim, "&mm->mmap_sem-W"), 4u) << "two mmaps, two madvise calls";

  auto back = make_sim(1);
  run_then_look(*back, {Op::mmap_anon(kBase, 16 * kPage, PROT_READ | PROT_WRITE),
                        Op::madvise(kBase + 4 * kPage, 4 * kPage, MADV_MERGEABLE),
                        Op::madvise(kBase, 16 * kPage, MADV_UNMERGEABLE)});
  EXPECT_EQ(back->find_mm(1)->vmas.size(), 1u) << "unmerged: one VMA again";
}

// A cold file read through a mapping, 8 pages from the start: read-around reads the window once
// (one major fault); MADV_RANDOM reads each page alone (eight); MADV_SEQUENTIAL reads a window
// ahead of the first page.
TEST(MadviseBehaviorTest, RandomReadsEachPageAloneAndSequentialReadsAhead) {
  const auto walk = [](int advice) {
    auto sim = sim_with_file(kFile, /*warm=*/false, 256);
    run_then_look(*sim,
                  {Op::mmap_file(kBase, 256 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
                   Op::madvise(kBase, 256 * kPage, advice), Op::touch(kBase, 8 * kPage, false)});
    return sim->stats().vm;
  };
  const VmCounters normal = walk(MADV_NORMAL);
  const VmCounters random = walk(MADV_RANDOM);
  const VmCounters sequential = walk(MADV_SEQUENTIAL);
  EXPECT_EQ(normal.pgmajfault, 1u);
  EXPECT_EQ(random.pgmajfault, 8u) << "no read-around: every page is a miss of its own";
  EXPECT_EQ(random.pgcache_miss, 8u);
  EXPECT_EQ(sequential.pgmajfault, 1u);
  EXPECT_GE(sequential.pgcache_miss, 8u);
  EXPECT_EQ(random.fault_file + random.fault_around_pages, 8u);
}

// MADV_DONTFORK: the child has no such VMA (its access is SIGSEGV); MADV_WIPEONFORK: the child's
// VMA is empty (a read maps the zero page, nothing is shared with the parent).
TEST(MadviseBehaviorTest, DontforkLeavesTheVmaOutOfTheChildAndWipeonforkEmptiesIt) {
  constexpr uint64_t kWiped = kBase + 64 * kPage;
  auto sim = make_sim(2);
  thread(
      *sim, 1, 0,
      {Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE),
       Op::mmap_anon(kWiped, 4 * kPage, PROT_READ | PROT_WRITE), Op::touch(kBase, 4 * kPage, true),
       Op::touch(kWiped, 4 * kPage, true), Op::madvise(kBase, 4 * kPage, MADV_DONTFORK),
       Op::madvise(kWiped, 4 * kPage, MADV_WIPEONFORK), Op::sleep(SimTime::ms(10))});
  thread(*sim, 2, 1,
         {Op::mm_create(2, 1), Op::page_fault(kBase, false), Op::touch(kWiped, 4 * kPage, false),
          Op::sleep(SimTime::ms(10))},
         SimTime::ms(1));
  sim->run_until(SimTime::ms(5));
  const Mm& child = *sim->find_mm(2);
  EXPECT_EQ(child.vmas.size(), 1u) << "only the wiped VMA";
  EXPECT_EQ(child.vmas.vma_lookup(kBase), nullptr);
  EXPECT_EQ(sim->stats().vm.fault_segv, 1u);
  EXPECT_EQ(sim->stats().vm.fault_zero_page, 4u) << "the wiped VMA's reads map the zero page";
  EXPECT_EQ(child.rss_anon, 0u);
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 8u) << "the parent keeps its pages";
}

}  // namespace
}  // namespace mmreplay::kernelsim
