// EventKind from the op table (common/op_table.h): the numbers and names are the on-disk format
// and what `cat` prints, so they are pinned here.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/event.h"
#include "formats/event_text.h"

namespace mmreplay::formats {
namespace {

TEST(EventKind, NumbersAndNamesAreTheFormats) {
  const std::vector<std::string> disk_order = {
      "thread_start",   "thread_exit",  "mm_create",   "mm_exit",     "mmap",
      "munmap",         "mprotect",     "mremap",      "brk",         "madvise",
      "madvise_vector", "page_fault",   "touch",       "file_read",   "file_write",
      "fsync",          "contig_alloc", "contig_free", "observation", "block",
      "clone",          "wait_child",   "futex_wake",  "futex_wait",  "file_truncate",
  };
  ASSERT_EQ(kEventKindCount, static_cast<int>(disk_order.size()));
  for (int k = 0; k < kEventKindCount; ++k) {
    const auto kind = static_cast<EventKind>(k);
    EXPECT_EQ(kind_name(kind), disk_order[k]) << k;
    EventKind back;
    ASSERT_TRUE(kind_from_name(disk_order[k], &back));
    EXPECT_EQ(back, kind);
  }
  EXPECT_EQ(static_cast<int>(EventKind::kMadviseVector), 10);
  EXPECT_EQ(static_cast<int>(EventKind::kObservation), 18);
  EXPECT_EQ(static_cast<int>(EventKind::kBlock), 19);
  EXPECT_EQ(static_cast<int>(EventKind::kClone), 20);
  EXPECT_EQ(static_cast<int>(EventKind::kWaitChild), 21);
  EXPECT_EQ(static_cast<int>(EventKind::kFutexWait), 23);
  EXPECT_EQ(static_cast<int>(EventKind::kFileTruncate), 24);  // format 1.10
  EXPECT_EQ(kind_name(static_cast<EventKind>(kEventKindCount)), "unknown");
  EventKind k;
  EXPECT_FALSE(kind_from_name("think", &k));  // a model op, never in a trace
  EXPECT_FALSE(kind_from_name("madvise_vec", &k));
}

TEST(EventKind, RowsCarryResultsKeysAndSyscalls) {
  EXPECT_EQ(op_info(EventKind::kPageFault).results_key, "fault");
  EXPECT_EQ(op_info(EventKind::kFileRead).results_key, "read");
  EXPECT_EQ(op_info(EventKind::kMadviseVector).syscall, "process_madvise");
  EXPECT_EQ(op_info(EventKind::kObservation).results_key, "");
  EXPECT_FALSE(op_info(EventKind::kObservation).modelled);
  EXPECT_TRUE(op_info(EventKind::kBlock).modelled);
  EXPECT_EQ(op_info(EventKind::kBlock).results_key, "");
}

TEST(EventKind, BlockCallNamesAreTheSyscalls) {
  EXPECT_EQ(block_call_name(BlockCall::kFutex), "futex");
  EXPECT_EQ(block_call_name(BlockCall::kClockNanosleep), "clock_nanosleep");
  EXPECT_EQ(block_call_name(BlockCall::kWaitid), "waitid");
  EXPECT_EQ(block_call_name(static_cast<BlockCall>(kBlockCallCount)), "unknown");
  const Event e = ev::block(5, BlockCall::kPoll, 1000);
  EXPECT_EQ(e.kind, EventKind::kBlock);
  EXPECT_EQ(e.arg0, static_cast<uint64_t>(BlockCall::kPoll));
  EXPECT_EQ(e.duration_ns, 1000u);
}

// `cat` names the flag bits a kind carries: a kernel-mode fault (1.3), a later piece of one
// write (1.7), a splice's source read and a wait an edge ended (1.9); a first piece prints as any
// write, and bits a
// kind does not name as a number.
TEST(EventKind, TheTextFormNamesFlags) {
  auto text = [](const Event& e) {
    std::string out;
    append_event_fields(e, {}, &out);
    return out;
  };
  Event fault = ev::page_fault(1, 0x1000, /*write=*/true, /*major=*/false, /*kernel=*/true);
  EXPECT_EQ(text(fault), "page_fault addr=0x1000 write kernel");
  Event first = ev::file_write(1, 3, 0, 4096);
  EXPECT_EQ(text(first), "file_write file=3 offset=0 len=4096");
  Event rest = ev::file_write(1, 3, 4096, 4096);
  rest.flags |= kFlagContinued;
  EXPECT_EQ(text(rest), "file_write file=3 offset=4096 len=4096 continued");
  rest.flags |= kFlagWrite;  // a bit file_write does not name
  EXPECT_EQ(text(rest), "file_write file=3 offset=4096 len=4096 continued eflags=0x1");
  // 1.9: a read that is the source of an in-kernel copy (copy_file_range(), sendfile()).
  Event source = ev::file_read(1, 3, 0, 8192);
  source.flags |= kFlagKernel;
  EXPECT_EQ(text(source), "file_read file=3 offset=0 len=8192 splice");
  // 1.9: a poll the ordering edge after it ended.
  Event poll = ev::block(1, BlockCall::kPoll, 5000);
  poll.flags |= kFlagWokenByEdge;
  EXPECT_EQ(text(poll), "block call=poll woken_by_edge dur_ns=5000");
  // 1.15: a wait for any child, and the wait its SIGCHLD interrupted.
  Event reap = ev::wait_child(1, 101, BlockCall::kWait4, 10);
  reap.flags |= kFlagAnyChild;
  EXPECT_EQ(text(reap), "wait_child child=101 call=wait4 any_child dur_ns=10");
  Event pselect = ev::block(1, BlockCall::kPselect6, 5000);
  pselect.flags |= kFlagAnyChild;
  EXPECT_EQ(text(pselect), "block call=pselect6 ended_by_child_exit dur_ns=5000");
}

}  // namespace
}  // namespace mmreplay::formats
