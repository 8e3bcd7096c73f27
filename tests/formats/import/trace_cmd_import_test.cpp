// The trace.dat importer (libtracecmd) on a real recording of mmtouch.c (1 MiB, 2 threads).

#include <gtest/gtest.h>

#include "formats/import/import.h"
#include "formats/import/trace_cmd.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

using testing::fixture;
using testing::stream_of;

constexpr uint64_t kWorkerBytes = 1 << 20;
constexpr uint64_t kPage = 4096;

TEST(TraceCmdImport, RealRecording) {
  if (!have_trace_dat_reader()) GTEST_SKIP() << "built without libtracecmd-dev";
  ImportedTrace trace;
  ImportReport report;
  const Status s =
      import_file(ImportFormat::kTraceCmd, fixture("mmtouch.trace.dat"), &trace, &report);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(report.count(EventKind::kMmap), 12u + report.implicit_mappings.size());
  EXPECT_EQ(report.count(EventKind::kMunmap), 3u);
  EXPECT_EQ(report.count(EventKind::kMadvise), 4u);
  EXPECT_EQ(report.count(EventKind::kMprotect), 5u);
  EXPECT_EQ(report.count(EventKind::kPageFault), 574u);
  EXPECT_EQ(report.count(EventKind::kThreadExit), 3u);
  EXPECT_EQ(report.events_with_duration, 32u);
  EXPECT_EQ(report.unknown_lines, 0u);
  ASSERT_EQ(trace.meta.threads.size(), 3u);
  // No tgid in this trace.dat: the workers take the main thread's mm from clone3.
  for (const ThreadInfo& t : trace.meta.threads) {
    EXPECT_EQ(t.mm_id, trace.meta.threads[0].tid);
    EXPECT_EQ(t.name, "mmtouch");
  }
  EXPECT_EQ(trace.meta.recorder.tool, "trace-cmd");
  EXPECT_EQ(trace.meta.recorder.cpus, 2u);
  // Each worker: 1 MiB mapped, 256 write faults in it, half freed, all unmapped.
  for (size_t s = 1; s < 3; ++s) {
    const Event* mmap = nullptr;
    for (const Event& e : trace.streams[s]) {
      if (e.kind == EventKind::kMmap && e.len == kWorkerBytes) mmap = &e;
    }
    ASSERT_NE(mmap, nullptr);
    ASSERT_TRUE(mmap->has_duration());
    uint64_t faults = 0;
    for (const Event& e : trace.streams[s]) {
      faults += e.kind == EventKind::kPageFault && e.is_write() && e.addr >= mmap->addr &&
                e.addr < mmap->addr + kWorkerBytes;
    }
    EXPECT_EQ(faults, kWorkerBytes / kPage);
  }
  EXPECT_TRUE(testing::streams_ordered(trace));
}

TEST(TraceCmdImport, NotATraceDat) {
  if (!have_trace_dat_reader()) GTEST_SKIP() << "built without libtracecmd-dev";
  ImportedTrace trace;
  ImportReport report;
  const Status s = import_file(ImportFormat::kTraceCmd, fixture("mmtouch.c"), &trace, &report);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("mmtouch.c"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace mmreplay::formats
