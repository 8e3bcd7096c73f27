// mark_page_accessed() (mm/lru.h): what read(2) and write(2) of a page-cache page do to its
// PG_referenced and its LRU list (mm/swap.c), and what reclaim's page_check_references() makes
// of a page so marked (PAGEREF_RECLAIM_CLEAN, mm/vmscan.c).

#include <gtest/gtest.h>

#include "kernelsim/fs/file.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/vmscan.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kFile;
using testing::kPage;
using testing::run_then_look;
using testing::sim_with_file;

const PageFrame& page_of(const Simulation& sim, uint64_t index) {
  const uint32_t f = sim.page_cache().find_get_page(kFile, index);
  EXPECT_NE(f, kNoFrame) << "page " << index << " is not in the cache";
  return sim.lruvec().frame(f);
}

// Two batches' worth of pages: every lru_add and activate batch drains full.
uint64_t two_batches(const Simulation& sim) {
  return 2 * sim.config().pagevec_size;
}

TEST(MarkPageAccessedTest, AFirstReadMarksEachPageReferenced) {
  auto sim = sim_with_file(kFile, /*warm=*/false, 64);
  const uint64_t pages = two_batches(*sim);
  run_then_look(*sim, {Op::file_read(kFile, 0, pages * kPage)});
  EXPECT_EQ(sim->stats().vm.pgactivate, 0u);
  EXPECT_EQ(sim->lruvec().size(LruList::kActiveFile), 0u);
  EXPECT_EQ(sim->lruvec().size(LruList::kInactiveFile), pages);
  for (uint64_t i = 0; i < pages; ++i) EXPECT_TRUE(page_of(*sim, i).referenced) << i;
}

TEST(MarkPageAccessedTest, ASecondReadActivatesThePages) {
  auto sim = sim_with_file(kFile, /*warm=*/false, 64);
  const uint64_t pages = two_batches(*sim);
  run_then_look(*sim, {Op::file_read(kFile, 0, pages * kPage), Op::think(SimTime::ms(1)),
                       Op::file_read(kFile, 0, pages * kPage)});
  EXPECT_EQ(sim->stats().vm.pgactivate, pages) << "activate_page(): a batch at a time";
  EXPECT_EQ(sim->lruvec().size(LruList::kActiveFile), pages);
  EXPECT_EQ(sim->lruvec().size(LruList::kInactiveFile), 0u);
  for (uint64_t i = 0; i < pages; ++i) {
    EXPECT_FALSE(page_of(*sim, i).referenced) << "ClearPageReferenced() on activation: " << i;
  }
}

TEST(MarkPageAccessedTest, SmallSequentialReadsOfOnePageMarkItOnce) {
  // dd bs=512: eight reads in a row take the page; only the first marks it ("When a sequential
  // read accesses a page several times, only mark it as accessed the first time").
  auto sim = sim_with_file(kFile, /*warm=*/false, 1);
  std::vector<Op> ops;
  for (uint64_t off = 0; off < kPage; off += 512) ops.push_back(Op::file_read(kFile, off, 512));
  run_then_look(*sim, std::move(ops));
  const PageFrame& pf = page_of(*sim, 0);
  EXPECT_TRUE(pf.referenced);
  EXPECT_FALSE(pf.active_on_add);
  EXPECT_EQ(sim->stats().vm.pgactivate, 0u);
}

TEST(MarkPageAccessedTest, ABlockReadAgainActivatesItsPageStillInTheLruAddBatch) {
  // The same 512 bytes twice: the second read starts where the first did, not where it ended,
  // so it marks the page again. The page is still in this CPU's lru_add batch:
  // __lru_cache_activate_page() sets PG_active there, and the drain puts it on the active list.
  auto sim = sim_with_file(kFile, /*warm=*/false, 1);
  run_then_look(*sim, {Op::file_read(kFile, 0, 512), Op::file_read(kFile, 0, 512)});
  const PageFrame& pf = page_of(*sim, 0);
  EXPECT_EQ(pf.where, FrameWhere::kPagevec);
  EXPECT_TRUE(pf.active_on_add);
  EXPECT_FALSE(pf.referenced);
}

TEST(MarkPageAccessedTest, WritesMarkThePagesTheyCreateAndActivateOnesWrittenAgain) {
  // grab_cache_page_write_begin(): FGP_ACCESSED, so a page a write creates starts referenced
  // (3.16, 2457aec63745) and one written again is activated.
  auto sim = sim_with_file(kFile, /*warm=*/false, 64);
  const uint64_t pages = two_batches(*sim);
  run_then_look(*sim, {Op::file_write(kFile, 0, pages * kPage)});
  for (uint64_t i = 0; i < pages; ++i) EXPECT_TRUE(page_of(*sim, i).referenced) << i;
  EXPECT_EQ(sim->stats().vm.pgactivate, 0u);

  auto again = sim_with_file(kFile, /*warm=*/false, 64);
  run_then_look(*again,
                {Op::file_write(kFile, 0, pages * kPage), Op::file_write(kFile, 0, pages * kPage)});
  EXPECT_EQ(again->stats().vm.pgactivate, pages);
  EXPECT_EQ(again->lruvec().size(LruList::kActiveFile), pages);
}

TEST(MarkPageAccessedTest, MappedFaultsLeaveTheAccessToThePtes) {
  // filemap_fault() marks nothing: a mapped page's accesses are its ptes' young bits, which
  // reclaim reads (page_referenced()).
  auto sim = sim_with_file(kFile, /*warm=*/false, 16);
  run_then_look(*sim, {Op::mmap_file(0x10000000, 16 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
                       Op::touch(0x10000000, 16 * kPage, false)});
  for (uint64_t i = 0; i < 16; ++i) EXPECT_FALSE(page_of(*sim, i).referenced) << i;
}

TEST(PageCheckReferencesTest, AReferencedUnmappedFilePageIsReclaimedOnlyIfClean) {
  PageFrame pf;
  pf.pagecache = true;
  pf.swapbacked = false;
  pf.referenced = true;
  bool reclaim_clean = false;
  EXPECT_EQ(page_check_references(pf, 0, false, true, &reclaim_clean), PageOutcome::kFreed);
  EXPECT_TRUE(reclaim_clean) << "PAGEREF_RECLAIM_CLEAN";
  EXPECT_FALSE(pf.referenced) << "TestClearPageReferenced()";
  // The next look finds it unreferenced: PAGEREF_RECLAIM, dirty or not.
  EXPECT_EQ(page_check_references(pf, 0, false, true, &reclaim_clean), PageOutcome::kFreed);
  EXPECT_FALSE(reclaim_clean);
}

TEST(PageCheckReferencesTest, AnAnonPageIsNeverReclaimCleanOnly) {
  PageFrame pf;
  pf.swapbacked = true;
  pf.referenced = true;
  bool reclaim_clean = true;
  EXPECT_EQ(page_check_references(pf, 0, false, true, &reclaim_clean), PageOutcome::kFreed);
  EXPECT_FALSE(reclaim_clean) << "PageSwapBacked(): RECLAIM, swapped out if dirty";
}

}  // namespace
}  // namespace mmreplay::kernelsim
