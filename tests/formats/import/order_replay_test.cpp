// Orders between threads that the recording implies but no futex or clone records (issue 19):
// a thread that madvises and faults in a range another thread mmapped replays after that mmap,
// as it ran. The importer adds the edge (formats/import/address_order.h); the replay honours it.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "formats/import/import.h"
#include "replay/run.h"
#include "tests/formats/import/import_test_util.h"
#include "tests/formats/import/replay_imported.h"

namespace mmreplay::formats {
namespace {

// Thread 7 starts thread 8, faults 400 pages of a mapping made before the recording (about
// 0.1 ms of recorded time, much more in the model: each fault zeroes a page), then mmaps 1 MiB.
// Thread 8, 10 us after that mmap returned, madvises 64 KiB of it and writes a page there.
std::string thread_uses_anothers_mapping() {
  std::string text =
      "t 7/7 [0] 1.000000000: syscalls:sys_enter_clone: clone_flags: 0x3d0f00, newsp: "
      "0x7f0000001000\n"
      "t 7/7 [0] 1.000001000: syscalls:sys_exit_clone: 0x8\n";
  constexpr int kFaults = 400;
  for (int k = 0; k < kFaults; ++k) {
    text += fmt::format(
        "t 7/7 [0] 1.{:09d}: exceptions:page_fault_user: address=0x{:x} ip=0x401000 "
        "error_code=0x6\n",
        2000 + k * 100, 0x7e0000000000ull + static_cast<uint64_t>(k) * 4096);
  }
  text +=
      "t 7/7 [0] 1.000050000: syscalls:sys_enter_mmap: addr: 0x0, len: 0x100000, prot: 0x3, "
      "flags: 0x22, fd: 0xffffffff, off: 0x0\n"
      "t 7/7 [0] 1.000051000: syscalls:sys_exit_mmap: 0x7f0000200000\n"
      "t 7/8 [1] 1.000061000: syscalls:sys_enter_madvise: start: 0x7f0000200000, len_in: "
      "0x10000, behavior: 0x4\n"
      "t 7/8 [1] 1.000062000: syscalls:sys_exit_madvise: 0x0\n"
      "t 7/8 [1] 1.000063000: exceptions:page_fault_user: address=0x7f0000200010 ip=0x401000 "
      "error_code=0x6\n"
      "t 7/8 [1] 1.000064000: syscalls:sys_enter_exit: error_code: 0x0\n"
      "t 7/7 [0] 1.000070000: syscalls:sys_enter_exit_group: error_code: 0x0\n";
  return text;
}

bool is_order_event(const Event& e) {
  return (e.kind == EventKind::kFutexWait || e.kind == EventKind::kFutexWake) &&
         e.arg1 == kOrderUaddr;
}

replay::RunResult replay_it(const ImportedTrace& t, const std::string& name) {
  replay::RunSpec spec;
  spec.policy_name = "default";
  spec.cpus = 2;
  return testing::replay_imported(t, name, spec);
}

TEST(OrderImport, AMadviseOfAnotherThreadsMmapWaitsForIt) {
  ImportedTrace t;
  ImportReport r;
  const Status s =
      import_text(ImportFormat::kPerfScript, "order.txt", thread_uses_anothers_mapping(), &t, &r);
  ASSERT_TRUE(s) << s.message();
  // One edge: the madvise is thread 8's first use of the mmap; its fault after it follows in
  // its own order and needs none.
  EXPECT_EQ(r.address_order_edges, 1u);
  const int a = testing::stream_of(t, 7);
  const int b = testing::stream_of(t, 8);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  const auto& sa = t.streams[static_cast<size_t>(a)];
  const auto& sb = t.streams[static_cast<size_t>(b)];
  // The wake right after the mmap, the wait right before the madvise, with one id.
  auto mmap = std::find_if(sa.begin(), sa.end(), [](const Event& e) {
    return e.kind == EventKind::kMmap && e.addr == 0x7f0000200000u;
  });
  ASSERT_NE(mmap, sa.end());
  ASSERT_NE(mmap + 1, sa.end());
  EXPECT_TRUE(is_order_event(mmap[1]));
  EXPECT_EQ(mmap[1].kind, EventKind::kFutexWake);
  auto madvise = std::find_if(sb.begin(), sb.end(),
                              [](const Event& e) { return e.kind == EventKind::kMadvise; });
  ASSERT_NE(madvise, sb.end());
  ASSERT_NE(madvise, sb.begin());
  EXPECT_TRUE(is_order_event(madvise[-1]));
  EXPECT_EQ(madvise[-1].kind, EventKind::kFutexWait);
  EXPECT_NE(madvise[-1].arg0, 0u);
  EXPECT_EQ(madvise[-1].arg0, mmap[1].arg0);
  EXPECT_EQ(testing::count_if(t, is_order_event), 2u);
  EXPECT_TRUE(testing::streams_ordered(t));
  // The report's futex line counts the program's futex waits only (there are none).
  EXPECT_EQ(format_report(r).find("futex waits"), std::string::npos);
  EXPECT_NE(format_report(r).find("1 ordering edges"), std::string::npos);
}

TEST(OrderReplay, TheMadviseAndFaultReplayAfterTheMmapOfAnotherThread) {
  ImportedTrace t;
  ImportReport r;
  ASSERT_TRUE(
      import_text(ImportFormat::kPerfScript, "order.txt", thread_uses_anothers_mapping(), &t, &r));
  const replay::RunResult with = replay_it(t, "order-with-edge");
  EXPECT_EQ(with.counters.at("ops_failed"), 0u);
  EXPECT_EQ(with.counters.at("fault_segv"), 0u);
  EXPECT_EQ(with.ops.at("madvise").count(), 1u);

  // Without the edge thread 8 gets there first (thread 7's 400 faults take far longer in the
  // model than their recorded 40 us): the madvise fails and the fault is a SEGV, as before.
  for (auto& stream : t.streams) std::erase_if(stream, is_order_event);
  const replay::RunResult without = replay_it(t, "order-without-edge");
  EXPECT_GE(without.counters.at("ops_failed"), 1u);
  EXPECT_GE(without.counters.at("fault_segv"), 1u);
}

// pthread_join(): thread 7 waits on thread 8's tid word (just above thread 8's first fault, on
// its stack), which the kernel clears and wakes at thread 8's exit (CLONE_CHILD_CLEARTID), with
// no FUTEX_WAKE to record. The wait ends at that
// exit in the replay, not after its recorded 10 ms, most of which thread 8 was preempted.
TEST(OrderImport, AFutexWaitThatAThreadsExitEndedWaitsForThatExit) {
  const std::string text =
      "t 7/7 [0] 1.000000000: syscalls:sys_enter_clone: clone_flags: 0x3d0f00, newsp: "
      "0x7f0000001000\n"
      "t 7/7 [0] 1.000001000: syscalls:sys_exit_clone: 0x8\n"
      "t 7/7 [0] 1.000002000: syscalls:sys_enter_futex: uaddr: 0x7f0000001990, op: 0x00000000, "
      "val: 0x00000008, utime: 0x0, uaddr2: 0x0, val3: 0x0\n"
      "t 7/8 [1] 1.000100000: exceptions:page_fault_user: address=0x7f0000000f98 ip=0x401000 "
      "error_code=0x6\n"
      "t 7/8 [1] 1.000500000: PERF_RECORD_SWITCH OUT preempt\n"
      "t 7/8 [1] 1.009500000: PERF_RECORD_SWITCH IN\n"
      "t 7/8 [1] 1.009990000: syscalls:sys_enter_exit: error_code: 0x0\n"
      "t 7/7 [0] 1.010002000: syscalls:sys_exit_futex: 0x0\n"
      "t 7/7 [0] 1.010003000: syscalls:sys_enter_exit_group: error_code: 0x0\n";
  ImportedTrace t;
  ImportReport r;
  ASSERT_TRUE(import_text(ImportFormat::kPerfScript, "join.txt", text, &t, &r));
  EXPECT_EQ(r.futex_waits_ended_by_exit, 1u);
  const Event* wait = testing::first_of(t, testing::stream_of(t, 7), EventKind::kFutexWait);
  ASSERT_NE(wait, nullptr);
  EXPECT_NE(wait->arg0, 0u);
  const auto& child = t.streams[static_cast<size_t>(testing::stream_of(t, 8))];
  ASSERT_GE(child.size(), 2u);
  EXPECT_EQ(child.back().kind, EventKind::kThreadExit);
  EXPECT_EQ(child[child.size() - 2].kind, EventKind::kFutexWake);
  EXPECT_EQ(child[child.size() - 2].arg0, wait->arg0);
  // Thread 8 ran about 1 ms (9 ms of its 10 it was preempted, which is no think time): the join
  // ends at its replayed exit, not after the recorded 10 ms.
  const replay::RunResult run = replay_it(t, "join");
  EXPECT_LT(run.makespan_ns, 2'000'000u);
}

}  // namespace
}  // namespace mmreplay::formats
