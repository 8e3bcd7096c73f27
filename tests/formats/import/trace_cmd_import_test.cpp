// The trace.dat importer (libtracecmd) on real recordings of mmtouch.c (1 MiB, 2 threads) and
// wakeup.c (semaphore waits woken by another thread).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "formats/import/import.h"
#include "formats/import/trace_cmd.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

using testing::fixture;
using testing::stream_of;

constexpr uint64_t kTraceCmdWorkerBytes = 1 << 20;
using testing::kPage;

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
  EXPECT_EQ(report.count(EventKind::kClone), 2u);  // the two threads' clones, in the parent
  EXPECT_EQ(report.events_with_duration, 34u);
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
      if (e.kind == EventKind::kMmap && e.len == kTraceCmdWorkerBytes) mmap = &e;
    }
    ASSERT_NE(mmap, nullptr);
    ASSERT_TRUE(mmap->has_duration());
    uint64_t faults = 0;
    for (const Event& e : trace.streams[s]) {
      faults += e.kind == EventKind::kPageFault && e.is_write() && e.addr >= mmap->addr &&
                e.addr < mmap->addr + kTraceCmdWorkerBytes;
    }
    EXPECT_EQ(faults, kTraceCmdWorkerBytes / kPage);
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

// Imports `bytes` from a file of its own; the import must fail and say libtracecmd died.
void expect_library_death_is_an_error(const std::string& bytes) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("trace_cmd_damaged_" + std::to_string(::getpid()) + ".dat"))
                               .string();
  std::ofstream(path, std::ios::binary) << bytes;
  ImportedTrace trace;
  ImportReport report;
  const Status s = import_file(ImportFormat::kTraceCmd, path, &trace, &report);
  std::filesystem::remove(path);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_EQ(s.message().rfind(path + ": libtracecmd died reading it", 0), 0u) << s.message();
}

// wakeup.c recorded with sched:sched_wakeup and sched:sched_switch (record_fixtures.sh): the
// main thread's semaphore waits are futex waits, each woken by the poster thread; each ends at
// its wake-up, as perf's do (ImportBuilder::task_woken()), and the wake-ups and switches recorded
// in other tasks (the idle task's, a migration thread's) make no thread of the trace.
TEST(TraceCmdImport, BlockingCallsEndAtTheirWakeUp) {
  if (!have_trace_dat_reader()) GTEST_SKIP() << "built without libtracecmd-dev";
  ImportedTrace trace;
  ImportReport report;
  const Status s =
      import_file(ImportFormat::kTraceCmd, fixture("wakeup.trace.dat"), &trace, &report);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(trace.meta.threads.size(), 2u);
  // The 20 semaphore waits and pthread_join()'s, woken by the poster's exit (CLONE_CHILD_CLEARTID).
  EXPECT_EQ(report.count(EventKind::kFutexWait), 21u);
  EXPECT_EQ(report.blocks_cut_at_wakeup, 21u) << "every wait was woken inside it";
  EXPECT_GT(report.blocks_runnable_ns, 0u);
  // sched_switch: each wait took the waiter off its CPU (asleep), and the poster was preempted
  // by the waiter's wake-ups; neither is think time.
  EXPECT_GE(report.off_cpu_intervals, 21u);
  EXPECT_GT(report.preempted_ns, 0u);
  EXPECT_LT(report.preempted_ns, report.off_cpu_ns);
}

// Two inputs fuzz_import_trace_cmd found that kill libtraceevent 1.7 (trace_cmd_records.h): the
// import reports a damaged file instead of dying with it.
TEST(TraceCmdImport, LibraryDeathIsAnError) {
  if (!have_trace_dat_reader()) GTEST_SKIP() << "built without libtracecmd-dev";
  std::ifstream in(fixture("mmtouch.trace.dat"), std::ios::binary);
  const std::string recording((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
  // Its first 36 bytes (version, compression, up to the first section): a double free.
  constexpr size_t kCut = 36;
  ASSERT_GT(recording.size(), kCut);
  expect_library_death_is_an_error(recording.substr(0, kCut));
  // One bit flipped inside a compressed section: SIGSEGV in tep_parse_event().
  constexpr size_t kFlippedByte = 118434;
  ASSERT_GT(recording.size(), kFlippedByte);
  std::string flipped = recording;
  flipped[kFlippedByte] ^= 0x01;
  expect_library_death_is_an_error(flipped);
}

}  // namespace
}  // namespace mmreplay::formats
