// fsync(2) of a file's dirty pages (fs/read_write.h do_fsync()): one cache flush a call, the
// pages written one behind the other at the device's pace, the writes already in flight waited
// for and not made again, nothing to wait for when nothing is dirty, and a journal commit when
// the file's size changed (an append, a truncation) and only then.

#include <gtest/gtest.h>

#include "kernelsim/fs/file.h"
#include "kernelsim/mm/filemap.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {
namespace fsync_test {

using testing::kPage;
using testing::thread;

constexpr uint64_t kFile = 1;
constexpr uint64_t kPages = 64;

// The default profile with round device times: a one-page fsync 100 us, each page's write 3 us,
// a commit of a new size 150 us.
CostProfile device_costs() {
  CostProfile c = cost_profile_default();
  c.fsync_block = SimTime::us(100);
  c.writeback_page = SimTime::us(3);
  c.fsync_commit = SimTime::us(150);
  return c;
}

std::unique_ptr<Simulation> machine() {
  std::string error;
  auto sim = Simulation::create(MachineConfig{.nr_cpus = 2, .memory_bytes = 64 * testing::kMiB},
                                device_costs(), "", &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

const Histogram& fsyncs(const Simulation& sim) {
  return sim.stats().latency(OpKind::kFsync);
}

TEST(FsyncTest, ManyPagesWaitForOneFlushAndTheDevicesPace) {
  auto sim = machine();
  thread(*sim, 1, 0, {Op::file_write(kFile, 0, kPages * kPage), Op::fsync(kFile)});
  sim->run();
  ASSERT_EQ(fsyncs(*sim).count(), 1u);
  const CostProfile& c = sim->costs();
  // The first page's write and the flush are fsync_block; the other pages queue behind it.
  const SimTime device = c.fsync_block + c.writeback_page * static_cast<int64_t>(kPages - 1);
  const SimTime took = SimTime::ns(static_cast<int64_t>(fsyncs(*sim).max()));
  EXPECT_GE(took, device);
  EXPECT_LT(took, device + SimTime::us(30))
      << "the entry and the submissions' CPU time beside it; not a flush a page (6.4 ms)";
  EXPECT_EQ(sim->page_cache().nr_dirty(), 0u);
  EXPECT_EQ(sim->stats().vm.nr_writeback_pages, kPages) << "each page written once";
}

TEST(FsyncTest, ASecondFsyncWaitsForTheWritesInFlightAndWritesNothingAgain) {
  auto sim = machine();
  // CPU 0 writes the pages and syncs them; CPU 1's fsync comes while those writes are in flight
  // (the device needs 289 us for them and the flush) and finds nothing dirty.
  thread(*sim, 1, 0,
         {Op::file_write(kFile, 0, kPages * kPage), Op::think(SimTime::us(500)), Op::fsync(kFile)});
  thread(*sim, 1, 1, {Op::think(SimTime::us(600)), Op::fsync(kFile)});
  sim->run();
  ASSERT_EQ(fsyncs(*sim).count(), 2u);
  const CostProfile& c = sim->costs();
  const SimTime flush = c.fsync_block - c.writeback_page;
  EXPECT_GE(SimTime::ns(static_cast<int64_t>(fsyncs(*sim).min())), flush)
      << "the later fsync waited for the writes in flight and the flush after them";
  EXPECT_EQ(sim->stats().vm.nr_writeback_pages, kPages);
}

TEST(FsyncTest, NothingDirtyAndNothingInFlightIsOnlyTheCall) {
  auto sim = machine();
  thread(*sim, 1, 0,
         {Op::file_write(kFile, 0, kPage), Op::fsync(kFile), Op::think(SimTime::ms(1)),
          Op::fsync(kFile)});
  sim->run();
  ASSERT_EQ(fsyncs(*sim).count(), 2u);
  const CostProfile& c = sim->costs();
  EXPECT_GE(SimTime::ns(static_cast<int64_t>(fsyncs(*sim).max())), c.fsync_block)
      << "one page: its write and the flush";
  EXPECT_LT(SimTime::ns(static_cast<int64_t>(fsyncs(*sim).min())), SimTime::us(5))
      << "the second: no commit, no flush";
}

// A file the run made starts empty: a page appended changes its size, which the journal commits
// before the flush; a page overwritten in place does not.
TEST(FsyncTest, AnAppendsFsyncCommitsTheNewSizeAnOverwritesDoesNot) {
  auto sim = machine();
  sim->files().set(kFile, FileSpec{.type = FileType::kRegular, .created = true});
  thread(*sim, 1, 0,
         {Op::file_write(kFile, 0, kPage), Op::fsync(kFile), Op::file_write(kFile, 0, kPage),
          Op::fsync(kFile)});
  sim->run();
  ASSERT_EQ(fsyncs(*sim).count(), 2u);
  const CostProfile& c = sim->costs();
  const SimTime append = SimTime::ns(static_cast<int64_t>(fsyncs(*sim).max()));
  const SimTime overwrite = SimTime::ns(static_cast<int64_t>(fsyncs(*sim).min()));
  EXPECT_GE(append, c.fsync_block + c.fsync_commit);
  EXPECT_GE(overwrite, c.fsync_block);
  EXPECT_LT(overwrite, c.fsync_block + SimTime::us(10)) << "no commit for a write in place";
}

// A file that existed keeps the size the trace reaches: writing inside it commits nothing, and
// a truncation changes it, so the next fsync commits though nothing is dirty.
TEST(FsyncTest, ATruncationsSizeIsCommittedByTheNextFsync) {
  auto sim = machine();
  sim->files().set(kFile, FileSpec{.type = FileType::kRegular, .size_bytes = kPages * kPage});
  thread(*sim, 1, 0,
         {Op::file_write(kFile, 0, kPage), Op::fsync(kFile), Op::file_truncate(kFile, 0, 1),
          Op::fsync(kFile)});
  sim->run();
  ASSERT_EQ(fsyncs(*sim).count(), 2u);
  const CostProfile& c = sim->costs();
  const SimTime flush = c.fsync_block - c.writeback_page;
  EXPECT_LT(SimTime::ns(static_cast<int64_t>(fsyncs(*sim).min())), c.fsync_block + SimTime::us(10))
      << "the write in place: no commit";
  EXPECT_GE(SimTime::ns(static_cast<int64_t>(fsyncs(*sim).max())), flush + c.fsync_commit)
      << "the truncation's new size: committed and flushed";
}

}  // namespace fsync_test
}  // namespace
}  // namespace mmreplay::kernelsim
