// `trace-replay record` for real: records mmtouch (64 MiB mapped, every page written, the first
// half freed with MADV_DONTNEED, all unmapped) under perf and checks the trace. Skips, saying
// why, where perf is missing or not permitted (the command's own error names the fix).

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/trace_reader.h"

namespace mmreplay::formats {
namespace {

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kBytes = 64 * kMiB;
constexpr uint64_t kPage = 4096;
constexpr int kExitRunFailure = 1;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(RecordLive, MapTouchDontneedHalfUnmap) {
  const std::string dir = ::testing::TempDir();
  const std::string out = dir + "record_live.mmtrace", err = dir + "record_live.err";
  const std::string cmd = std::string(MMREPLAY_TRACE_REPLAY) + " record --no-baseline -o " + out +
                          " -- " + MMREPLAY_MMTOUCH + " 64 2> " + err;
  const int rc = std::system(cmd.c_str());
  const std::string message = slurp(err);
  if (WIFEXITED(rc) && WEXITSTATUS(rc) == kExitRunFailure &&
      (message.find("not found on PATH") != std::string::npos ||
       message.find("not permitted") != std::string::npos ||
       message.find("tracefs is not mounted") != std::string::npos)) {
    GTEST_SKIP() << "perf cannot record here: " << message;
  }
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << message;

  Status status;
  auto reader = TraceReader::open(out, ReaderOptions{}, &status);
  ASSERT_TRUE(reader) << status.message();
  ASSERT_EQ(reader->meta().threads.size(), 1u);
  std::vector<Event> events;
  StreamCursor cursor(*reader, 0);
  while (cursor.next()) events.push_back(cursor.event());
  ASSERT_TRUE(cursor.status()) << cursor.status().message();

  const Event* mmap = nullptr;
  for (const Event& e : events) {
    if (e.kind == EventKind::kMmap && e.len == kBytes) mmap = &e;
  }
  ASSERT_NE(mmap, nullptr) << message;
  EXPECT_TRUE(mmap->has_duration());
  const uint64_t lo = mmap->addr, hi = lo + kBytes;
  uint64_t write_faults = 0, dontneed = 0, unmaps = 0;
  for (const Event& e : events) {
    if (e.kind == EventKind::kPageFault && e.is_write() && e.addr >= lo && e.addr < hi) {
      ++write_faults;
    }
    if (e.kind == EventKind::kMadvise && e.addr == lo && e.len == kBytes / 2 &&
        e.arg0 == kMadvDontNeed) {
      ++dontneed;
    }
    if (e.kind == EventKind::kMunmap && e.addr == lo && e.len == kBytes) ++unmaps;
  }
  EXPECT_GE(write_faults, kBytes / kPage);
  EXPECT_EQ(dontneed, 1u);
  EXPECT_EQ(unmaps, 1u);
  EXPECT_NE(message.find("perf.data"), std::string::npos) << message;  // the size report
  // The probe ran under the same events and left its measures for replay (format 1.3): a
  // recorded event costs something, and a fault has kernel time the trace cannot see end.
  EXPECT_GT(reader->meta().recorder.tracing_cost_ns, 0u) << message;
  EXPECT_GT(reader->meta().recorder.fault_cost_ns, 0u) << message;
  EXPECT_NE(message.find("tracing cost:"), std::string::npos) << message;
}

}  // namespace
}  // namespace mmreplay::formats
