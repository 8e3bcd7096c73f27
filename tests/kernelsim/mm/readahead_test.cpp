// On-demand readahead (kernelsim/mm/readahead.h): the window sizes of mm/readahead.c, a whole
// window read with one wait, the marked page starting the next window without waiting, readers
// of one file sharing a read in flight, and read_ahead_kb=0 reading page by page.

#include "kernelsim/mm/readahead.h"

#include <gtest/gtest.h>

#include "kernelsim/fs/file.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr uint64_t kRaPages = VM_READAHEAD_KB * 1024 / PAGE_SIZE;  // 32

// A cold regular file 1 of `pages` pages.
void cold_file(Simulation& sim, uint64_t pages, FileType type = FileType::kRegular) {
  sim.files().set(1, FileSpec{type, /*cached_at_start=*/false, pages * kPage});
}

TEST(ReadaheadTest, WindowSizesFollowTheKernel) {
  // get_init_ra_size(): x4 up to max/32, x2 up to max/4, then max.
  EXPECT_EQ(get_init_ra_size(1, kRaPages), 4u);
  EXPECT_EQ(get_init_ra_size(3, kRaPages), 8u) << "rounded up to 4, then doubled";
  EXPECT_EQ(get_init_ra_size(8, kRaPages), 16u);
  EXPECT_EQ(get_init_ra_size(9, kRaPages), kRaPages);
  // get_next_ra_size(): x4 below max/16, x2 up to max/2, then max.
  EXPECT_EQ(get_next_ra_size(1, kRaPages), 4u);
  EXPECT_EQ(get_next_ra_size(4, kRaPages), 8u);
  EXPECT_EQ(get_next_ra_size(16, kRaPages), kRaPages);
  EXPECT_EQ(get_next_ra_size(kRaPages, kRaPages), kRaPages);
}

TEST(ReadaheadTest, AMissReadsTheWholeWindowWithOneWait) {
  // An 8-page read at the start of a 64-page file: a window of get_init_ra_size(8) = 16 pages,
  // read in one go, so the read waits for 16 pages' device time once.
  const CostProfile c = cost_profile_default();
  auto sim = make_sim(1);
  cold_file(*sim, 64);
  thread(*sim, 1, 0, {Op::file_read(1, 0, 8 * kPage)});
  sim->run();
  EXPECT_EQ(sim->stats().vm.ra_windows, 1u);
  EXPECT_EQ(sim->stats().vm.pgcache_miss, 16u);
  EXPECT_EQ(sim->page_cache().nr_pages(), 16u);
  const Histogram& reads = sim->stats().latency(OpKind::kFileRead);
  ASSERT_EQ(reads.count(), 1u);
  EXPECT_GE(static_cast<int64_t>(reads.min()), (c.page_cache_miss_read * 16).count_ns());
  EXPECT_LT(static_cast<int64_t>(reads.min()), (c.page_cache_miss_read * 17).count_ns());
}

TEST(ReadaheadTest, ASequentialReaderReadsAheadWithoutWaitingAgain) {
  // 4 KiB reads through a 64-page file: one synchronous window, then each marked page starts the
  // next window (4, 8, 16, 32 pages, cut at the end of the file), and every page is read once.
  auto sim = make_sim(1);
  cold_file(*sim, 64);
  std::vector<Op> ops;
  for (uint64_t i = 0; i < 64; ++i) ops.push_back(Op::file_read(1, i * kPage, kPage));
  thread(*sim, 1, 0, ops);
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pgcache_miss, 64u) << "the file, no page twice and none beyond its end";
  EXPECT_GE(vm.ra_async, 3u);
  EXPECT_EQ(vm.ra_windows, vm.ra_async + 1) << "one synchronous window, the rest on the mark";
  // Windows in flight together queue on the file's device: no faster than its bandwidth.
  EXPECT_GE(sim->now(), cost_profile_default().page_cache_miss_read * 64);
}

TEST(ReadaheadTest, ALargeReadIsReadAheadUpToTheDevicesIoSize) {
  // A 1 MiB read is larger than the 128 KiB window: its window is the read itself (256 pages,
  // under the 320-page io_pages of BLK_DEF_MAX_SECTORS). Its mark half-way through starts the next
  // window while it copies, sized for the 128 pages the read still wants.
  auto sim = make_sim(1);
  cold_file(*sim, 1024);
  thread(*sim, 1, 0, {Op::file_read(1, 0, 256 * kPage)});
  sim->run();
  EXPECT_EQ(sim->stats().vm.ra_windows, 2u);
  EXPECT_EQ(sim->stats().vm.ra_async, 1u);
  EXPECT_EQ(sim->stats().vm.pgcache_miss, 256u + 128u);
}

