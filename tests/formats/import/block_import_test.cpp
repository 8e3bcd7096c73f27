// Blocking system calls become block events carrying their duration (the thread's off-CPU time)
// and the call; futex wakes and requeues, which run on the CPU, do not.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "formats/import/import.h"
#include "formats/import/import_report.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

using testing::import_snippet;

using testing::stream_of;

std::vector<Event> of_kind(const ImportedTrace& t, uint64_t tid, EventKind kind) {
  std::vector<Event> out;
  const int s = stream_of(t, tid);
  if (s < 0) return out;
  for (const Event& e : t.streams[static_cast<size_t>(s)]) {
    if (e.kind == kind) out.push_back(e);
  }
  return out;
}

std::vector<Event> blocks(const ImportedTrace& t, uint64_t tid) {
  return of_kind(t, tid, EventKind::kBlock);
}

// `strace -f -ttt -T` of a thread sleeping and one (its thread: same mm) waiting on a futex the
// first wakes.
TEST(BlockImport, StraceSleepsAndFutexWaitsWithTheirDurations) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kStrace,
      "100 0.900000 clone(child_stack=0x7f0000100000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|"
      "CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 101 <0.000050>\n"
      "100 1.000000 nanosleep({tv_sec=1, tv_nsec=0}, NULL) = 0 <1.000123>\n"
      "101 1.000010 futex(0x7f0000001000, FUTEX_WAIT_PRIVATE, 2, NULL <unfinished ...>\n"
      "100 2.000200 futex(0x7f0000001000, FUTEX_WAKE_PRIVATE, 1) = 1 <0.000015>\n"
      "101 2.000230 <... futex resumed>) = 0 <1.000220>\n"
      "101 2.000300 futex(0x7f0000002000, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, "
      "{tv_sec=3, tv_nsec=0}, FUTEX_BITSET_MATCH_ANY) = -1 ETIMEDOUT (Connection timed out) "
      "<0.010000>\n"
      "101 2.010400 poll([{fd=3, events=POLLIN}], 1, 5) = 0 (Timeout) <0.005100>\n"
      "100 2.000300 clock_nanosleep(CLOCK_MONOTONIC, 0, {tv_sec=0, tv_nsec=500000}, NULL) = 0 "
      "<0.000560>\n"
      "100 2.001000 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 102 "
      "<0.300000>\n"
      "100 2.400000 nanosleep({tv_sec=1, tv_nsec=0}, NULL) = ? ERESTART_RESTARTBLOCK "
      "(Interrupted by signal) <0.100000>\n"
      "100 2.600000 nanosleep({tv_sec=1, tv_nsec=0}, NULL) = -1 EINTR (Interrupted system call) "
      "<0.050000>\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(r.unknown_flag_names, 0u);
  EXPECT_EQ(r.failed_calls, 0u);  // ETIMEDOUT, EINTR: the time was spent blocked all the same

  const std::vector<Event> sleeper = blocks(t, 100);
  ASSERT_EQ(sleeper.size(), 4u);  // the FUTEX_WAKE is no block; the reaping wait4 a wait_child
  EXPECT_EQ(sleeper[0].ts_ns, 1'000'000'000u);
  EXPECT_EQ(sleeper[0].duration_ns, 1'000'123'000u);
  EXPECT_EQ(sleeper[0].arg0, static_cast<uint64_t>(BlockCall::kNanosleep));
  EXPECT_EQ(sleeper[1].arg0, static_cast<uint64_t>(BlockCall::kClockNanosleep));
  EXPECT_EQ(sleeper[1].duration_ns, 560'000u);
  EXPECT_EQ(sleeper[2].duration_ns, 100'000'000u);  // interrupted by a signal ("= ?")
  EXPECT_EQ(sleeper[3].duration_ns, 50'000'000u);   // EINTR
  // wait4 that reaped child 102: ordered after that child's exit in the replay.
  const int s100 = stream_of(t, 100);
  ASSERT_GE(s100, 0);
  const auto wait = std::find_if(t.streams[s100].begin(), t.streams[s100].end(),
                                 [](const Event& e) { return e.kind == EventKind::kWaitChild; });
  ASSERT_NE(wait, t.streams[s100].end());
  EXPECT_EQ(wait->arg0, 102u);
  EXPECT_EQ(wait->arg1, static_cast<uint64_t>(BlockCall::kWait4));
  EXPECT_EQ(wait->duration_ns, 300'000'000u);

  // The woken wait is a futex_wait paired with thread 100's FUTEX_WAKE (the recorded order).
  const std::vector<Event> waiter = blocks(t, 101);
  ASSERT_EQ(waiter.size(), 2u);
  EXPECT_EQ(waiter[0].arg0, static_cast<uint64_t>(BlockCall::kFutex));
  EXPECT_EQ(waiter[0].duration_ns, 10'000'000u);  // ETIMEDOUT: no waker, a plain block
  EXPECT_EQ(waiter[1].arg0, static_cast<uint64_t>(BlockCall::kPoll));
  EXPECT_EQ(waiter[1].duration_ns, 5'100'000u);
  const std::vector<Event> futex_wait = of_kind(t, 101, EventKind::kFutexWait);
  ASSERT_EQ(futex_wait.size(), 1u);
  EXPECT_EQ(futex_wait[0].ts_ns, 1'000'010'000u);  // from the unfinished line
  EXPECT_EQ(futex_wait[0].duration_ns, 1'000'220'000u);
  EXPECT_EQ(futex_wait[0].arg1, 0x7f0000001000u);
  const std::vector<Event> wake = of_kind(t, 100, EventKind::kFutexWake);
  ASSERT_EQ(wake.size(), 1u);
  EXPECT_NE(wake[0].arg0, 0u);
  EXPECT_EQ(futex_wait[0].arg0, wake[0].arg0);
  EXPECT_EQ(r.futex_waits_paired, 1u);
  EXPECT_EQ(r.count(EventKind::kBlock), 6u);
  EXPECT_EQ(r.count(EventKind::kWaitChild), 1u);
}

// perf script with syscalls:sys_enter_X/sys_exit_X: the duration is exit - enter; the futex op
// is read from its number (FUTEX_WAIT_PRIVATE = 0x80, FUTEX_WAKE_PRIVATE = 0x81).
TEST(BlockImport, PerfScriptEnterExitPairs) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "prog 10/10 [000] 1.000000000: syscalls:sys_enter_futex: uaddr: 0x7f0000001000, op: "
      "0x00000080, val: 0x00000002, utime: 0x00000000, uaddr2: 0x00000000, val3: 0x00000000\n"
      "prog 10/11 [001] 1.500000000: syscalls:sys_enter_futex: uaddr: 0x7f0000001000, op: "
      "0x00000081, val: 0x00000001, utime: 0x00000000, uaddr2: 0x00000000, val3: 0x00000000\n"
      "prog 10/11 [001] 1.500002000: syscalls:sys_exit_futex: 0x1\n"
      "prog 10/10 [000] 1.500004000: syscalls:sys_exit_futex: 0x0\n"
      "prog 10/11 [001] 1.600000000: syscalls:sys_enter_epoll_wait: epfd: 0x00000004, events: "
      "0x7ffc00000000, maxevents: 0x00000010, timeout: 0x00000064\n"
      "prog 10/11 [001] 1.700000000: syscalls:sys_exit_epoll_wait: 0x0\n"
      "prog 10/10 [000] 1.800000000: syscalls:sys_enter_select: n: 0x00000000, inp: 0x0, outp: "
      "0x0, exp: 0x0, tvp: 0x7ffc00000010\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  const std::vector<Event> main = blocks(t, 10);
  ASSERT_EQ(main.size(), 1u);
  // Cut off by the end of the recording: kept (it needs no return value) but untimed.
  EXPECT_EQ(main[0].arg0, static_cast<uint64_t>(BlockCall::kSelect));
  EXPECT_FALSE(main[0].has_duration());
  // The woken FUTEX_WAIT waits for thread 11's FUTEX_WAKE in the replay.
  const std::vector<Event> wait = of_kind(t, 10, EventKind::kFutexWait);
  ASSERT_EQ(wait.size(), 1u);
  EXPECT_EQ(wait[0].duration_ns, 500'004'000u);
  const std::vector<Event> wake = of_kind(t, 11, EventKind::kFutexWake);
  ASSERT_EQ(wake.size(), 1u);
  EXPECT_NE(wait[0].arg0, 0u);
  EXPECT_EQ(wait[0].arg0, wake[0].arg0);
  const std::vector<Event> other = blocks(t, 11);
  ASSERT_EQ(other.size(), 1u);  // the wake is no block
  EXPECT_EQ(other[0].arg0, static_cast<uint64_t>(BlockCall::kEpollWait));
  EXPECT_EQ(other[0].duration_ns, 100'000'000u);
}

// record traces sched:sched_wakeup: a blocking call ends at the last wake-up of its thread inside
// it, not at its return, when perf saw one. Thread 10 sleeps 500 us while thread 11 spins on its
// CPU: the timer's wake-up lands while 11 runs (the line is 11's, the wakee pid=10), and 10 gets
// the CPU back 2.4 ms later. A wake-up of another task (rcu_preempt), one before a call and a
// call with none change nothing.
TEST(BlockImport, PerfScriptBlockingCallsEndAtTheirWakeUp) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "prog 10/11 [000] 0.900000000: syscalls:sys_enter_brk: brk: 0x00000000\n"
      "prog 10/11 [000] 0.900001000: syscalls:sys_exit_brk: 0x1000000\n"
      "prog 10/10 [000] 1.000000000: syscalls:sys_enter_clock_nanosleep: which_clock: "
      "0x00000001, flags: 0x00000000, rqtp: 0x7ffc00000000, rmtp: 0x00000000\n"
      "prog 10/11 [000] 1.000300000: sched:sched_wakeup: comm=rcu_preempt pid=15 prio=120 "
      "target_cpu=000\n"
      "prog 10/11 [000] 1.000520000: sched:sched_wakeup: comm=prog pid=10 prio=120 "
      "target_cpu=000\n"
      "prog 10/10 [000] 1.002900000: syscalls:sys_exit_clock_nanosleep: 0x0\n"
      "prog 10/11 [000] 1.500000000: sched:sched_wakeup: comm=prog pid=10 prio=120 "
      "target_cpu=000\n"
      "prog 10/10 [000] 2.000000000: syscalls:sys_enter_clock_nanosleep: which_clock: "
      "0x00000001, flags: 0x00000000, rqtp: 0x7ffc00000000, rmtp: 0x00000000\n"
      "prog 10/10 [000] 2.000600000: syscalls:sys_exit_clock_nanosleep: 0x0\n"
      "prog 10/10 [000] 3.000000000: syscalls:sys_enter_futex: uaddr: 0x7f0000001000, op: "
      "0x00000080, val: 0x00000002, utime: 0x00000000, uaddr2: 0x00000000, val3: 0x00000000\n"
      "prog 10/11 [000] 3.100000000: syscalls:sys_enter_futex: uaddr: 0x7f0000001000, op: "
      "0x00000081, val: 0x00000001, utime: 0x00000000, uaddr2: 0x00000000, val3: 0x00000000\n"
      "prog 10/11 [000] 3.100001000: sched:sched_wakeup: comm=prog pid=10 prio=120 "
      "target_cpu=000\n"
      "prog 10/11 [000] 3.100002000: syscalls:sys_exit_futex: 0x1\n"
      "prog 10/10 [000] 3.104000000: syscalls:sys_exit_futex: 0x0\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(r.threads, 2u);  // rcu_preempt's wake-up made no thread of it
  const std::vector<Event> sleeps = blocks(t, 10);
  ASSERT_EQ(sleeps.size(), 2u);
  EXPECT_EQ(sleeps[0].duration_ns, 520'000u);  // to its wake-up, not its return 2.4 ms later
  EXPECT_EQ(sleeps[1].duration_ns, 600'000u);  // no wake-up inside it (1.5 s was before)
  const std::vector<Event> wait = of_kind(t, 10, EventKind::kFutexWait);
  ASSERT_EQ(wait.size(), 1u);
  EXPECT_EQ(wait[0].duration_ns, 100'001'000u);
  EXPECT_EQ(r.blocks_cut_at_wakeup, 2u);
  EXPECT_EQ(r.blocks_runnable_ns, 2'380'000u + 3'999'000u);
  EXPECT_NE(format_report(r).find("2 blocking calls end at their wake-up"), std::string::npos);
}

// A sched_wakeup line without its pid is malformed, naming the line.
TEST(BlockImport, PerfScriptWakeUpWithoutAPidIsMalformed) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "prog 10/10 [000] 1.000000000: sched:sched_wakeup: comm=prog prio=120 target_cpu=000\n", &t,
      &r);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(":1: malformed perf script line: sched_wakeup without pid="),
            std::string::npos)
      << s.message();
}

TEST(BlockImport, SyscallNamesMatchTheBlockCalls) {
  for (int i = 0; i < kBlockCallCount; ++i) {
    const auto call = static_cast<BlockCall>(i);
    Syscall sc;
    ASSERT_TRUE(syscall_from_name(block_call_name(call), &sc)) << block_call_name(call);
    std::array<uint64_t, kMaxSyscallArgs> args{};  // futex op 0: FUTEX_WAIT
    BlockCall back;
    ASSERT_TRUE(syscall_block_call(sc, args, &back));
    EXPECT_EQ(back, call);
  }
  Syscall mmap;
  ASSERT_TRUE(syscall_from_name("mmap", &mmap));
  BlockCall none;
  EXPECT_FALSE(syscall_block_call(mmap, {}, &none));
}

}  // namespace
}  // namespace mmreplay::formats
