// VMA structure: split and merge on mprotect/munmap, mremap, brk, and the sparse page state
// (PteMap: a leaf per touched 2 MiB region).

#include "kernelsim/mm/vma.h"

#include <gtest/gtest.h>

#include "kernelsim/mm/mm_types.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

using testing::mm1;
using testing::run_ops;

// Like run_ops, for op lists whose walks over huge ranges take simulated seconds (a 64 TiB zap
// charges one pte_walk per page: 2^34 ns).
std::unique_ptr<Simulation> run_long(std::vector<Op> ops) {
  auto sim = make_sim(1);
  ops.push_back(Op::think(SimTime::ms(10'000'000)));
  thread(*sim, 1, 0, std::move(ops));
  sim->run_until(SimTime::ms(5'000'000));
  return sim;
}

size_t leaves_of(const Mm& mm) {
  size_t n = 0;
  mm.vmas.for_each([&](const Vma& v) { n += v.ptes.nr_leaves(); });
  return n;
}

TEST(PteMapTest, LeavesAreAllocatedOnFirstStoreAndReadAsNoneElsewhere) {
  PteMap m;
  EXPECT_EQ(m.get(kBase), pte::kNone);
  EXPECT_EQ(m.nr_leaves(), 0u) << "a read allocates nothing";
  m.ref(kBase + 3 * kPage) = pte::kPresent;
  m.ref(kBase + 5 * PMD_SIZE) = pte::kSwapped;
  EXPECT_EQ(m.nr_leaves(), 2u);
  EXPECT_EQ(m.bytes(), 2 * PTRS_PER_PTE);
  EXPECT_EQ(m.get(kBase + 3 * kPage), pte::kPresent);
  EXPECT_EQ(m.get(kBase + 4 * kPage), pte::kNone);
  const uint64_t end = kBase + 64 * PMD_SIZE;
  EXPECT_EQ(m.next_populated(kBase + 4 * kPage, end), kBase + 4 * kPage) << "inside a leaf";
  EXPECT_EQ(m.next_populated(kBase + PMD_SIZE, end), kBase + 5 * PMD_SIZE) << "skips 4 regions";
  EXPECT_EQ(m.next_populated(kBase + 6 * PMD_SIZE, end), end);
  EXPECT_EQ(m.next_populated(kBase + PMD_SIZE, kBase + 2 * PMD_SIZE), kBase + 2 * PMD_SIZE);
}

TEST(PteMapTest, SplitInsideALeafAndMergeBackKeepEveryPte) {
  PteMap m;
  for (uint64_t i = 0; i < 2 * PTRS_PER_PTE; i += 7) m.ref(kBase + i * kPage) = pte::kPresent;
  const uint64_t cut = kBase + 100 * kPage;  // inside the first leaf
  PteMap tail;
  m.split_at(cut, &tail);
  EXPECT_EQ(m.nr_leaves(), 1u);
  EXPECT_EQ(tail.nr_leaves(), 2u) << "the straddling leaf is copied, the next one moved";
  for (uint64_t i = 0; i < 2 * PTRS_PER_PTE; ++i) {
    const uint64_t a = kBase + i * kPage;
    const uint8_t want = i % 7 == 0 ? pte::kPresent : pte::kNone;
    EXPECT_EQ(m.get(a), a < cut ? want : pte::kNone) << i;
    EXPECT_EQ(tail.get(a), a < cut ? pte::kNone : want) << i;
  }
  m.merge_from(std::move(tail));
  EXPECT_EQ(m.nr_leaves(), 2u);
  for (uint64_t i = 0; i < 2 * PTRS_PER_PTE; ++i)
    EXPECT_EQ(m.get(kBase + i * kPage), i % 7 == 0 ? pte::kPresent : pte::kNone) << i;
  m.truncate(kBase + PMD_SIZE);
  EXPECT_EQ(m.nr_leaves(), 1u);
  EXPECT_EQ(m.get(kBase + PMD_SIZE + 7 * kPage), pte::kNone);
  m.truncate(kBase + kPage);  // the leaf keeps page 0
  EXPECT_EQ(m.nr_leaves(), 1u);
  m.truncate(kBase);
  EXPECT_EQ(m.nr_leaves(), 0u) << "a leaf left all none by the cut is dropped";
}

