// What perf leaves behind pointers or drops, recovered at import (issue 19): the ranges of a
// process_madvise from record's probe on glibc's wrapper, and calls the kernel refused, kept with
// their time (a failed_call observation) and replayed as syscalls that fail.

#include <gtest/gtest.h>

#include <string>

#include "formats/import/import.h"
#include "formats/think_time.h"
#include "replay/run.h"
#include "tests/formats/import/import_test_util.h"
#include "tests/formats/import/replay_imported.h"

namespace mmreplay::formats {
namespace {

constexpr uint64_t kMadvDontneed = 4;

// A probe line with vlen 2 and 16 fetched entries: two real ranges, then whatever followed the
// iovec array on the stack.
std::string probe_line(uint64_t vlen) {
  std::string line = "p 10/10 [0] 1.000010000: probe_libc:mmreplay_pmadv_99: (7f0000001000) vlen=" +
                     std::to_string(vlen) +
                     " advice=4 b0=0x7f0000000000 l0=8192 b1=0x7f0000010000 l1=4096";
  for (int i = 2; i < 16; ++i) {
    line += " b" + std::to_string(i) + "=0x7ffc0000 l" + std::to_string(i) + "=123";
  }
  return line + "\n";
}

ImportedTrace import_it(const std::string& text, ImportReport* r) {
  ImportedTrace t;
  const Status s = import_text(ImportFormat::kPerfScript, "t.txt", text, &t, r);
  EXPECT_TRUE(s) << s.message();
  return t;
}

constexpr const char* kMap =
    "p 10/10 [0] 1.000000000: syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00020000, prot: "
    "0x00000003, flags: 0x00000022, fd: 0xffffffffffffffff, off: 0x00000000\n"
    "p 10/10 [0] 1.000001000: syscalls:sys_exit_mmap: 0x7f0000000000\n";

constexpr const char* kProcessMadvise =
    "p 10/10 [0] 1.000011000: syscalls:sys_enter_process_madvise: pidfd: 0x00000003, vec: "
    "0x7ffc00002000, vlen: 0x00000002, behavior: 0x00000004, flags: 0x00000000\n"
    "p 10/10 [0] 1.000012000: syscalls:sys_exit_process_madvise: 0x3000\n";

TEST(ProcessMadviseProbe, TheCallGetsTheRangesItsProbeFetchedUpToVlen) {
  ImportReport r;
  const ImportedTrace t = import_it(std::string(kMap) + probe_line(2) + kProcessMadvise, &r);
  const Event* v = testing::first_of(t, 0, EventKind::kMadviseVector);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->arg0, kMadvDontneed);
  ASSERT_EQ(v->range_count, 2u);
  EXPECT_EQ(t.ranges[v->range_begin], (Range{0x7f0000000000, 8192}));
  EXPECT_EQ(t.ranges[v->range_begin + 1], (Range{0x7f0000010000, 4096}));
  EXPECT_EQ(r.vector_madvise_without_ranges, 0u);
  EXPECT_EQ(r.vector_madvise_ranges_truncated, 0u);
}

TEST(ProcessMadviseProbe, AProbeForAnotherCallIsDroppedAndALongVectorKeepsItsFirstRanges) {
  ImportReport r;
  // A probe, then another syscall (the probe's own call failed before entering, say): dropped.
  const std::string other =
      "p 10/10 [0] 1.000010500: syscalls:sys_enter_munmap: addr: 0x7f0000100000, len: 0x1000\n"
      "p 10/10 [0] 1.000010600: syscalls:sys_exit_munmap: 0x0\n";
  const ImportedTrace t =
      import_it(std::string(kMap) + probe_line(2) + other + kProcessMadvise, &r);
  EXPECT_EQ(testing::first_of(t, 0, EventKind::kMadviseVector)->range_count, 0u);
  EXPECT_EQ(r.vector_madvise_without_ranges, 1u);

  ImportReport r2;
  const ImportedTrace t2 = import_it(std::string(kMap) + probe_line(40) + kProcessMadvise, &r2);
  EXPECT_EQ(testing::first_of(t2, 0, EventKind::kMadviseVector)->range_count, 16u);
  EXPECT_EQ(r2.vector_madvise_ranges_truncated, 1u);
}

TEST(ProcessMadviseProbe, AProbeLineWithoutVlenNamesItsLine) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_text(
      ImportFormat::kPerfScript, "t.txt",
      "p 10/10 [0] 1.000010000: probe_libc:mmreplay_pmadv_99: (7f0000001000) advice=4\n", &t, &r);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("t.txt:1: malformed"), std::string::npos) << s.message();
}

