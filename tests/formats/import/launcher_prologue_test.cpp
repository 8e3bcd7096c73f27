// record's launcher (tools/cli/record_launch.h) in perf script text: perf enables its events
// inside the launcher's own exec, the launcher warms memory and execs the command; with
// ImportOptions::launcher_prologue the trace starts at the command's exec, as it would without
// the launcher, and nothing of the launcher's is in it.

#include <gtest/gtest.h>

#include <string>

#include "formats/import/import.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

// The launcher (pid 9): its exec's return (no enter: perf enabled the events inside it), the
// loader's mappings, its warm-up (one populated mmap and its munmap), an off-CPU interval, then
// the command's execve, inside which the kernel clears the new bss (a kernel-mode fault, in the
// new mm). After its return the command maps and touches one page, and forks a child (pid 10)
// that touches one too.
constexpr const char* kLaunchedRecording =
    "trace-replay 9/9 [0] 1.000000000: syscalls:sys_exit_execve: 0x0\n"
    "trace-replay 9/9 [0] 1.000001000: PERF_RECORD_MMAP2 9/9: [0x7f1000000000(0x1000) @ 0 "
    "fe:00 1 0]: r-xp /usr/lib/libc.so.6\n"
    "trace-replay 9/9 [0] 1.000002000: exceptions:page_fault_user: address=0x7f2000000000 "
    "ip=0x1 error_code=0x6\n"
    "trace-replay 9/9 [0] 1.000003000: syscalls:sys_enter_mmap: addr: 0x0, len: 0x10000000, "
    "prot: 0x3, flags: 0x8022, fd: 0xffffffff, off: 0x0\n"
    "trace-replay 9/9 [0] 1.050000000: syscalls:sys_exit_mmap: 0x7f3000000000\n"
    "trace-replay 9/9 [0] 1.050001000: syscalls:sys_enter_munmap: addr: 0x7f3000000000, "
    "len: 0x10000000\n"
    "trace-replay 9/9 [0] 1.060000000: syscalls:sys_exit_munmap: 0x0\n"
    "trace-replay 9/9 [0] 1.060001000: PERF_RECORD_SWITCH OUT preempt\n"
    "trace-replay 9/9 [0] 1.060101000: PERF_RECORD_SWITCH IN         \n"
    "trace-replay 9/9 [0] 1.060400000: syscalls:sys_enter_execve: filename: 0x4, argv: 0x2, "
    "envp: 0x3\n"
    "prog 9/9 [0] 1.060450000: exceptions:page_fault_kernel: address=0x55d000001038 "
    "ip=0xffffffff81234567 error_code=0x2\n"
    "prog 9/9 [0] 1.060500000: syscalls:sys_exit_execve: 0x0\n"
    "prog 9/9 [0] 1.060600000: syscalls:sys_enter_mmap: addr: 0x0, len: 0x1000, prot: 0x3, "
    "flags: 0x22, fd: 0xffffffff, off: 0x0\n"
    "prog 9/9 [0] 1.060601000: syscalls:sys_exit_mmap: 0x7f4000000000\n"
    "prog 9/9 [0] 1.060602000: exceptions:page_fault_user: address=0x7f4000000000 ip=0x1 "
    "error_code=0x6\n"
    "prog 9/9 [0] 1.060603000: syscalls:sys_enter_clone: clone_flags: 0x1200011, newsp: 0x0, "
    "parent_tidptr: 0x0, child_tidptr: 0x0, tls: 0x0\n"
    "prog 10/10 [1] 1.060700000: syscalls:sys_exit_clone: 0x0\n"
    "prog 9/9 [0] 1.060701000: syscalls:sys_exit_clone: 0xa\n"
    "prog 10/10 [1] 1.060702000: exceptions:page_fault_user: address=0x7f4000000000 ip=0x1 "
    "error_code=0x7\n";

struct Imported {
  ImportedTrace trace;
  ImportReport report;
};

Imported import(bool launcher_prologue) {
  Imported out;
  ImportOptions options;
  options.launcher_prologue = launcher_prologue;
  const Status s = import_text(ImportFormat::kPerfScript, "launched.txt", kLaunchedRecording,
                               &out.trace, &out.report, options);
  EXPECT_TRUE(s) << s.message();
  return out;
}

TEST(LauncherPrologue, TheTraceStartsAtTheCommandsExecWithNothingOfTheLaunchers) {
  const Imported got = import(true);
  EXPECT_EQ(got.report.launcher_lines, 10u);
  EXPECT_EQ(got.report.count(EventKind::kMunmap), 0u);
  // The exec's kernel-mode fault, the command's and its child's.
  EXPECT_EQ(got.report.count(EventKind::kPageFault), 3u);
  EXPECT_EQ(got.report.count(EventKind::kMmCreate), 1u);  // the fork's, no exec's
  EXPECT_EQ(got.report.unmatched_exits, 2u);              // the exec's, and the child's clone
  EXPECT_EQ(got.report.off_cpu_intervals, 0u);
  EXPECT_EQ(got.report.files_named_by_mappings, 0u);
  ASSERT_EQ(got.trace.meta.threads.size(), 2u);
  EXPECT_EQ(got.trace.meta.threads[0].name, "prog");
  // The first event is the exec's fault, in the new mm; the populated mmap is not there.
  const int stream = testing::stream_of(got.trace, 9);
  ASSERT_GE(stream, 0);
  const auto& main = got.trace.streams[static_cast<size_t>(stream)];
  ASSERT_FALSE(main.empty());
  EXPECT_GE(main.front().ts_ns, 1'060'450'000u);
  for (const Event& e : main) EXPECT_NE(e.len, 0x10000000u) << "the launcher's warm-up mapping";
}

TEST(LauncherPrologue, WithoutTheOptionTheLaunchersLinesAreKept) {
  const Imported got = import(false);
  EXPECT_EQ(got.report.launcher_lines, 0u);
  EXPECT_EQ(got.report.count(EventKind::kMunmap), 1u);
  EXPECT_EQ(got.report.count(EventKind::kPageFault), 4u);
  EXPECT_EQ(got.report.count(EventKind::kMmCreate), 2u);  // the exec's new mm and the fork's
}

}  // namespace
}  // namespace mmreplay::formats
