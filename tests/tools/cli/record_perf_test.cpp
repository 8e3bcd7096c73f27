// The ring buffer `trace-replay record` asks perf record for (tools/cli/record_perf.h): perf's
// default of 512 KiB a CPU drops the events of a burst of faults.

#include "tools/cli/record_perf.h"

#include <gtest/gtest.h>

namespace mmreplay::tools {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(RecordBuffer, RootGetsEightMebibytesACpuOnAMachineWithRoomForThem) {
  EXPECT_EQ(record_buffer_size(true, 24 * kGiB, 2), "8M");
  EXPECT_EQ(record_buffer_size(true, 1024 * kGiB, 160), "8M");
}

TEST(RecordBuffer, AllTheBuffersTakeAtMostASixtyFourthOfTheMemory) {
  // 16 GiB / 64 = 256 MiB for 64 CPUs: 4 MiB each.
  EXPECT_EQ(record_buffer_size(true, 16 * kGiB, 64), "4M");
  // 1 GiB / 64 = 16 MiB for 16 CPUs: 1 MiB each.
  EXPECT_EQ(record_buffer_size(true, kGiB, 16), "1M");
}

TEST(RecordBuffer, NeverBelowPerfsOwnDefault) {
  // 512 MiB / 64 = 8 MiB for 64 CPUs would be 128 KiB each: perf's default stays.
  EXPECT_EQ(record_buffer_size(true, kGiB / 2, 64), "");
}

TEST(RecordBuffer, AUserKeepsPerfsDefault) {
  // perf_event_mlock_kb bounds what an unprivileged perf may lock: asking more makes it fail.
  EXPECT_EQ(record_buffer_size(false, 24 * kGiB, 2), "");
}

TEST(RecordBuffer, MmapPagesTakesWhatPerfTakes) {
  for (const char* ok : {"16M", "2048", "512K", "1G", "4096B"}) {
    EXPECT_TRUE(valid_mmap_size(ok)) << ok;
  }
  for (const char* bad : {"", "M", "16MB", "-1", "1.5M", "16m ", "1234567890"}) {
    EXPECT_FALSE(valid_mmap_size(bad)) << bad;
  }
}

}  // namespace
}  // namespace mmreplay::tools
