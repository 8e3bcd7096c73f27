// Recorded addresses replay where the kernel put them (issue 19 item 2): real recordings of
// mremap_move.c (8 steps; tests/fixtures/import/), whose mapping the kernel moves on every grow,
// imported and replayed. Before, each moved range was wherever the model chose, so every later
// fault in it was a SEGV and every later mremap of it failed.

#include <gtest/gtest.h>

#include "formats/import/import.h"
#include "kernelsim/costs/cost_profile.h"
#include "replay/run.h"
#include "tests/formats/import/import_test_util.h"
#include "tests/formats/import/replay_imported.h"

namespace mmreplay::formats {
namespace {

replay::RunResult import_and_replay(ImportFormat format, const std::string& name) {
  ImportedTrace trace;
  ImportReport report;
  Status s = import_file(format, testing::fixture(name), &trace, &report);
  EXPECT_TRUE(s) << s.message();
  EXPECT_EQ(report.count(EventKind::kMremap), 8u);
  replay::RunSpec spec;
  spec.policy_name = "default";
  return testing::replay_imported(trace, name, spec);
}

TEST(ImportReplay, PerfRecordingOfMovingMremapsFaultsInTheMovedRanges) {
  const replay::RunResult r =
      import_and_replay(ImportFormat::kPerfScript, "mremap_move.perf-script.txt");
  EXPECT_EQ(r.ops.at("mremap").count(), 8u);
  EXPECT_GT(r.counters.at("faults"), 144u);  // 16 pages, then 16 more per step: 144 writes
  EXPECT_EQ(r.counters.at("fault_segv"), 0u);
  EXPECT_EQ(r.counters.at("ops_failed"), 0u);
  EXPECT_EQ(r.counters.at("addr_mismatch"), 0u);
}

TEST(ImportReplay, StraceLogOfMovingMremapsReplaysEveryMremap) {
  const replay::RunResult r = import_and_replay(ImportFormat::kStrace, "mremap_move.strace.txt");
  EXPECT_EQ(r.ops.at("mremap").count(), 8u);
  EXPECT_EQ(r.counters.at("addr_mismatch"), 0u);
  // mprotect(PROT_READ) of the program's and the loader's RELRO pages, which execve() mapped and
  // no fault shows (strace sees none), replays: the call's success puts them in an implicit
  // mapping. They failed with ENOMEM before.
  EXPECT_EQ(r.counters.at("ops_failed"), 0u);
}

// A process made with CLONE_VM|CLONE_VFORK (posix_spawn(), gcc's pex, dash's `&`) runs in its
// parent's mm until it execs, and its first event is that exec, whose kernel-mode faults come
// back from perf before the exec's own return. Before, the child started in the exec's mm made
// as a fork copy of the parent's (its ptes copied, its brk start too), the exec found the task
// already there and kept the copy, and the new program's brk below the inherited start was
// ignored: every heap fault was a SEGV (g++: 92 of 2,765 faults).
TEST(ImportReplay, VforkChildRunsInItsParentsMmUntilItsExec) {
  const std::string text =
      "p 5/5 [0] 1.000001000: syscalls:sys_enter_brk: brk: 0x0\n"
      "p 5/5 [0] 1.000002000: syscalls:sys_exit_brk: 0x555555600000\n"
      "p 5/5 [0] 1.000010000: syscalls:sys_enter_mmap: addr: 0x0, len: 0x5000, prot: 0x3, "
      "flags: 0x22, fd: 0xffffffff, off: 0x0\n"
      "p 5/5 [0] 1.000011000: syscalls:sys_exit_mmap: 0x7f0000000000\n"
      "p 5/5 [0] 1.000012000: exceptions:page_fault_user: address=0x7f0000000000 ip=0x1 "
      "error_code=0x6\n"
      "p 5/5 [0] 1.000013000: exceptions:page_fault_user: address=0x7f0000001000 ip=0x1 "
      "error_code=0x6\n"
      "p 5/5 [0] 1.000015000: syscalls:sys_enter_clone: clone_flags: 0x4100, newsp: 0x0\n"
      "p 6/6 [0] 1.000036000: syscalls:sys_enter_execve: filename: 0x1, argv: 0x2, envp: 0x3\n"
      "p 6/6 [0] 1.000100000: exceptions:page_fault_kernel: address=0x7ffff7ff0000 ip=0x1 "
      "error_code=0x2\n"
      "p 6/6 [0] 1.000336000: syscalls:sys_exit_execve: 0x0\n"
      "p 5/5 [0] 1.000340000: syscalls:sys_exit_clone: 0x6\n"
      "p 5/5 [0] 1.000341000: syscalls:sys_enter_wait4: upid: 0x6, stat_addr: 0x0, options: "
      "0x0, ru: 0x0\n"
      "p 6/6 [0] 1.000350000: syscalls:sys_enter_brk: brk: 0x0\n"
      "p 6/6 [0] 1.000351000: syscalls:sys_exit_brk: 0x2000000\n"
      "p 6/6 [0] 1.000352000: syscalls:sys_enter_brk: brk: 0x2021000\n"
      "p 6/6 [0] 1.000353000: syscalls:sys_exit_brk: 0x2021000\n"
      "p 6/6 [0] 1.000354000: exceptions:page_fault_user: address=0x2000008 ip=0x1 "
      "error_code=0x6\n"
      "p 6/6 [0] 1.000355000: exceptions:page_fault_user: address=0x2010000 ip=0x1 "
      "error_code=0x6\n"
      "p 6/6 [0] 1.000356000: syscalls:sys_enter_exit_group: error_code: 0x0\n"
      "p 5/5 [0] 1.000400000: syscalls:sys_exit_wait4: 0x6\n"
      // The parent's mm outlived the child's exec and exit: a new page of it faults in.
      "p 5/5 [0] 1.000401000: exceptions:page_fault_user: address=0x7f0000004000 ip=0x1 "
      "error_code=0x6\n"
      "p 5/5 [0] 1.000402000: syscalls:sys_enter_exit_group: error_code: 0x0\n";
  ImportedTrace trace;
  ImportReport report;
  ASSERT_TRUE(import_text(ImportFormat::kPerfScript, "vfork.txt", text, &trace, &report));
  ASSERT_EQ(trace.meta.threads.size(), 2u);
  EXPECT_EQ(trace.meta.threads[1].mm_id, 5u);  // the parent's mm, shared, no copy of it
  uint32_t creates = 0;
  for (const Event& e : trace.streams[1]) {
    if (e.kind != EventKind::kMmCreate) continue;
    ++creates;
    EXPECT_EQ(e.arg0, 6u + (uint64_t{4} << 20));  // the exec's new mm (PID_MAX_LIMIT apart)
    EXPECT_EQ(e.arg1, 0u);                        // fresh, not a fork copy
  }
  EXPECT_EQ(creates, 1u);
  const replay::RunResult r = testing::replay_default(trace, "vfork");
  EXPECT_EQ(r.counters.at("fault_segv"), 0u);
  EXPECT_EQ(r.counters.at("ops_failed"), 0u);
  EXPECT_EQ(r.counters.at("fork_ptes_copied"), 0u);  // vfork copies no page table
  EXPECT_EQ(r.counters.at("faults"), 6u);
}

// cp's copy_file_range() replays as the kernel runs it: one entry into the kernel, the source's
// pages looked up and handed on by reference (filemap_splice_read()), one copy into the
// destination. The same bytes moved by read() and write() cost a second entry and a second
// copy (to user memory), and nothing else.
TEST(ImportReplay, CopyFileRangeCopiesOnceInOneCall) {
  const std::string open =
      "7 1.000000 openat(AT_FDCWD, \"/src\", O_RDONLY) = 3 <0.000001>\n"
      "7 1.000010 openat(AT_FDCWD, \"/dst\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4 <0.000001>\n";
  const std::string exit = "7 1.000040 exit_group(0) = ?\n";
  auto replay_text = [](const std::string& name, const std::string& text) {
    return testing::import_and_replay_text(ImportFormat::kStrace, name, text);
  };
  const replay::RunResult copy = replay_text(
      "copy",
      open + "7 1.000020 copy_file_range(3, NULL, 4, NULL, 65536, 0) = 65536 <0.000010>\n" + exit);
  const replay::RunResult by_user =
      replay_text("by_user", open + "7 1.000020 read(3, \"\", 65536) = 65536 <0.000005>\n" +
                                 "7 1.000025 write(4, \"\", 65536) = 65536 <0.000005>\n" + exit);
  EXPECT_EQ(copy.counters.at("fd_io_regular"), 1u);  // one call
  EXPECT_EQ(by_user.counters.at("fd_io_regular"), 2u);
  const kernelsim::CostProfile c = kernelsim::cost_profile_default();
  const int64_t pages = 65536 / 4096;
  EXPECT_EQ(static_cast<int64_t>(by_user.makespan_ns) - static_cast<int64_t>(copy.makespan_ns),
            (c.syscall_entry + c.file_copy_page * pages).count_ns());
}

// A file written, then opened again with O_TRUNC and written shorter (a build rewriting its
// output, cp onto an existing file): the second open drops the first write's 16 pages, dirty, so
// they are never written back, and the file ends with the 4 pages of the second write.
TEST(ImportReplay, ATruncatingOpenDropsThePagesWrittenBefore) {
  const replay::RunResult r = testing::import_and_replay_text(
      ImportFormat::kStrace, "truncate",
      "7 1.000000 openat(AT_FDCWD, \"/out\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000002>\n"
      "7 1.000010 write(3, \"\", 65536) = 65536 <0.000020>\n"
      "7 1.000040 close(3) = 0 <0.000001>\n"
      "7 1.000050 openat(AT_FDCWD, \"/out\", O_WRONLY|O_TRUNC) = 3 <0.000030>\n"
      "7 1.000090 write(3, \"\", 16384) = 16384 <0.000005>\n"
      "7 1.000100 exit_group(0) = ?\n");
  EXPECT_EQ(r.counters.at("pgcache_truncated"), 16u);
  EXPECT_EQ(r.counters.at("truncate_dirty_cancelled"), 16u);
  EXPECT_EQ(r.ops.at("truncate").count(), 2u) << "both opens truncate; the first found nothing";
  EXPECT_EQ(r.counters.at("ops_failed"), 0u);
}

}  // namespace
}  // namespace mmreplay::formats
