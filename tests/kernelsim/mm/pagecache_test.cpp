// Page cache on the LRU (mm/filemap.h): misses, dirty pages and their writeback before reclaim
// frees them, dirty throttling, a dd-like stream that makes real pressure, and the page
// conservation check across it. Machines are small (64 MiB) so that a few files make pressure.

#include "kernelsim/mm/filemap.h"

#include <gtest/gtest.h>

#include "kernelsim/fs/file.h"
#include "kernelsim/mm/page_alloc.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kPage;
using testing::thread;

using testing::kMiB;
using testing::kPagesPerMiB;
constexpr uint64_t kDdBlock = kMiB;  // dd bs=1M

std::unique_ptr<Simulation> pagecache_machine(uint64_t mem_mib, uint32_t cpus,
                                              const std::string& policy = "") {
  std::string error;
  MachineConfig m;
  m.nr_cpus = cpus;
  m.memory_bytes = mem_mib * kMiB;
  auto sim = Simulation::create(m, cost_profile_default(), policy, &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

// One dd: `mib` MiB written to `file` in 1 MiB write(2) calls with `think` of user time each.
std::vector<Op> dd_write(uint32_t file, uint64_t mib, SimTime think = SimTime::us(50)) {
  std::vector<Op> ops;
  for (uint64_t i = 0; i < mib; ++i) {
    ops.push_back(Op::think(think));
    ops.push_back(Op::file_write(file, i * kDdBlock, kDdBlock));
  }
  return ops;
}

TEST(PageCacheTest, ReadMissesThenHitsAndPagesAreOnTheFileLru) {
  auto sim = pagecache_machine(64, 2);
  // A 4 MiB file: readahead (mm/readahead.h) stops at its end.
  sim->files().set(1, FileSpec{FileType::kUnknown, /*cached_at_start=*/false, 4 * kMiB});
  thread(*sim, 1, 0, {Op::file_read(1, 0, 4 * kMiB), Op::file_read(1, 0, 4 * kMiB)});
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pgcache_miss, 4 * kPagesPerMiB)
      << "the first read misses every page, the second none";
  EXPECT_EQ(sim->page_cache().nr_pages(), 4 * kPagesPerMiB);
  EXPECT_EQ(sim->page_cache().nr_dirty(), 0u);
  const Lruvec& lru = sim->lruvec();
  EXPECT_EQ(lru.size(LruList::kInactiveFile) + lru.size(LruList::kActiveFile) + lru.nr_held(),
            4 * kPagesPerMiB)
      << "new page-cache pages go to the file lists (through the lru_add batch)";
  EXPECT_EQ(lru.size(LruList::kActiveFile), vm.pgactivate)
      << "only the second read's mark_page_accessed() activates";
  EXPECT_GT(vm.pgactivate, 3 * kPagesPerMiB);
  EXPECT_EQ(vm.pages_alloc, 4 * kPagesPerMiB) << "each page is a real page of the zone";
}

TEST(PageCacheTest, ReadsQueuedOnTheDeviceAreNotWriteback) {
  // Reads and writes of a file share its device's queue (mm/readahead.h), but only the writes in
  // it are NR_WRITEBACK (what balance_dirty_pages() throttles on).
  auto sim = pagecache_machine(64, 1);
  PageCache& pc = sim->page_cache();
  const CostProfile& c = sim->costs();
  for (uint64_t i = 0; i < 2; ++i) {
    const uint32_t f = sim->lruvec().page_add_file_frame(1, i, 0, kRootMemcg);
    pc.add(1, i, f);
    pc.set_page_dirty(f);
    pc.start_page_writeback(f, SimTime::zero());
  }
  const SimTime read_done = pc.queue_device_read(1, 100, SimTime::zero());
  EXPECT_EQ(read_done, c.writeback_page * 2 + c.page_cache_miss_read * 100) << "behind the writes";
  EXPECT_EQ(pc.nr_writeback(SimTime::zero()), 2u);
  EXPECT_EQ(pc.nr_writeback(c.writeback_page), 1u);
  EXPECT_EQ(pc.nr_writeback(c.writeback_page * 2), 0u) << "while the read is still queued";
}

TEST(PageCacheTest, WholePageWritesDoNotReadAndDirtyThePages) {
  auto sim = pagecache_machine(64, 2);
  thread(*sim, 1, 0, {Op::file_write(1, 0, 2 * kMiB), Op::file_write(1, 2 * kMiB + 100, 10)});
  sim->run();
  EXPECT_EQ(sim->stats().vm.pgcache_miss, 1u) << "only the partial write reads its page first";
  EXPECT_EQ(sim->page_cache().nr_dirty(), 2 * kPagesPerMiB + 1);
}

TEST(PageCacheTest, FsyncCleansTheFilesPages) {
  auto sim = pagecache_machine(64, 2);
  thread(*sim, 1, 0, {Op::file_write(1, 0, kMiB), Op::file_write(2, 0, kMiB), Op::fsync(1)});
  sim->run();
  EXPECT_EQ(sim->page_cache().nr_dirty(), kPagesPerMiB) << "file 2 stays dirty";
}

TEST(PageCacheTest, DirtyPagesAreWrittenBackBeforeBeingFreed) {
  auto sim = pagecache_machine(64, 4);
  thread(*sim, 1, 0, dd_write(1, 192));  // 3 x RAM
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_EQ(vm.oom, 0u);
  EXPECT_GT(vm.pgcache_drop, 100 * kPagesPerMiB) << "the stream does not fit: reclaim drops pages";
  // Every page was dirtied by the write and only written pages are clean: a drop needs a write.
  EXPECT_LE(vm.pgcache_drop, vm.nr_writeback_pages);
  EXPECT_EQ(sim->page_cache().nr_pages() + vm.pgcache_drop, 192 * kPagesPerMiB);
  EXPECT_GT(vm.dirty_throttle_pauses, 0u) << "one writer faster than the device is throttled";
  const auto [background, thresh] = sim->page_cache().dirty_thresholds();
  EXPECT_LT(background, thresh);
}

TEST(PageCacheTest, PagesAreConservedAcrossAPressureRun) {
  auto sim = pagecache_machine(64, 4);
  thread(*sim, 1, 0, dd_write(1, 96));
  thread(*sim, 2, 1,
         {Op::mmap_anon(0x10000000, 48 * kMiB, PROT_READ | PROT_WRITE),
          Op::touch(0x10000000, 48 * kMiB, true), Op::think(SimTime::ms(500))});
  sim->run();
  check_page_conservation(*sim);  // asserts in Debug; the equality below holds in every build
  const PageAllocator& pa = sim->page_alloc();
  const Lruvec& lru = sim->lruvec();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(lru.nr_unframed(), 0u) << "no page lost between allocation and the LRU, or after";
  EXPECT_EQ(
      pa.nr_free_pages() + lru.nr_lru_pages() + lru.nr_held() + vm.pgtable_alloc - vm.pgtable_free,
      pa.zone().managed_pages);
  EXPECT_EQ(lru.nr_lru_pages() + lru.nr_held(), sim->page_cache().nr_pages())
      << "the anon mm exited";
}

}  // namespace
}  // namespace mmreplay::kernelsim
