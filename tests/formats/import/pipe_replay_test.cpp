// A pipe under perf (issue 19): record's return probe on glibc's pipe2 names its two fds, so they
// have kind pipe; a read that blocked on the empty pipe (an off_cpu interval inside it, not a
// preemption) replays as its thread asleep until the write that woke it has replayed, its CPU
// free for others meanwhile (formats/import/pipe_wakeups.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "formats/import/import.h"
#include "replay/policy_spec.h"
#include "replay/run.h"
#include "tests/formats/import/import_test_util.h"
#include "tests/formats/import/replay_imported.h"

namespace mmreplay::formats {
namespace {

// Thread 10 makes a pipe and starts thread 11, which reads the pipe at once and sleeps 1 ms until
// thread 10, after 1 ms of its own work, writes 4 KiB and exits. Thread 11 then works 0.5 ms and
// exits.
constexpr const char* kBlockedRead =
    "p 10/10 [0] 1.000000000: syscalls:sys_enter_pipe2: fildes: 0x7ffc00001000, flags: 0x0\n"
    "p 10/10 [0] 1.000001000: syscalls:sys_exit_pipe2: 0x0\n"
    "p 10/10 [0] 1.000001500: probe_libc:mmreplay_pipe_pipe2_99__return: (7f0000001000 <- "
    "401000) fd0=3 fd1=4 ret=0\n"
    "p 10/10 [0] 1.000002000: syscalls:sys_enter_clone: clone_flags: 0x3d0f00, newsp: "
    "0x7f0000001000\n"
    "p 10/10 [0] 1.000003000: syscalls:sys_exit_clone: 0xb\n"
    "p 10/11 [1] 1.000004000: syscalls:sys_enter_read: fd: 0x00000003, buf: 0x7f0000100000, "
    "count: 0x00001000\n"
    "p 10/11 [1] 1.000005000: PERF_RECORD_SWITCH OUT\n"
    "p 10/10 [0] 1.001000000: syscalls:sys_enter_write: fd: 0x00000004, buf: 0x7f0000200000, "
    "count: 0x00001000\n"
    "p 10/10 [0] 1.001002000: syscalls:sys_exit_write: 0x1000\n"
    "p 10/11 [1] 1.001003000: PERF_RECORD_SWITCH IN\n"
    "p 10/11 [1] 1.001004000: syscalls:sys_exit_read: 0x1000\n"
    "p 10/11 [1] 1.001504000: syscalls:sys_enter_exit: error_code: 0x0\n"
    "p 10/10 [0] 1.001002500: syscalls:sys_enter_exit_group: error_code: 0x0\n";

constexpr uint64_t kWriterWorkNs = 997'000;  // thread 10, from its clone to its write
constexpr uint64_t kReaderWorkNs = 500'000;  // thread 11, after its read

bool is_pipe_order_event(const Event& e) {
  return (e.kind == EventKind::kFutexWait || e.kind == EventKind::kFutexWake) &&
         (e.arg1 == kOrderUaddr || e.arg1 == kSyncOrderUaddr);
}

ImportedTrace import_it(ImportReport* r) {
  ImportedTrace t;
  const Status s = import_text(ImportFormat::kPerfScript, "pipe.txt", kBlockedRead, &t, r);
  EXPECT_TRUE(s) << s.message();
  return t;
}

replay::RunResult replay_on(const ImportedTrace& t, uint32_t cpus, const std::string& name) {
  replay::RunSpec spec;
  spec.policy_name = "default";
  spec.cpus = cpus;
  return testing::replay_imported(t, name, spec);
}

TEST(PipeImport, TheProbeGivesThePipeItsKindAndTheBlockedReadItsWaker) {
  ImportReport r;
  const ImportedTrace t = import_it(&r);
  EXPECT_EQ(r.ignored_by_name.count("pipe2"), 0u);  // the probe named its fds
  ASSERT_EQ(t.meta.files.size(), 1u);               // both ends: one pipe
  EXPECT_EQ(t.meta.files[0].kind, FileKind::kPipe);
  EXPECT_EQ(r.pipe_calls_slept, 1u);
  EXPECT_EQ(r.pipe_wakeup_edges, 1u);
  const auto& reader = t.streams[static_cast<size_t>(testing::stream_of(t, 11))];
  const auto& writer = t.streams[static_cast<size_t>(testing::stream_of(t, 10))];
  auto read = std::find_if(reader.begin(), reader.end(),
                           [](const Event& e) { return e.kind == EventKind::kFileRead; });
  auto write = std::find_if(writer.begin(), writer.end(),
                            [](const Event& e) { return e.kind == EventKind::kFileWrite; });
  ASSERT_NE(read, reader.end());
  ASSERT_NE(write, writer.end());
  ASSERT_NE(read, reader.begin());
  ASSERT_NE(write + 1, writer.end());
  EXPECT_EQ(read[-1].kind, EventKind::kFutexWait);
  EXPECT_TRUE(is_pipe_order_event(read[-1]));
  EXPECT_EQ(write[1].kind, EventKind::kFutexWake);
  EXPECT_EQ(write[1].arg0, read[-1].arg0);
  EXPECT_EQ(write[1].arg1, kSyncOrderUaddr);  // pipe_write()'s wake-up is sync
  EXPECT_TRUE(testing::streams_ordered(t));
  EXPECT_NE(format_report(r).find("1 pipe ordering edges"), std::string::npos);
}

TEST(PipeImport, APipeProbeWithoutItsNumbersStopsTheImportWithItsLine) {
  ImportedTrace t;
  ImportReport r;
  const Status s =
      import_text(ImportFormat::kPerfScript, "pipe.txt",
                  "p 10/10 [0] 1.000000000: syscalls:sys_enter_pipe2: fildes: "
                  "0x7ffc00001000, flags: 0x0\n"
                  "p 10/10 [0] 1.000001500: probe_libc:mmreplay_pipe_pipe2_99__return: "
                  "(7f0000001000 <- 401000) fd0=x fd1=4 ret=0\n",
                  &t, &r);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("pipe.txt:2: malformed"), std::string::npos) << s.message();
}

TEST(PipeReplay, ABlockedReadSleepsUntilTheWriteAndLeavesTheCpuToTheWriter) {
  ImportReport r;
  ImportedTrace t = import_it(&r);
  // One CPU: the reader asleep leaves it to the writer, whose 1 ms of work comes first; then the
  // reader's 0.5 ms. Were the blocked 1 ms CPU work, the CPU would be busy 2.5 ms.
  const replay::RunResult one = replay_on(t, 1, "pipe-1cpu");
  EXPECT_GE(one.makespan_ns, kWriterWorkNs + kReaderWorkNs);
  EXPECT_LT(one.makespan_ns, kWriterWorkNs + kReaderWorkNs + 100'000);
  ASSERT_EQ(one.per_cpu.size(), 1u);
  EXPECT_LT(one.per_cpu[0].busy_ns, kWriterWorkNs + kReaderWorkNs + 100'000);
  EXPECT_EQ(one.counters.at("fd_io_pipe"), 2u);
  EXPECT_EQ(one.counters.count("fd_io_regular") ? one.counters.at("fd_io_regular") : 0u, 0u);

  // Two CPUs: the read still waits for the write, so the reader's work comes after the writer's.
  const replay::RunResult two = replay_on(t, 2, "pipe-2cpu");
  EXPECT_GE(two.makespan_ns, kWriterWorkNs + kReaderWorkNs);
  // Without the edge the reader reads at once and both work side by side.
  for (auto& stream : t.streams) std::erase_if(stream, is_pipe_order_event);
  const replay::RunResult apart = replay_on(t, 2, "pipe-2cpu-no-edge");
  EXPECT_LT(apart.makespan_ns, kWriterWorkNs + kReaderWorkNs);
}

// kBlockedRead with the reader woken on the writer's CPU 0 (wake_affine_idle() pulled it there).
std::string pulled_to_the_writer() {
  std::string text = kBlockedRead;
  for (const char* line :
       {"p 10/11 [1] 1.001003000", "p 10/11 [1] 1.001004000", "p 10/11 [1] 1.001504000"}) {
    const size_t at = text.find(line);
    EXPECT_NE(at, std::string::npos) << line;
    text.replace(at + std::string("p 10/11 [").size(), 1, "0");
  }
  return text;
}

TEST(PipeImport, TheRecordingSaysWhereTheWokenReaderRan) {
  ImportReport r;
  const ImportedTrace apart = import_it(&r);  // the reader slept on CPU 1 and ran there again
  EXPECT_EQ(r.sync_wakes_on_waker_cpu, 0u);
  EXPECT_EQ(r.sync_wakes_on_other_cpu, 1u);
  EXPECT_EQ(apart.meta.recorder.sync_wakes_on_other_cpu, 1u);
  EXPECT_NE(format_report(r).find("ran on the waker's CPU, 1 on another"), std::string::npos);

  ImportedTrace pulled;
  ImportReport rp;
  ASSERT_TRUE(
      import_text(ImportFormat::kPerfScript, "pipe.txt", pulled_to_the_writer(), &pulled, &rp));
  EXPECT_EQ(rp.sync_wakes_on_waker_cpu, 1u);
  EXPECT_EQ(rp.sync_wakes_on_other_cpu, 0u);
  EXPECT_EQ(pulled.meta.recorder.sync_wakes_on_waker_cpu, 1u);
}

TEST(PipeReplay, SyncWakeUpsArePlacedAsRecordedUnlessThePolicySaysOtherwise) {
  ImportReport r;
  const ImportedTrace apart = import_it(&r);
  auto knobs = [](const ImportedTrace& t, const std::string& policy) {
    replay::RunSpec spec;
    spec.policy_name = policy;
    EXPECT_TRUE(replay::resolve_policy(policy, &spec.config, &spec.rewrites));
    spec.cpus = 2;
    return testing::replay_imported(t, "placement", spec).effective_policy;
  };
  EXPECT_NE(knobs(apart, "default").find("wake_affine=sync-idle-prev"), std::string::npos);
  EXPECT_NE(knobs(apart, "wake_affine=off").find("wake_affine=off"), std::string::npos);

  ImportedTrace pulled;
  ImportReport rp;
  ASSERT_TRUE(
      import_text(ImportFormat::kPerfScript, "pipe.txt", pulled_to_the_writer(), &pulled, &rp));
  EXPECT_NE(knobs(pulled, "default").find("wake_affine=sync,"), std::string::npos);
}

}  // namespace
}  // namespace mmreplay::formats
