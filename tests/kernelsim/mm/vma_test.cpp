// VMA structure: split and merge on mprotect/munmap, mremap, brk, and the compact page state.

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

// Runs ops on one thread and stops before it exits (its mm stays intact for the checks).
std::unique_ptr<Simulation> run_ops(std::vector<Op> ops) {
  auto sim = make_sim(1);
  ops.push_back(Op::think(SimTime::ms(10'000)));
  thread(*sim, 1, 0, std::move(ops));
  sim->run_until(SimTime::ms(5'000));
  return sim;
}

const Mm& mm1(const Simulation& sim) {
  return *sim.find_mm(1);
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
