// Waits for any child (format 1.15, kFlagAnyChild): a wait4() that named no child reaps whichever
// exits first in the replay, and a wait a child's SIGCHLD interrupted (GNU make's pselect6() on
// its jobserver pipe, then wait4(-1, WNOHANG)) replays as that wait, not as its recorded length.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "formats/import/import.h"
#include "formats/import/import_report.h"
#include "replay/run.h"
#include "tests/formats/import/import_test_util.h"
#include "tests/formats/import/replay_imported.h"

namespace mmreplay::formats {
namespace wait_any_child_test {
namespace {

using testing::import_snippet;
using testing::stream_of;

const Event* first_of(const ImportedTrace& t, uint64_t tid, EventKind kind) {
  const int s = stream_of(t, tid);
  if (s < 0) return nullptr;
  const auto& events = t.streams[static_cast<size_t>(s)];
  const auto it =
      std::find_if(events.begin(), events.end(), [kind](const Event& e) { return e.kind == kind; });
  return it == events.end() ? nullptr : &*it;
}

// `strace -f -ttt -T` of make's loop: a fork whose child sleeps 1 ms and exits, the parent's
// pselect6() on its jobserver pipe (`pselect_result`), then its wait4(-1, WNOHANG) that reaps
// the child at 50 ms (the tracer slowed the recording), then a wait4 for child 102 by name.
std::string make_like(const std::string& pselect_result) {
  return "100 1.000000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|"
         "SIGCHLD, child_tidptr=0x7f0000000a10) = 101 <0.000100>\n"
         "100 1.000150 pselect6(4, [3], NULL, NULL, NULL, {sigmask=[], sigsetsize=8}) = " +
         pselect_result +
         " <0.050000>\n"
         "101 1.000200 nanosleep({tv_sec=0, tv_nsec=1000000}, NULL) = 0 <0.001000>\n"
         "101 1.001300 exit_group(0)            = ?\n"
         "101 1.001400 +++ exited with 0 +++\n"
         "100 1.050160 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, "
         "si_status=0, si_utime=0, si_stime=0} ---\n"
         "100 1.050300 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], WNOHANG, NULL) = 101 "
         "<0.000010>\n"
         "100 1.050400 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|"
         "SIGCHLD, child_tidptr=0x7f0000000a10) = 102 <0.000100>\n"
         "102 1.050600 nanosleep({tv_sec=0, tv_nsec=1000000}, NULL) = 0 <0.001000>\n"
         "102 1.051700 exit_group(0)            = ?\n"
         "102 1.051800 +++ exited with 0 +++\n"
         "100 1.050550 wait4(102, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 102 "
         "<0.001300>\n"
         "100 1.051900 exit_group(0)            = ?\n";
}

TEST(WaitAnyChildImport, AWaitForAnyChildAndTheWaitItsSigchldEndedAreMarked) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kStrace, make_like("? ERESTARTNOHAND (To be restarted if no handler)"), &t, &r);
  ASSERT_TRUE(s) << s.message();
  const int parent = stream_of(t, 100);
  ASSERT_GE(parent, 0);
  std::vector<Event> waits;
  for (const Event& e : t.streams[static_cast<size_t>(parent)]) {
    if (e.kind == EventKind::kWaitChild) waits.push_back(e);
  }
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_EQ(waits[0].arg0, 101u);
  EXPECT_TRUE(waits[0].is_any_child());  // wait4(-1)
  EXPECT_EQ(waits[1].arg0, 102u);
  EXPECT_FALSE(waits[1].is_any_child());  // wait4(102)
  const Event* pselect = first_of(t, 100, EventKind::kBlock);
  ASSERT_NE(pselect, nullptr);
  EXPECT_EQ(pselect->arg0, static_cast<uint64_t>(BlockCall::kPselect6));
  EXPECT_TRUE(pselect->is_any_child());
  EXPECT_EQ(pselect->duration_ns, 50'000'000u);  // kept for the think-time arithmetic
  EXPECT_EQ(r.waits_for_any_child, 1u);
  EXPECT_EQ(r.waits_ended_by_child_exit, 1u);
}

// A child outside the recording (started before it, or by a process not traced): the replay
// cannot wait for its exit, so the interrupted wait keeps its recorded time.
TEST(WaitAnyChildImport, AnInterruptedWaitForAnUntracedChildKeepsItsTime) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kStrace,
      "100 1.000150 pselect6(4, [3], NULL, NULL, NULL, {sigmask=[], sigsetsize=8}) = ? "
      "ERESTARTNOHAND (To be restarted if no handler) <0.050000>\n"
      "100 1.050300 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], WNOHANG, NULL) = 999 "
      "<0.000010>\n"
      "100 1.050400 exit_group(0)            = ?\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  const Event* pselect = first_of(t, 100, EventKind::kBlock);
  ASSERT_NE(pselect, nullptr);
  EXPECT_FALSE(pselect->is_any_child());
  EXPECT_EQ(r.waits_for_any_child, 1u);
  EXPECT_EQ(r.waits_ended_by_child_exit, 0u);
}