TEST(PteMapTest, LeavesAcrossDirectoriesSplitMoveAndMergeWhole) {
  // Regions 0..199 every 3rd (a directory holds 64 leaves): the cut falls inside region 100.
  PteMap m;
  for (uint64_t r = 0; r < 200; r += 3) m.ref(kBase + r * PMD_SIZE + 5 * kPage) = pte::kPresent;
  const size_t leaves = m.nr_leaves();
  EXPECT_EQ(m.next_populated(kBase + PMD_SIZE, kBase + 300 * PMD_SIZE), kBase + 3 * PMD_SIZE);
  EXPECT_EQ(m.next_populated(kBase + 190 * PMD_SIZE, kBase + 300 * PMD_SIZE),
            kBase + 192 * PMD_SIZE);
  EXPECT_EQ(m.next_populated(kBase + 199 * PMD_SIZE, kBase + 300 * PMD_SIZE),
            kBase + 300 * PMD_SIZE);
  const uint64_t cut = kBase + 99 * PMD_SIZE + 3 * kPage;  // before region 99's pte 5
  PteMap tail;
  m.split_at(cut, &tail);
  EXPECT_EQ(m.nr_leaves() + tail.nr_leaves(), leaves) << "region 99's leaf moved, not copied";
  for (uint64_t r = 0; r < 200; ++r) {
    const uint64_t a = kBase + r * PMD_SIZE + 5 * kPage;
    const uint8_t want = r % 3 == 0 ? pte::kPresent : pte::kNone;
    EXPECT_EQ(m.get(a), a < cut ? want : pte::kNone) << r;
    EXPECT_EQ(tail.get(a), a < cut ? pte::kNone : want) << r;
  }
  EXPECT_EQ(m.next_populated(kBase + 97 * PMD_SIZE, kBase + 300 * PMD_SIZE),
            kBase + 300 * PMD_SIZE);
  m.merge_from(std::move(tail));
  EXPECT_EQ(m.nr_leaves(), leaves);
  EXPECT_TRUE(tail.empty());
  for (uint64_t r = 0; r < 200; ++r)
    EXPECT_EQ(m.get(kBase + r * PMD_SIZE + 5 * kPage), r % 3 == 0 ? pte::kPresent : pte::kNone);
  m.truncate(kBase + 64 * PMD_SIZE);  // a directory boundary
  EXPECT_EQ(m.nr_leaves(), 22u) << "regions 0, 3, ..., 63";
  EXPECT_EQ(m.get(kBase + 66 * PMD_SIZE + 5 * kPage), pte::kNone);
}

TEST(VmaTest, VmacacheLookupsFollowSplitsMergesAndUnmaps) {
  VmaTree tree;
  VmaCache cache;
  auto make = [](uint64_t start, uint64_t end) {
    auto v = std::make_unique<Vma>();
    v->start = start;
    v->end = end;
    v->prot = PROT_READ | PROT_WRITE;
    v->pgoff = start >> PAGE_SHIFT;
    return v;
  };
  Vma* a = tree.insert(make(kBase, kBase + 16 * kPage));
  Vma* b = tree.insert(make(kBase + 32 * kPage, kBase + 48 * kPage));
  EXPECT_EQ(tree.vma_lookup(kBase + kPage, cache), a);
  EXPECT_EQ(tree.vma_lookup(kBase + 40 * kPage, cache), b);
  EXPECT_EQ(tree.vma_lookup(kBase + 20 * kPage, cache), nullptr);
  EXPECT_EQ(tree.vma_lookup(kBase + kPage, cache), a) << "a hit";
  Vma* upper = tree.split_vma(a, kBase + 8 * kPage, 0);
  EXPECT_EQ(tree.vma_lookup(kBase + 9 * kPage, cache), upper) << "not the cached, shrunk VMA";
  EXPECT_EQ(tree.vma_lookup(kBase + kPage, cache), a);
  tree.erase(b);
  EXPECT_EQ(tree.vma_lookup(kBase + 40 * kPage, cache), nullptr) << "the unmapped VMA is gone";
  tree.set_end(upper, kBase + 20 * kPage);
  EXPECT_EQ(tree.vma_lookup(kBase + 18 * kPage, cache), upper);
  VmaCache other;
  EXPECT_EQ(tree.vma_lookup(kBase + 18 * kPage, other), upper) << "a second task's cache";
}

