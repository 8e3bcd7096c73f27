// Truncation (mm/truncate.h): what a kernel engineer checks after open(O_TRUNC) or ftruncate():
// the page cache from the new size on is gone, dirty pages are cancelled rather than written,
// mapped pages are unmapped first, the frames and pages are freed, and a file cached at the start
// loses its unframed pages too.

#include "kernelsim/mm/truncate.h"

#include <gtest/gtest.h>

#include "kernelsim/fs/file.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/mm_types.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::run_then_look;
using testing::sim_with_file;

using testing::kFile;

TEST(TruncateTest, DirtyPagesAreCancelledNotWrittenAndEveryPageIsFreed) {
  auto sim = sim_with_file(kFile, /*warm=*/false, 0);
  run_then_look(*sim, {Op::file_write(kFile, 0, 64 * kPage),
                       Op::file_truncate(kFile, 0, kPagesDroppedUnknown)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(sim->page_cache().nr_pages(), 0u);
  EXPECT_EQ(sim->page_cache().nr_dirty(), 0u) << "cancel_dirty_page(): nothing left to write";
  EXPECT_EQ(vm.pgcache_truncated, 64u);
  EXPECT_EQ(vm.truncate_dirty_cancelled, 64u);
  EXPECT_EQ(vm.nr_writeback_pages, 0u) << "a truncated dirty page is never written";
  EXPECT_EQ(vm.pages_free, vm.pages_alloc) << "every page the writes allocated went back";
  EXPECT_EQ(sim->lruvec().size(LruList::kInactiveFile), 0u);
  EXPECT_EQ(sim->lruvec().nr_held(), 0u) << "frames still in a batch are let go by the drain";
}

TEST(TruncateTest, PagesBelowTheNewSizeStayAndAPartialPageIsKept) {
  auto sim = sim_with_file(kFile, /*warm=*/false, 0);
  // 10.5 pages kept: pages 0-10 stay (page 10 is the partial one), 11-15 go.
  run_then_look(*sim, {Op::file_write(kFile, 0, 16 * kPage),
                       Op::file_truncate(kFile, 10 * kPage + kPage / 2, kPagesDroppedUnknown)});
  const PageCache& pc = sim->page_cache();
  EXPECT_EQ(pc.nr_pages(), 11u);
  EXPECT_NE(pc.find_get_page(kFile, 10), kNoFrame);
  EXPECT_EQ(pc.find_get_page(kFile, 11), kNoFrame);
  EXPECT_EQ(sim->stats().vm.pgcache_truncated, 5u);
  EXPECT_EQ(pc.nr_dirty(), 11u) << "the pages kept are still dirty";
}

TEST(TruncateTest, MappedPagesAreUnmappedFirstAndTheirNextAccessFaultsAgain) {
  auto sim = sim_with_file(kFile, /*warm=*/true, 8);
  run_then_look(*sim, {Op::mmap_file(kBase, 8 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
                       Op::touch(kBase, 8 * kPage, false),
                       Op::file_truncate(kFile, 4 * kPage, kPagesDroppedUnknown),
                       Op::touch(kBase, 4 * kPage, false)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pgcache_unmapped, 4u) << "unmap_mapping_range() of the pages past the size";
  EXPECT_EQ(sim->find_mm(1)->rss_file, 4u);
  EXPECT_EQ(sim->page_cache().nr_mapped(), 4u);
  EXPECT_EQ(vm.fault_file, 1u)
      << "one fault maps all eight (fault-around); the first four stay mapped: no second fault";
  EXPECT_GE(vm.nr_tlb_flush_calls, 4u) << "each unmapped pte's TLB entry is flushed";
}

TEST(TruncateTest, AWarmFileLosesItsUnframedPagesAndTheyAreReadAgain) {
  auto sim = sim_with_file(kFile, /*warm=*/true, 32);
  run_then_look(*sim, {Op::file_read(kFile, 0, 4 * kPage),  // 4 pages get frames
                       Op::file_truncate(kFile, 0, kPagesDroppedUnknown),
                       Op::file_read(kFile, 0, 8 * kPage)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pgcache_truncated, 32u) << "4 framed pages and the 28 the model never held";
  EXPECT_GE(vm.pgcache_miss, 8u) << "after the truncation nothing of the file is cached";
}

TEST(TruncateTest, TheRecordedCountSaysHowManyUnframedPagesTheKernelDropped) {
  auto sim = sim_with_file(kFile, /*warm=*/true, 32);
  run_then_look(*sim, {Op::file_read(kFile, 0, 4 * kPage), Op::file_truncate(kFile, 0, 10)});
  EXPECT_EQ(sim->stats().vm.pgcache_truncated, 10u) << "4 with frames and 6 without";
}

TEST(TruncateTest, EachDroppedPageCostsTruncatePage) {
  auto cost_of = [](SimTime truncate_page) {
    CostProfile c = cost_profile_default();
    c.truncate_page = truncate_page;
    auto sim = make_sim(1, "", c);
    sim->files().set(kFile, FileSpec{FileType::kRegular, false, 0});
    run_then_look(*sim, {Op::file_write(kFile, 0, 40 * kPage),
                         Op::file_truncate(kFile, 0, kPagesDroppedUnknown)});
    return static_cast<int64_t>(sim->stats().latency(OpKind::kFileTruncate).sum());
  };
  EXPECT_EQ(cost_of(SimTime::ns(1100)) - cost_of(SimTime::ns(100)), 40 * 1000);
}

// The filesystem frees the blocks of clean pages and waits (journal, discards): once per call and
// per such page, off CPU. Dirty pages under delayed allocation have no block: no wait for them.
TEST(TruncateTest, OnlyPagesWithBlocksOnTheDiskWaitForTheFilesystem) {
  auto latency = [](bool warm, SimTime per_call, SimTime per_block) {
    CostProfile c = cost_profile_default();
    c.truncate_blocks_call = per_call;
    c.truncate_block = per_block;
    auto sim = make_sim(1, "", c);
    sim->files().set(kFile, FileSpec{FileType::kRegular, warm, warm ? 32 * kPage : 0});
    std::vector<Op> ops;
    if (!warm) ops.push_back(Op::file_write(kFile, 0, 32 * kPage));  // dirty, no blocks yet
    ops.push_back(Op::file_truncate(kFile, 0, kPagesDroppedUnknown));
    run_then_look(*sim, std::move(ops));
    return static_cast<int64_t>(sim->stats().latency(OpKind::kFileTruncate).sum());
  };
  const SimTime call = SimTime::us(200), block = SimTime::ns(1300);
  EXPECT_EQ(latency(true, call, block) - latency(true, SimTime::zero(), SimTime::zero()),
            (call + block * 32).count_ns())
      << "32 clean pages cached from before the run";
  EXPECT_EQ(latency(false, call, block), latency(false, SimTime::zero(), SimTime::zero()))
      << "32 dirty pages: nothing on the disk to free";
}

TEST(TruncateTest, APipeHasNoPageCacheToDrop) {
  auto sim = make_sim(1);
  sim->files().set(kFile, FileSpec{FileType::kPipe, false, 0});
  run_then_look(*sim, {Op::file_truncate(kFile, 0, kPagesDroppedUnknown)});
  EXPECT_EQ(sim->stats().vm.pgcache_truncated, 0u);
  EXPECT_EQ(sim->stats().count(OpKind::kFileTruncate), 1u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