// perf prints wait4's pid_t as 32 bits (upid: 0xffffffff) and an interrupted call's exit as the
// restart code the kernel returned (-ERESTARTNOHAND).
TEST(WaitAnyChildImport, PerfScriptsUpidAndRestartCode) {
  const std::string text =
      "make 5/5 [0] 1.000000000: syscalls:sys_enter_clone: clone_flags: 0x1200011, newsp: 0x0\n"
      "make 5/5 [0] 1.000050000: syscalls:sys_exit_clone: 0x6\n"
      "make 5/5 [0] 1.000100000: syscalls:sys_enter_pselect6: n: 0x4, inp: 0x7ffc0000, outp: "
      "0x0, exp: 0x0, tsp: 0x0, sig: 0x7ffc0100\n"
      "cc 6/6 [1] 1.000200000: syscalls:sys_enter_exit_group: error_code: 0x0\n"
      "make 5/5 [0] 1.000900000: syscalls:sys_exit_pselect6: 0xfffffffffffffdfe\n"
      "make 5/5 [0] 1.000950000: syscalls:sys_enter_wait4: upid: 0xffffffff, stat_addr: "
      "0x7ffc0200, options: 0x00000001, ru: 0x00000000\n"
      "make 5/5 [0] 1.000960000: syscalls:sys_exit_wait4: 0x6\n"
      "make 5/5 [0] 1.001000000: syscalls:sys_enter_clone: clone_flags: 0x1200011, newsp: 0x0\n"
      "make 5/5 [0] 1.001050000: syscalls:sys_exit_clone: 0x7\n"
      "make 5/5 [0] 1.001100000: syscalls:sys_enter_wait4: upid: 0x00000007, stat_addr: "
      "0x7ffc0200, options: 0x00000000, ru: 0x00000000\n"
      "cc 7/7 [1] 1.001200000: syscalls:sys_enter_exit_group: error_code: 0x0\n"
      "make 5/5 [0] 1.001300000: syscalls:sys_exit_wait4: 0x7\n";
  ImportedTrace t;
  ImportReport r;
  ASSERT_TRUE(import_text(ImportFormat::kPerfScript, "make.txt", text, &t, &r));
  std::vector<Event> waits;
  for (const Event& e : t.streams[static_cast<size_t>(stream_of(t, 5))]) {
    if (e.kind == EventKind::kWaitChild) waits.push_back(e);
  }
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_EQ(waits[0].arg0, 6u);
  EXPECT_TRUE(waits[0].is_any_child());  // upid 0xffffffff: -1
  EXPECT_EQ(waits[1].arg0, 7u);
  EXPECT_FALSE(waits[1].is_any_child());  // upid 7
  const Event* pselect = first_of(t, 5, EventKind::kBlock);
  ASSERT_NE(pselect, nullptr);
  EXPECT_TRUE(pselect->is_any_child());
  EXPECT_EQ(r.waits_ended_by_child_exit, 1u);
}

// Replayed, the interrupted pselect6() ends at the child's exit, 1 ms in, and the program at
// about 2.2 ms; a pselect6() that timed out (it returned 0, no signal) sleeps its 50 ms.
TEST(WaitAnyChildImport, TheInterruptedWaitEndsAtTheChildsExitInTheReplay) {
  const replay::RunResult interrupted = testing::import_and_replay_text(
      ImportFormat::kStrace, "make_sigchld",
      make_like("? ERESTARTNOHAND (To be restarted if no handler)"));
  const replay::RunResult timed_out = testing::import_and_replay_text(
      ImportFormat::kStrace, "make_timeout", make_like("0 (Timeout)"));
  EXPECT_LT(interrupted.makespan_ns, 5'000'000u);
  EXPECT_GE(timed_out.makespan_ns, 50'000'000u);
}

}  // namespace
}  // namespace wait_any_child_test
}  // namespace mmreplay::formats