TEST(VmaTest, A64TiBNoreserveReservationCostsOnlyItsTouchedRegions) {
  constexpr uint64_t kLen = uint64_t{64} << 40;
  constexpr uint32_t kMapNoreserve = 0x4000;  // MAP_NORESERVE: the model has no overcommit
  const uint64_t mid = kBase + kLen / 2;
  const std::vector<Op> touched = {
      Op::mmap_anon(kBase, kLen, PROT_READ | PROT_WRITE, kMapNoreserve),
      Op::touch(kBase, kPage, true), Op::touch(mid, 4 * kPage, true),
      Op::touch(kBase + kLen - kPage, kPage, true)};
  auto sim = run_long(touched);
  ASSERT_EQ(mm1(*sim).vmas.size(), 1u);
  EXPECT_EQ(mm1(*sim).vmas.vma_lookup(kBase)->end, kBase + kLen);
  EXPECT_EQ(mm1(*sim).rss_anon, 6u);
  EXPECT_EQ(leaves_of(mm1(*sim)), 3u) << "three 2 MiB regions touched of 32M";

  // mprotect inside a touched leaf splits it three ways; mprotect back merges: ptes unchanged.
  std::vector<Op> ops = touched;
  ops.push_back(Op::mprotect(mid + kPage, 2 * kPage, PROT_READ));
  auto split = run_long(ops);
  EXPECT_EQ(mm1(*split).vmas.size(), 3u);
  EXPECT_EQ(leaves_of(mm1(*split)), 5u);
  EXPECT_EQ(split->stats().vm.nr_tlb_flush_calls, 1u);
  ops.push_back(Op::mprotect(mid + kPage, 2 * kPage, PROT_READ | PROT_WRITE));
  auto merged = run_long(ops);
  ASSERT_EQ(mm1(*merged).vmas.size(), 1u);
  EXPECT_EQ(leaves_of(mm1(*merged)), 3u);
  const Vma& v = *mm1(*merged).vmas.vma_lookup(kBase);
  for (uint64_t a :
       {kBase, mid, mid + kPage, mid + 2 * kPage, mid + 3 * kPage, kBase + kLen - kPage})
    EXPECT_TRUE(pte::is_mapped(v.ptes.get(a))) << std::hex << a;
  EXPECT_EQ(v.ptes.get(mid + 4 * kPage), pte::kNone);

  // MADV_FREE and MADV_DONTNEED over all 64 TiB, then munmap: only the touched pages matter.
  ops.push_back(Op::madvise(kBase, kLen, MADV_FREE));
  ops.push_back(Op::madvise(kBase, kLen, MADV_DONTNEED));
  auto zapped = run_long(ops);
  EXPECT_EQ(zapped->stats().vm.madv_lazyfree_pages, 6u);
  EXPECT_EQ(zapped->stats().vm.madv_dontneed_pages, 6u);
  EXPECT_EQ(mm1(*zapped).rss_anon, 0u);
  EXPECT_LE(leaves_of(mm1(*zapped)), 3u) << "a zap allocates no leaf";
  ops.push_back(Op::munmap(kBase, kLen));
  auto unmapped = run_long(ops);
  EXPECT_TRUE(mm1(*unmapped).vmas.empty());
  EXPECT_EQ(unmapped->stats().vm.pages_free, 6u);
  EXPECT_EQ(mm1(*unmapped).pte_tables.size(), 0u);
  // The zap walks 32M pmd entries, one step each (pmd_none() is skipped), not 16G ptes: the
  // munmap costs 32M pte_walks at most plus the six pages, in virtual time.
  const CostProfile& c = unmapped->costs();
  const uint64_t pmds = kLen >> PMD_SHIFT;
  EXPECT_LT(
      unmapped->stats().latency(OpKind::kMunmap).max(),
      static_cast<uint64_t>((c.pte_walk * static_cast<int64_t>(2 * pmds)).count_ns()) + 1'000'000u);
}

TEST(VmaTest, MprotectSplitsAndMergesBack) {
  auto sim = run_ops({Op::mmap_anon(kBase, 10 * kPage, PROT_READ | PROT_WRITE),
                      Op::touch(kBase, 10 * kPage, true),
                      Op::mprotect(kBase + 3 * kPage, 2 * kPage, PROT_READ)});
  EXPECT_EQ(mm1(*sim).vmas.size(), 3u);
  EXPECT_EQ(mm1(*sim).vmas.vma_lookup(kBase + 3 * kPage)->prot, PROT_READ);
  EXPECT_EQ(sim->stats().vm.nr_tlb_flush_calls, 1u);  // present ptes changed

  auto merged = run_ops({Op::mmap_anon(kBase, 10 * kPage, PROT_READ | PROT_WRITE),
                         Op::mprotect(kBase + 3 * kPage, 2 * kPage, PROT_READ),
                         Op::mprotect(kBase + 3 * kPage, 2 * kPage, PROT_READ | PROT_WRITE)});
  EXPECT_EQ(mm1(*merged).vmas.size(), 1u);
  EXPECT_EQ(merged->stats().vm.nr_tlb_flush_calls, 0u);  // nothing mapped, nothing to flush
}

TEST(VmaTest, WriteToReadOnlyPageIsSegv) {
  auto sim = run_ops({Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE),
                      Op::touch(kBase, 4 * kPage, true), Op::mprotect(kBase, 4 * kPage, PROT_READ),
                      Op::touch(kBase, kPage, true)});
  EXPECT_EQ(sim->stats().vm.fault_segv, 1u);
}