TEST(ReadaheadTest, ARandomReadReadsOnlyWhatItAsks) {
  auto sim = make_sim(1);
  cold_file(*sim, 1024);
  thread(*sim, 1, 0,
         {Op::file_read(1, 100 * kPage, 2 * kPage), Op::file_read(1, 500 * kPage, kPage)});
  sim->run();
  EXPECT_EQ(sim->stats().vm.pgcache_miss, 3u);
}

TEST(ReadaheadTest, TwoReadersOfOneFileShareTheReadInFlight) {
  // Both start at once on two CPUs: one reads the window, the other finds its pages locked and
  // waits for that read (folio_wait_locked()) instead of reading them again.
  for (const FileType type : {FileType::kRegular, FileType::kUnknown}) {
    auto sim = make_sim(2);
    cold_file(*sim, 64, type);
    thread(*sim, 1, 0, {Op::file_read(1, 0, 64 * kPage)});
    thread(*sim, 2, 1, {Op::file_read(1, 0, 64 * kPage)});
    sim->run();
    const VmCounters& vm = sim->stats().vm;
    EXPECT_EQ(vm.pgcache_miss, 64u) << static_cast<int>(type);
    EXPECT_GE(vm.ra_page_waits, 1u) << static_cast<int>(type);
    EXPECT_EQ(sim->page_cache().nr_pages(), 64u) << static_cast<int>(type);
  }
}

TEST(ReadaheadTest, ReadersStreamAFileLargerThanMemory) {
  // 32 MiB of memory, three readers of a 64 MiB file in 1 MiB reads on three CPUs: reclaim drops
  // the pages behind them while windows are in flight (a locked page is never dropped: asserted
  // in read_pages()), every read completes, and no page is read twice while it is cached.
  MachineConfig m;
  m.nr_cpus = 3;
  m.memory_bytes = uint64_t{32} << 20;
  std::string error;
  auto sim = Simulation::create(m, cost_profile_default(), "", &error);
  ASSERT_NE(sim, nullptr) << error;
  constexpr uint64_t kFilePages = (uint64_t{64} << 20) / kPage;
  cold_file(*sim, kFilePages);
  for (uint32_t r = 0; r < 3; ++r) {
    std::vector<Op> ops;
    for (uint64_t off = 0; off < kFilePages * kPage; off += 256 * kPage) {
      ops.push_back(Op::file_read(1, off, 256 * kPage));
    }
    thread(*sim, 1, r, ops);
  }
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.ops_failed, 0u);
  EXPECT_EQ(sim->stats().count(OpKind::kFileRead), 3 * kFilePages / 256);
  EXPECT_GT(vm.pgcache_drop, 0u);
  EXPECT_GE(vm.pgcache_miss, kFilePages);
  EXPECT_GT(vm.ra_page_waits, 0u);
  EXPECT_EQ(vm.pgcache_miss - vm.pgcache_drop, sim->page_cache().nr_pages())
      << "every page read is cached or was dropped once";
}

TEST(ReadaheadTest, ReadAheadOffReadsPageByPage) {
  const CostProfile c = cost_profile_default();
  auto sim = make_sim(1, "read_ahead_kb=0");
  cold_file(*sim, 64);
  thread(*sim, 1, 0, {Op::file_read(1, 0, 8 * kPage)});
  sim->run();
  EXPECT_EQ(sim->stats().vm.ra_windows, 8u);
  EXPECT_EQ(sim->stats().vm.pgcache_miss, 8u);
  const Histogram& reads = sim->stats().latency(OpKind::kFileRead);
  EXPECT_GE(static_cast<int64_t>(reads.min()), (c.page_cache_miss_read * 8).count_ns());
}

TEST(ReadaheadTest, AFileOfUnknownSizeIsReadAheadPastTheRead) {
  // No size in the trace: the window is not cut (the kernel would cut it at i_size).
  auto sim = make_sim(1);
  cold_file(*sim, 0);
  thread(*sim, 1, 0, {Op::file_read(1, 0, 8 * kPage)});
  sim->run();
  EXPECT_EQ(sim->stats().vm.pgcache_miss, 16u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