// An mmap with MAP_FIXED_NOREPLACE refused (EEXIST, 1.7 us), between 10 us of work before it and
// 10 us after it, then a munmap.
constexpr const char* kRefused =
    "p 10/10 [0] 1.000010000: syscalls:sys_enter_mmap: addr: 0x7f0000000000, len: 0x00001000, "
    "prot: 0x00000001, flags: 0x00100022, fd: 0xffffffffffffffff, off: 0x00000000\n"
    "p 10/10 [0] 1.000011700: syscalls:sys_exit_mmap: 0xffffffffffffffef\n"
    "p 10/10 [0] 1.000021700: syscalls:sys_enter_munmap: addr: 0x7f0000000000, len: 0x20000\n"
    "p 10/10 [0] 1.000022000: syscalls:sys_exit_munmap: 0x0\n";

TEST(FailedCalls, ARefusedCallKeepsItsTimeOutOfTheThinkTime) {
  ImportReport r;
  const ImportedTrace t = import_it(std::string(kMap) + kRefused, &r);
  EXPECT_EQ(r.failed_calls, 1u);
  const Event* failed = testing::first_of(t, 0, EventKind::kObservation);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->arg0, static_cast<uint64_t>(ObservationKind::kFailedCall));
  EXPECT_EQ(failed->arg1, 17u);  // EEXIST
  EXPECT_EQ(failed->duration_ns, 1700u);
  // The gaps around it are the work (9 us, 10 us), not the refused call's 1.7 us.
  ThinkClock clock(GapCosts{});
  GapTally tally;
  uint64_t think = 0;
  for (const Event& e : t.streams[0]) think += clock.gap_before(e, &tally);
  EXPECT_EQ(think, 9'000u + 10'000u);
}

TEST(FailedCalls, TheReplayRunsARefusedCallAsASyscallThatFails) {
  ImportReport r;
  const ImportedTrace t = import_it(std::string(kMap) + kRefused, &r);
  replay::RunSpec spec;
  spec.policy_name = "default";
  spec.cpus = 1;
  const replay::RunResult run = testing::replay_imported(t, "failed", spec);
  EXPECT_EQ(run.counters.at("failed_calls"), 1u);
  EXPECT_EQ(run.counters.at("ops_failed"), 0u);  // the program's failure, not the model's
  EXPECT_EQ(run.counters.count("observations"), 0u);
}

TEST(SocketpairProbe, TheReturnProbeNamesTwoSockets) {
  ImportReport r;
  const ImportedTrace t = import_it(
      "p 10/10 [0] 1.000000000: syscalls:sys_enter_socketpair: family: 0x00000001, type: "
      "0x00000001, protocol: 0x00000000, usockvec: 0x7ffd371e96d4\n"
      "p 10/10 [0] 1.000001000: syscalls:sys_exit_socketpair: 0x0\n"
      "p 10/10 [0] 1.000001500: probe_libc:mmreplay_pipe_socketpair_99__return: (7f3fea6c7df0 <- "
      "5620bcbb916c) fd0=3 fd1=5 ret=0\n"
      "p 10/10 [0] 1.000002000: syscalls:sys_enter_write: fd: 0x00000003, buf: 0x7f0000200000, "
      "count: 0x00000010\n"
      "p 10/10 [0] 1.000003000: syscalls:sys_exit_write: 0x10\n",
      &r);
  EXPECT_EQ(r.ignored_by_name.count("socketpair"), 0u);
  ASSERT_FALSE(t.meta.files.empty());
  for (const FileInfo& f : t.meta.files) EXPECT_EQ(f.kind, FileKind::kSocket) << f.path;
  const Event* w = testing::first_of(t, 0, EventKind::kFileWrite);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(t.meta.files[w->arg0 - 1].kind, FileKind::kSocket);
}

}  // namespace
}  // namespace mmreplay::formats
