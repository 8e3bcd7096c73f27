// read(2) of a regular file as filemap_read() (kernelsim/mm/filemap_read.h): cached pages in
// batches with no buffer heads, while block devices and files of unknown kind keep the
// buffer-head walk (fs/read_write.h) that seed 004 was validated with.

#include "kernelsim/mm/filemap_read.h"

#include <gtest/gtest.h>

#include "kernelsim/fs/file.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kPage;
using testing::make_sim;
using testing::thread;

// `reads` reads of `pages` pages of file 1 (of `type`, cached at the start); the first gives the
// warm pages their frames. Returns the simulation.
std::unique_ptr<Simulation> read_n(FileType type, uint64_t pages, int reads,
                                   const CostProfile& costs = cost_profile_default()) {
  auto sim = make_sim(1, "", costs);
  sim->files().set(1, FileSpec{type, /*cached_at_start=*/true});
  std::vector<Op> ops;
  for (int i = 0; i < reads; ++i) ops.push_back(Op::file_read(1, 0, pages * kPage));
  thread(*sim, 1, 0, std::move(ops));
  sim->run();
  return sim;
}

std::unique_ptr<Simulation> read_twice(FileType type, uint64_t pages,
                                       const CostProfile& costs = cost_profile_default()) {
  return read_n(type, pages, 2, costs);
}

uint64_t bh_lookups(const Simulation& sim) {
  return sim.stats().vm.bh_lru_hits + sim.stats().vm.bh_lru_misses;
}

TEST(FilemapReadTest, ACachedRegularFileReadLooksUpNoBufferHead) {
  auto sim = read_twice(FileType::kRegular, 64);
  EXPECT_EQ(bh_lookups(*sim), 0u);
  EXPECT_EQ(sim->stats().vm.pgcache_miss, 0u);
  EXPECT_EQ(sim->stats().vm.fd_io_regular, 2u);
}

TEST(FilemapReadTest, BlockDeviceAndUnknownKindReadsWalkBufferHeads) {
  for (const FileType type : {FileType::kBlockDevice, FileType::kUnknown}) {
    auto sim = read_twice(type, 64);
    // One __find_get_block() per block of each read (4 KiB blocks: one per page).
    EXPECT_EQ(bh_lookups(*sim), 2u * 64) << static_cast<int>(type);
  }
}

TEST(FilemapReadTest, CostsOneLookupPerBatchAndTheCopyPerPage) {
  // 64 pages: batches of 31, 31 and 2 (PAGEVEC_SIZE_FOLIO_BATCH), each one walk from the root.
  constexpr uint64_t kPages = 64;
  const CostProfile c = cost_profile_default();
  auto sim = read_twice(FileType::kRegular, kPages, c);
  const Histogram& reads = sim->stats().latency(OpKind::kFileRead);
  ASSERT_EQ(reads.count(), 2u);
  const uint64_t batches = (kPages + PAGEVEC_SIZE_FOLIO_BATCH - 1) / PAGEVEC_SIZE_FOLIO_BATCH;
  const SimTime expected = c.syscall_entry + c.find_get_page * static_cast<int64_t>(batches) +
                           (c.filemap_read_page + c.file_copy_page) * static_cast<int64_t>(kPages);
  // The second read finds every page in the index: nothing else is charged.
  EXPECT_EQ(static_cast<int64_t>(reads.min()), expected.count_ns());
}

TEST(FilemapReadTest, AWarmFilesFirstReadCostsWhatALaterHitDoes) {
  // Natively every read finds the pages in the cache. The model gives a warm page its frame at
  // the first read, without an allocation's or an LRU add's cost (and without the zone->lock or
  // lru_lock they would take): it costs what the third read does. The second read activates the
  // pages the first marked referenced (mark_page_accessed()), a batch at a time under lru_lock.
  constexpr uint64_t kPages = 64;
  auto sim = read_n(FileType::kRegular, kPages, 3);
  const Histogram& reads = sim->stats().latency(OpKind::kFileRead);
  ASSERT_EQ(reads.count(), 3u);
  EXPECT_GT(reads.max(), reads.min()) << "the second read pays for the activations";
  EXPECT_EQ(sim->stats().vm.pgcache_warm, kPages);
  EXPECT_EQ(sim->stats().vm.zone_lock_batches, 0u);
  const uint64_t batch = sim->config().pagevec_size;
  const uint64_t activated = kPages - kPages % batch;  // the rest wait in the CPU's batch
  EXPECT_EQ(sim->stats().vm.pgactivate, activated);
  EXPECT_EQ(sim->lruvec().size(LruList::kActiveFile), activated);
  EXPECT_EQ(sim->lruvec().size(LruList::kInactiveFile), kPages - activated)
      << "add_to_page_cache_lru() put them on the inactive list";
}

TEST(FilemapReadTest, AColdRegularFileIsReadFromTheDeviceOnce) {
  auto sim = make_sim(1);
  sim->files().set(1, FileSpec{FileType::kRegular, /*cached_at_start=*/false, 8 * kPage});
  thread(*sim, 1, 0, {Op::file_read(1, 0, 8 * kPage), Op::file_read(1, 0, 8 * kPage)});
  sim->run();
  EXPECT_EQ(sim->stats().vm.pgcache_miss, 8u) << "the first read only";
  EXPECT_EQ(sim->stats().vm.ra_windows, 1u) << "one readahead window (mm/readahead.h)";
  EXPECT_EQ(sim->page_cache().nr_pages(), 8u);
  EXPECT_EQ(bh_lookups(*sim), 0u);
}

TEST(FilemapReadTest, APartialPageReadCopiesOnlyItsBytes) {
  const CostProfile c = cost_profile_default();
  auto sim = make_sim(1);
  sim->files().set(1, FileSpec{FileType::kRegular, true});
  thread(*sim, 1, 0, {Op::file_read(1, 0, kPage), Op::file_read(1, kPage / 4, kPage / 2)});
  sim->run();
  const Histogram& reads = sim->stats().latency(OpKind::kFileRead);
  const SimTime expected = c.syscall_entry + c.find_get_page + c.filemap_read_page +
                           SimTime::ns(c.file_copy_page.count_ns() / 2);
  EXPECT_EQ(static_cast<int64_t>(reads.min()), expected.count_ns());
}

}  // namespace
}  // namespace mmreplay::kernelsim
