// The strace importer on a real `strace -f -ttt -T` log of mmtouch.c (1 MiB, 2 threads), with
// its unprefixed lines, unfinished/resumed pairs and a line cut by "strace: Process N attached".

#include <gtest/gtest.h>

#include "formats/import/import.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

using testing::fixture;
using testing::stream_of;

constexpr uint64_t kStraceMainTid = 12394;
constexpr uint64_t kStraceWorkerBytes = 1 << 20;

class StraceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const Status s =
        import_file(ImportFormat::kStrace, fixture("mmtouch.strace.txt"), &trace_, &report_);
    ASSERT_TRUE(s) << s.message();
  }
  ImportedTrace trace_;
  ImportReport report_;
};

TEST_F(StraceFixture, CountsEveryCall) {
  // 12 calls, and 2 implicit mappings: the RELRO pages ld.so mprotects in the binary and in
  // itself, both mapped by the kernel at exec, before the first line.
  EXPECT_EQ(report_.count(EventKind::kMmap), 14u);
  EXPECT_EQ(report_.implicit_mappings.size(), 2u);
  EXPECT_EQ(report_.count(EventKind::kMunmap), 3u);
  EXPECT_EQ(report_.count(EventKind::kMadvise), 4u);
  EXPECT_EQ(report_.count(EventKind::kMprotect), 5u);
  EXPECT_EQ(report_.count(EventKind::kBrk), 3u);
  EXPECT_EQ(report_.count(EventKind::kPageFault), 0u);  // strace sees no faults
  EXPECT_EQ(report_.count(EventKind::kFileRead), 3u);
  EXPECT_EQ(report_.count(EventKind::kFileWrite), 1u);
  EXPECT_EQ(report_.count(EventKind::kFsync), 1u);
  EXPECT_EQ(report_.count(EventKind::kThreadExit), 3u);
  EXPECT_EQ(report_.count(EventKind::kClone), 2u);  // the two threads' clones, in the parent
  EXPECT_EQ(report_.events_with_duration, 34u);
  EXPECT_EQ(report_.unknown_lines, 0u);
  EXPECT_EQ(report_.unmatched_exits, 0u);
  EXPECT_EQ(report_.unfinished_calls, 0u);
  EXPECT_EQ(report_.unknown_flag_names, 0u);
  EXPECT_TRUE(testing::streams_ordered(trace_));
}

TEST_F(StraceFixture, UnprefixedLinesBelongToTheFirstThread) {
  ASSERT_EQ(trace_.meta.threads.size(), 3u);
  EXPECT_EQ(trace_.meta.threads[0].tid, kStraceMainTid);
  for (const ThreadInfo& t : trace_.meta.threads) EXPECT_EQ(t.mm_id, kStraceMainTid) << t.tid;
  EXPECT_GE(stream_of(trace_, 12395), 0);
  EXPECT_GE(stream_of(trace_, 12396), 0);
  EXPECT_EQ(report_.processes, 1u);
  // brk(NULL) is the first line, without a prefix, after thread_start and the two implicit
  // mappings; exit_group(0) the last, also without.
  const auto& main = trace_.streams[0];
  EXPECT_EQ(main[1].kind, EventKind::kMmap);
  EXPECT_EQ(main[1].addr, 0x55cfe9b68000u);  // the binary's RELRO page
  EXPECT_EQ(main[2].kind, EventKind::kMmap);
  EXPECT_EQ(main[3].kind, EventKind::kBrk);
  EXPECT_EQ(main.back().kind, EventKind::kThreadExit);
}

TEST_F(StraceFixture, UnfinishedAndResumedMakeOneCallWithTheEnterTime) {
  // [pid 12395] 1796015527.953427 mmap(NULL, 1048576, ... <unfinished ...>
  // [pid 12395] 1796015527.953525 <... mmap resumed>) = 0x7f534805d000 <0.000076>
  const int s = stream_of(trace_, 12395);
  ASSERT_GE(s, 0);
  const Event* mmap = testing::first_of(trace_, s, EventKind::kMmap);
  ASSERT_NE(mmap, nullptr);
  EXPECT_EQ(mmap->ts_ns, 1796015527953427000u);
  EXPECT_EQ(mmap->duration_ns, 76000u);
  EXPECT_EQ(mmap->addr, 0x7f534805d000u);
  EXPECT_EQ(mmap->len, kStraceWorkerBytes);
  EXPECT_EQ(mmap->prot(), kProtRead | kProtWrite);
  EXPECT_EQ(mmap->map_flags(), kMapPrivate | kMapAnonymous);
  const Event* madv = testing::first_of(trace_, s, EventKind::kMadvise);
  ASSERT_NE(madv, nullptr);
  EXPECT_EQ(madv->addr, 0x7f534805d000u);
  EXPECT_EQ(madv->len, kStraceWorkerBytes / 2);
  EXPECT_EQ(madv->arg0, kMadvDontNeed);
  EXPECT_EQ(madv->duration_ns, 4348000u);  // resumed <0.004348>
}

}  // namespace
}  // namespace mmreplay::formats
