// The perf script importer on a real recording of tests/fixtures/import/mmtouch.c (1 MiB per
// thread, 2 worker threads), made by record_fixtures.sh with perf 6.1 on kernel 6.18.

#include <gtest/gtest.h>

#include "formats/import/import.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

using testing::count_if;
using testing::first_of;
using testing::fixture;
using testing::stream_of;

constexpr uint64_t kMainTid = 12385;
constexpr uint64_t kWorkerTids[] = {12387, 12388};
constexpr uint64_t kWorkerBytes = 1 << 20;
using testing::kPage;

class PerfScriptFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const Status s = import_file(ImportFormat::kPerfScript, fixture("mmtouch.perf-script.txt"),
                                 &trace_, &report_);
    ASSERT_TRUE(s) << s.message();
  }
  ImportedTrace trace_;
  ImportReport report_;
};

TEST_F(PerfScriptFixture, CountsEveryCallOfTheRecording) {
  // 12 mmap calls in the file plus the implicit mappings for faults before recording began.
  EXPECT_EQ(report_.count(EventKind::kMmap), 12u + report_.implicit_mappings.size());
  EXPECT_EQ(report_.implicit_mappings.size(), 3u);
  EXPECT_EQ(report_.count(EventKind::kMunmap), 3u);
  EXPECT_EQ(report_.count(EventKind::kMadvise), 4u);
  EXPECT_EQ(report_.count(EventKind::kMprotect), 5u);
  EXPECT_EQ(report_.count(EventKind::kBrk), 3u);
  EXPECT_EQ(report_.count(EventKind::kPageFault), 575u);
  EXPECT_EQ(report_.count(EventKind::kFileRead), 3u);  // read + 2 x pread64
  EXPECT_EQ(report_.count(EventKind::kFileWrite), 1u);
  EXPECT_EQ(report_.count(EventKind::kFsync), 1u);
  EXPECT_EQ(report_.count(EventKind::kThreadExit), 3u);  // exit x2, exit_group
  EXPECT_EQ(report_.unknown_lines, 0u);
  EXPECT_EQ(report_.failed_calls, 0u);
  // The two children's first event is their half of clone3's return.
  EXPECT_EQ(report_.unmatched_exits, 2u);
  // Every call got a duration from its enter/exit pair.
  EXPECT_EQ(report_.count(EventKind::kClone), 2u);  // the two threads' clones, in the parent
  EXPECT_EQ(report_.events_with_duration, 34u);
  EXPECT_TRUE(testing::streams_ordered(trace_));
}

TEST_F(PerfScriptFixture, ThreadTableFromPidTid) {
  ASSERT_EQ(trace_.meta.threads.size(), 3u);
  // The main thread's last line in the fixture ran on CPU 1 ("[001]"): as-recorded placement.
  EXPECT_EQ(trace_.meta.threads[0], (ThreadInfo{kMainTid, kMainTid, "mmtouch", 1}));
  for (uint64_t tid : kWorkerTids) {
    const int s = stream_of(trace_, tid);
    ASSERT_GE(s, 0) << tid;
    EXPECT_EQ(trace_.meta.threads[static_cast<size_t>(s)].mm_id, kMainTid);
  }
  EXPECT_EQ(report_.processes, 1u);
  EXPECT_EQ(report_.count(EventKind::kMmCreate), 0u);  // threads, not forks
  EXPECT_EQ(trace_.meta.recorder.tool, "perf");
  EXPECT_EQ(trace_.meta.recorder.cpus, 2u);
  EXPECT_FALSE(trace_.meta.recorder.kernel_release.empty());
  EXPECT_NE(trace_.meta.recorder.command_line.find("perf record"), std::string::npos);
}

TEST_F(PerfScriptFixture, WorkerMapsTouchesFreesHalfAndUnmaps) {
  for (uint64_t tid : kWorkerTids) {
    const int s = stream_of(trace_, tid);
    ASSERT_GE(s, 0);
    const Event* mmap = nullptr;
    for (const Event& e : trace_.streams[static_cast<size_t>(s)]) {
      if (e.kind == EventKind::kMmap && e.len == kWorkerBytes) mmap = &e;
    }
    ASSERT_NE(mmap, nullptr) << tid;
    EXPECT_EQ(mmap->prot(), kProtRead | kProtWrite);
    EXPECT_EQ(mmap->map_flags(), kMapPrivate | kMapAnonymous);
    EXPECT_EQ(mmap->arg1, 0u);  // anonymous
    const uint64_t lo = mmap->addr, hi = mmap->addr + kWorkerBytes;
    uint64_t write_faults = 0;
    bool freed_half = false, unmapped = false;
    for (const Event& e : trace_.streams[static_cast<size_t>(s)]) {
      if (e.kind == EventKind::kPageFault && e.addr >= lo && e.addr < hi && e.is_write()) {
        ++write_faults;
      }
      if (e.kind == EventKind::kMadvise && e.addr == lo) {
        freed_half = e.len == kWorkerBytes / 2 && e.arg0 == kMadvDontNeed;
      }
      if (e.kind == EventKind::kMunmap && e.addr == lo) unmapped = e.len == kWorkerBytes;
    }
    EXPECT_EQ(write_faults, kWorkerBytes / kPage) << tid;  // one first-touch fault per page
    EXPECT_TRUE(freed_half) << tid;
    EXPECT_TRUE(unmapped) << tid;
  }
}

TEST_F(PerfScriptFixture, DurationIsExitMinusEnter) {
  // 12387: sys_enter_mmap at 1631.969614095, sys_exit_mmap at 1631.969633172.
  const int s = stream_of(trace_, 12387);
  ASSERT_GE(s, 0);
  const Event* e = first_of(trace_, s, EventKind::kMmap);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->ts_ns, 1631969614095u);
  EXPECT_EQ(e->duration_ns, 1631969633172u - 1631969614095u);
  EXPECT_EQ(e->addr, 0x7f33790a1000u);
  EXPECT_GT(report_.think_time_ns, 0u);
}

TEST_F(PerfScriptFixture, FaultsTiedToMappingsOrToImplicitOnes) {
  EXPECT_EQ(report_.faults_in_known_mappings + report_.faults_outside_mappings, 575u);
  uint64_t implicit_faults = 0;
  for (const ImplicitMapping& m : report_.implicit_mappings) {
    EXPECT_EQ(m.mm_id, kMainTid);
    EXPECT_LT(m.start, m.end);
    implicit_faults += m.faults;
  }
  EXPECT_EQ(implicit_faults, report_.faults_outside_mappings);
  // Implicit mappings open the process's first thread, right after thread_start.
  const auto& main = trace_.streams[0];
  ASSERT_GT(main.size(), 1 + report_.implicit_mappings.size());
  EXPECT_EQ(main[0].kind, EventKind::kThreadStart);
  for (size_t i = 0; i < report_.implicit_mappings.size(); ++i) {
    EXPECT_EQ(main[1 + i].kind, EventKind::kMmap);
    EXPECT_EQ(main[1 + i].addr, report_.implicit_mappings[i].start);
    EXPECT_FALSE(main[1 + i].has_duration());
  }
}

TEST_F(PerfScriptFixture, FileEventsGetFileIdsAndOffsets) {
  ASSERT_EQ(trace_.meta.files.size(), 1u);  // fd 3 of the process: ld.so's libc, then the temp file
  EXPECT_EQ(count_if(trace_,
                     [](const Event& e) { return e.kind == EventKind::kFileRead && e.arg0 == 1; }),
            3u);
}

}  // namespace
}  // namespace mmreplay::formats