TEST(VmaTest, MunmapInTheMiddleSplitsAndAdjacentMmapsMerge) {
  auto sim = run_ops({Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE),
                      Op::mmap_anon(kBase + 4 * kPage, 4 * kPage, PROT_READ | PROT_WRITE),
                      Op::munmap(kBase + 2 * kPage, 2 * kPage)});
  const Mm& mm = mm1(*sim);
  EXPECT_EQ(mm.vmas.size(), 2u);
  EXPECT_EQ(mm.vmas.vma_lookup(kBase)->end, kBase + 2 * kPage);
  EXPECT_EQ(mm.vmas.vma_lookup(kBase + 4 * kPage)->start, kBase + 4 * kPage);
  EXPECT_EQ(mm.vmas.vma_lookup(kBase + 4 * kPage)->end, kBase + 8 * kPage);
}

TEST(VmaTest, MmapWithoutHintGoesTopDownBelowMmapBase) {
  auto sim = run_ops({Op::mmap_anon(0, 16 * kPage, PROT_READ)});
  const Task& t = *sim->tasks()[0];
  EXPECT_EQ(static_cast<uint64_t>(t.last_result), MODEL_MMAP_BASE - 16 * kPage);
}

TEST(VmaTest, MapFixedReplacesWhatWasThere) {
  auto sim = run_ops({Op::mmap_anon(kBase, 8 * kPage, PROT_READ | PROT_WRITE),
                      Op::touch(kBase, 8 * kPage, true),
                      Op::mmap_anon(kBase + 2 * kPage, 2 * kPage, PROT_READ, MAP_FIXED)});
  const Mm& mm = mm1(*sim);
  EXPECT_EQ(mm.vmas.size(), 3u);
  EXPECT_EQ(mm.rss_anon, 6u);
  EXPECT_EQ(sim->stats().vm.pages_free, 2u);
}

TEST(VmaTest, MremapGrowsInPlaceOrMovesWithItsPages) {
  auto grow = run_ops({Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE),
                       Op::touch(kBase, 4 * kPage, true),
                       Op::mremap(kBase, 4 * kPage, 8 * kPage, MREMAP_MAYMOVE)});
  EXPECT_EQ(static_cast<uint64_t>(grow->tasks()[0]->last_result), kBase);
  EXPECT_EQ(mm1(*grow).vmas.vma_lookup(kBase)->end, kBase + 8 * kPage);

  auto move = run_ops(
      {Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE), Op::touch(kBase, 4 * kPage, true),
       Op::mmap_anon(kBase + 4 * kPage, kPage, PROT_READ),  // blocks growth in place
       Op::mremap(kBase, 4 * kPage, 8 * kPage, MREMAP_MAYMOVE)});
  const uint64_t to = static_cast<uint64_t>(move->tasks()[0]->last_result);
  EXPECT_NE(to, kBase);
  const Vma* v = mm1(*move).vmas.vma_lookup(to);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->nr_pages(), 8u);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_TRUE(pte::is_mapped(v->ptes.get(to + i * kPage)));
  EXPECT_EQ(mm1(*move).vmas.vma_lookup(kBase), nullptr);
  EXPECT_EQ(mm1(*move).rss_anon, 4u);
  EXPECT_EQ(move->stats().vm.nr_tlb_flush_calls, 1u);  // the old range
}

TEST(VmaTest, BrkGrowsAndShrinks) {
  const uint64_t start = 0x600000;
  auto sim = run_ops({Op::brk(start), Op::brk(start + 64 * kPage),
                      Op::touch(start, 64 * kPage, true), Op::brk(start + 16 * kPage)});
  const Mm& mm = mm1(*sim);
  EXPECT_EQ(mm.brk, start + 16 * kPage);
  EXPECT_EQ(mm.vmas.vma_lookup(start)->end, start + 16 * kPage);
  EXPECT_EQ(mm.rss_anon, 16u);
  EXPECT_EQ(sim->stats().vm.pages_free, 48u);
}

TEST(VmaTest, A512MiBMappingCostsAByteOfStatePerTouchedPage) {
  constexpr uint64_t kLen = uint64_t{512} << 20;
  auto sim =
      run_ops({Op::mmap_anon(kBase, kLen, PROT_READ | PROT_WRITE), Op::touch(kBase, kLen, true)});
  const Vma* v = mm1(*sim).vmas.vma_lookup(kBase);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(mm1(*sim).rss_anon, kLen / kPage);
  EXPECT_EQ(v->ptes.nr_leaves(), kLen / PMD_SIZE);  // one leaf per touched 2 MiB region
  EXPECT_LE(v->ptes.bytes(), kLen / kPage);         // 128 KiB of host memory for 512 MiB
  EXPECT_EQ(mm1(*sim).pte_tables.size(), kLen / PMD_SIZE);
}

}  // namespace
}  // namespace mmreplay::kernelsim
