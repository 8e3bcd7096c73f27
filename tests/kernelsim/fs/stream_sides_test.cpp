// A socket's data crossing CPUs (kernelsim/fs/stream_sides.h): a read pays stream_page_remote a
// page when the data's writer ran on another CPU, a write when the last reader did; two sides on
// one CPU pay nothing, a reader's own answers are not its data, and pipes are not charged.

#include "kernelsim/fs/stream_sides.h"

#include <gtest/gtest.h>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kPage;
using testing::thread;

constexpr uint64_t kBlock = 16 * kPage;  // 64 KiB, as socket_pair writes

TEST(StreamSidesTest, AReadsOtherSideIsTheLatestWriterButItself) {
  StreamSides s;
  EXPECT_EQ(s.exchange(1, /*task=*/10, /*cpu=*/0, /*write=*/true), StreamSides::kNone);
  EXPECT_EQ(s.exchange(1, 20, 1, false), 0) << "the data came from task 10 on CPU 0";
  // Task 20 answers on its own CPU: its next read's data is still task 10's.
  EXPECT_EQ(s.exchange(1, 20, 1, true), StreamSides::kNone) << "nobody but 20 has read";
  EXPECT_EQ(s.exchange(1, 20, 1, false), 0);
  // Task 10 reads the answer (from 20 on CPU 1), then writes again: its room came from 20's read.
  EXPECT_EQ(s.exchange(1, 10, 0, false), 1);
  EXPECT_EQ(s.exchange(1, 10, 0, true), 1);
  EXPECT_EQ(s.exchange(2, 10, 0, false), StreamSides::kNone) << "another file knows nothing";
}

struct StreamRun {
  uint64_t remote_pages;
  int64_t reader_done_ns;
};

// Task 1 on CPU 0 writes a block to a socket (or `type`); task 2 on `reader_cpu` reads it 1 ms
// later.
StreamRun write_then_read(uint32_t reader_cpu, SimTime per_page,
                          FileType type = FileType::kSocket) {
  CostProfile costs = cost_profile_default();
  costs.stream_page_remote = per_page;
  Simulation sim(MachineConfig{.nr_cpus = 2}, costs, KernelConfig{});
  sim.files().set(testing::kFile, FileSpec{type, false});
  thread(sim, 1, 0, {Op::file_write(testing::kFile, 0, kBlock)});
  Task& reader = thread(sim, 2, reader_cpu,
                        {Op::sleep(SimTime::ms(1)), Op::file_read(testing::kFile, 0, kBlock)});
  sim.run();
  return StreamRun{sim.stats().vm.stream_pages_remote, reader.clock().count_ns()};
}

TEST(StreamSidesTest, AReadOfDataWrittenOnAnotherCpuPaysEachPage) {
  const SimTime per_page = SimTime::ns(300);
  const StreamRun apart = write_then_read(1, per_page);
  const StreamRun apart_free = write_then_read(1, SimTime::zero());
  EXPECT_EQ(apart.remote_pages, kBlock / kPage);
  EXPECT_EQ(apart.reader_done_ns - apart_free.reader_done_ns,
            static_cast<int64_t>(kBlock / kPage) * per_page.count_ns());
}

TEST(StreamSidesTest, TwoSidesOnOneCpuPayNothing) {
  const StreamRun together = write_then_read(0, SimTime::ns(300));
  EXPECT_EQ(together.remote_pages, 0u);
  EXPECT_EQ(together.reader_done_ns, write_then_read(0, SimTime::zero()).reader_done_ns);
}

TEST(StreamSidesTest, APipeIsNotCharged) {
  EXPECT_EQ(write_then_read(1, SimTime::ns(300), FileType::kPipe).remote_pages, 0u);
}

TEST(StreamSidesTest, NotLookedAtWhenItCostsNothing) {
  EXPECT_EQ(write_then_read(1, SimTime::zero()).remote_pages, 0u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
