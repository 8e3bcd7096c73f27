// Reads and writes by file kind (kernelsim/fs/file.h, issue 19): only regular files and block
// devices reach the page cache; /dev/null writes add no page; a pipe read moves bytes with no
// page; a file cached at the start (--cache warm) misses no page until one is dropped.

#include "kernelsim/fs/file.h"

#include <gtest/gtest.h>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kPage;
using testing::thread;

using testing::kMiB;
using testing::kPagesPerMiB;

std::unique_ptr<Simulation> machine() {
  return testing::make_sim_with_memory(2, 64 * kMiB);
}

TEST(FileKindTest, DevNullWritesAddNoPageCachePagesARegularFileDoes) {
  auto sim = machine();
  sim->files().set(1, FileSpec{FileType::kCharDevice, false});
  thread(*sim, 1, 0, {Op::file_write(1, 0, kMiB), Op::file_write(2, 0, kMiB)});
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(sim->page_cache().nr_pages(), kPagesPerMiB)
      << "only file 2's (unlisted: unknown kind, page cache)";
  EXPECT_EQ(vm.fd_io_char, 1u);
  EXPECT_EQ(vm.fd_io_regular, 1u);
}

TEST(FileKindTest, PipeAndSocketReadsAndWritesTouchNoPageCache) {
  auto sim = machine();
  sim->files().set(1, FileSpec{FileType::kPipe, false});
  sim->files().set(2, FileSpec{FileType::kSocket, false});
  thread(*sim, 1, 0,
         {Op::file_write(1, 0, kMiB), Op::file_read(1, 0, kMiB), Op::file_read(2, 0, kMiB),
          Op::fsync(1)});
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(sim->page_cache().nr_pages(), 0u);
  EXPECT_EQ(vm.pgcache_miss, 0u);
  EXPECT_EQ(vm.fd_io_pipe, 2u);
  EXPECT_EQ(vm.fd_io_socket, 1u);
  EXPECT_EQ(vm.fd_io_regular, 0u);
}

// A socket write the importer cut at its skbs (kFlagContinued) is one call: the later pieces
// cost their copy and the socket's own work but no second syscall entry, and count no call.
TEST(FileKindTest, AContinuedPieceOfASocketWriteEntersNoSecondSyscall) {
  auto one_write = [](bool cut) {
    auto sim = machine();
    sim->files().set(1, FileSpec{FileType::kSocket, false});
    Op rest = Op::file_write(1, kMiB / 2, kMiB / 2);
    rest.continues_call = true;
    if (cut) {
      thread(*sim, 1, 0, {Op::file_write(1, 0, kMiB / 2), rest});
    } else {
      thread(*sim, 1, 0, {Op::file_write(1, 0, kMiB / 2), Op::file_write(1, kMiB / 2, kMiB / 2)});
    }
    sim->run();
    return std::pair{sim->stats().vm.fd_io_socket, sim->now().count_ns()};
  };
  const auto [cut_calls, cut_ns] = one_write(true);
  const auto [two_calls, two_ns] = one_write(false);
  EXPECT_EQ(cut_calls, 1u);
  EXPECT_EQ(two_calls, 2u);
  EXPECT_EQ(two_ns - cut_ns, cost_profile_default().syscall_entry.count_ns());
}

TEST(FileKindTest, AWarmFileMissesNoPageAColdOneMissesEach) {
  for (const bool warm : {false, true}) {
    auto sim = machine();
    sim->files().set(1, FileSpec{FileType::kRegular, warm, 4 * kMiB});
    thread(*sim, 1, 0, {Op::file_read(1, 0, 4 * kMiB), Op::file_read(1, 0, 4 * kMiB)});
    sim->run();
    const VmCounters& vm = sim->stats().vm;
    EXPECT_EQ(vm.pgcache_miss, warm ? 0 : 4 * kPagesPerMiB) << warm;
    EXPECT_EQ(vm.pgcache_warm, warm ? 4 * kPagesPerMiB : 0) << warm;
    EXPECT_EQ(sim->page_cache().nr_pages(), 4 * kPagesPerMiB) << "resident either way";
  }
}

TEST(FileKindTest, AWarmPageDroppedIsReadAgainFromTheDevice) {
  // 64 MiB of memory, 96 MiB of one warm file read twice: the first pass evicts its own early
  // pages, so the second pass reads those from the device.
  auto sim = machine();
  sim->files().set(1, FileSpec{FileType::kRegular, true});
  thread(*sim, 1, 0, {Op::file_read(1, 0, 96 * kMiB), Op::file_read(1, 0, 96 * kMiB)});
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pgcache_warm, 96 * kPagesPerMiB);
  EXPECT_GT(vm.pgcache_drop, 0u);
  EXPECT_GT(vm.pgcache_miss, 0u) << "dropped pages are cold again";
}

}  // namespace
}  // namespace mmreplay::kernelsim
