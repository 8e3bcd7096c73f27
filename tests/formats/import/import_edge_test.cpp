// Importer edge cases on hand-written input: malformed lines name their line, unknown lines are
// counted, the other column layouts, forks, failures, vectors, implicit mapping merging.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "formats/import/address_ranges.h"
#include "formats/import/import.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

using testing::import_snippet;

TEST(PerfScriptEdge, MalformedLineNamesFileAndLine) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(ImportFormat::kPerfScript,
                                  "# comment\n"
                                  "a 1/1 [000] 1.000000001: syscalls:sys_enter_brk: brk: 0x0\n"
                                  "a 1/1 [000] 1.000000002: syscalls:sys_exit_brk: zzz\n",
                                  &t, &r);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("in.txt:3:"), std::string::npos) << s.message();
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
}

TEST(PerfScriptEdge, UnknownLinesAreCountedNotFatal) {
  ImportedTrace t;
  ImportReport r;
  const Status s =
      import_snippet(ImportFormat::kPerfScript,
                     "garbage line\n"
                     "a 1/1 [000] 1.5: sched:sched_switch: prev_comm=a\n"
                     "a 1/1 [000] 1.6: tlb:tlb_flush: pages=1 reason=remote shootdown\n"
                     "\n",
                     &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(r.unknown_lines, 1u);
  ASSERT_EQ(r.unknown_examples.size(), 1u);
  EXPECT_EQ(r.unknown_examples[0], "line 1: garbage line");
  EXPECT_EQ(r.ignored_events, 1u);
  EXPECT_EQ(r.observations.at("tlb:tlb_flush"), 1u);
  EXPECT_EQ(t.meta.params.at(0),
            (std::pair<std::string, std::string>{"observed.tlb:tlb_flush", "1"}));
}

TEST(PerfScriptEdge, IgnoredCallsAndTracepointsAreCountedByName) {
  ImportedTrace t;
  ImportReport r;
  const Status s =
      import_snippet(ImportFormat::kPerfScript,
                     "a 1/1 [000] 1.1: syscalls:sys_enter_futex: uaddr: 0x1, op: 0x81\n"
                     "a 1/1 [000] 1.2: syscalls:sys_exit_futex: 0x0\n"
                     "a 1/1 [000] 1.3: syscalls:sys_enter_fchmod: fd: 0x1, mode: 0x1a4\n"
                     "a 1/1 [000] 1.4: syscalls:sys_exit_fchmod: 0x0\n"
                     "a 1/1 [000] 1.5: syscalls:sys_enter_futex: uaddr: 0x1, op: 0x81\n"
                     "a 1/1 [000] 1.6: sched:sched_switch: prev_comm=a\n",
                     &t, &r);
  ASSERT_TRUE(s) << s.message();
  // Unmodelled records each (fchmod's enter and exit, sched_switch); a known call without an
  // event of its own (futex wake) once per call.
  EXPECT_EQ(r.ignored_events, 5u);
  EXPECT_EQ(r.ignored_by_name, (std::map<std::string, uint64_t>{
                                   {"futex", 2}, {"fchmod", 1}, {"sched:sched_switch", 1}}));
  // Most frequent first, ties by name.
  EXPECT_NE(format_report(r).find("ignored (not modelled): futex x2 fchmod x1 "
                                  "sched:sched_switch x1\n"),
            std::string::npos)
      << format_report(r);
}

TEST(PerfScriptEdge, GroundTruthTracepointsBecomeObservationEvents) {
  // record --ground-truth: what the real kernel did, kept in the thread's stream, never replayed.
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "a 7/7 [001] 2.000000001: mmap_lock:mmap_lock_start_locking: mm=0xffff8881 memcg_id=0 "
      "write=true\n"
      "a 7/7 [001] 2.000000002: lock:contention_begin: 0xffff888100aa (flags=WRITE)\n"
      "a 7/7 [001] 2.000000300: lock:contention_end: 0xffff888100aa ret=0\n"
      "a 7/7 [001] 2.000000400: mmap_lock:mmap_lock_acquire_returned: mm=0xffff8881 memcg_id=0 "
      "write=true success=true\n"
      "a 7/7 [001] 2.000000500: tlb:tlb_flush: pages:33 reason:local MM shootdown (3)\n"
      "a 7/7 [001] 2.000000600: tlb:tlb_flush: pages:-1 reason:remote shootdown (1)\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  const int stream = testing::stream_of(t, 7);
  ASSERT_GE(stream, 0);
  std::vector<Event> obs;
  for (const Event& e : t.streams[stream]) {
    if (e.kind == EventKind::kObservation) obs.push_back(e);
  }
  ASSERT_EQ(obs.size(), 6u);
  EXPECT_EQ(obs[0].arg0, static_cast<uint64_t>(ObservationKind::kMmapLockStartLocking));
  EXPECT_EQ(obs[0].arg1, 1u);  // write
  EXPECT_EQ(obs[1].arg0, static_cast<uint64_t>(ObservationKind::kLockContentionBegin));
  EXPECT_EQ(obs[1].arg1, 0xffff888100aau);
  EXPECT_EQ(obs[2].ts_ns - obs[1].ts_ns, 298u);  // the contention lasted 298 ns
  EXPECT_EQ(obs[4].arg0, static_cast<uint64_t>(ObservationKind::kTlbFlush));
  EXPECT_EQ(obs[4].arg1, 33u);
  EXPECT_EQ(obs[5].arg1, ~uint64_t{0});  // TLB_FLUSH_ALL
  EXPECT_EQ(r.observations.at("tlb:tlb_flush"), 2u);
}

TEST(PerfScriptEdge, BareTidCommWithSpacesMicrosecondsAndFork) {
  // -F comm,tid,time,event,trace without --ns; fork through clone without CLONE_VM.
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "Web Content 10 1.000001: syscalls:sys_enter_clone: clone_flags: 0x1200011, newsp: 0x0\n"
      "Web Content 10 1.000003: syscalls:sys_exit_clone: 0xb\n"
      "Web Content 11 1.000004: syscalls:sys_enter_mmap: addr: 0x0, len: 0x1000, prot: 0x3, "
      "flags: 0x22, fd: 0xffffffff, off: 0x0\n"
      "Web Content 11 1.000006: syscalls:sys_exit_mmap: 0xffffffffffffffff4\n"
      "Web Content 11 1.000007: syscalls:sys_enter_mmap: addr: 0x0, len: 0x1000, prot: 0x3, "
      "flags: 0x22, fd: 0xffffffff, off: 0x0\n"
      "Web Content 11 1.000009: syscalls:sys_exit_mmap: 0xfffffffffffffff4\n",
      &t, &r);
  // The first exit is 17 hex digits: not a number, so malformed at line 4.
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("in.txt:4:"), std::string::npos) << s.message();

  const Status s2 = import_snippet(
      ImportFormat::kPerfScript,
      "Web Content 10 1.000001: syscalls:sys_enter_clone: clone_flags: 0x1200011, newsp: 0x0\n"
      "Web Content 10 1.000003: syscalls:sys_exit_clone: 0xb\n"
      "Web Content 11 1.000007: syscalls:sys_enter_mmap: addr: 0x0, len: 0x1000, prot: 0x3, "
      "flags: 0x22, fd: 0xffffffff, off: 0x0\n"
      "Web Content 11 1.000009: syscalls:sys_exit_mmap: 0xfffffffffffffff4\n"
      "Web Content 11 1.000010: syscalls:sys_enter_mmap: addr: 0x0, len: 0x1000, prot: 0x3, "
      "flags: 0x22, fd: 0xffffffff, off: 0x0\n"
      "Web Content 11 1.000012: syscalls:sys_exit_mmap: 0x7f0000000000\n",
      &t, &r);
  ASSERT_TRUE(s2) << s2.message();
  ASSERT_EQ(t.meta.threads.size(), 2u);
  EXPECT_EQ(t.meta.threads[0], (ThreadInfo{10, 10, "Web Content"}));
  // Forked: its own mm, started by the clone event of thread 10.
  EXPECT_EQ(t.meta.threads[1], (ThreadInfo{11, 11, "Web Content", -1, 10}));
  EXPECT_EQ(t.streams[0][1].kind, EventKind::kClone);
  EXPECT_EQ(t.streams[0][1].arg0, 11u);
  EXPECT_EQ(t.streams[0][1].arg1, 0x1200011u);
  EXPECT_EQ(r.count(EventKind::kMmCreate), 1u);
  const Event& create = t.streams[1][1];
  EXPECT_EQ(create.kind, EventKind::kMmCreate);
  EXPECT_EQ(create.arg0, 11u);
  EXPECT_EQ(create.arg1, 10u);
  EXPECT_EQ(r.failed_calls, 1u);  // -ENOMEM
  EXPECT_EQ(r.count(EventKind::kMmap), 1u);
  EXPECT_EQ(t.streams[1].back().ts_ns, 1000010000u);
  EXPECT_EQ(t.streams[1].back().duration_ns, 2000u);
}

TEST(PerfScriptEdge, ATaskStartsAtItsCloneEvenWithoutEventsOfItsOwn) {
  // A thread (CLONE_VM) with no event and a forked child whose first event comes later: both
  // streams start when the clone returned in the parent; the fork's mm_create is then too.
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "p 5/5 [0] 2.000000000: syscalls:sys_enter_clone: clone_flags: 0x3d0f00, newsp: 0x1\n"
      "p 5/5 [0] 2.000001000: syscalls:sys_exit_clone: 0x6\n"
      "p 5/5 [0] 2.000002000: syscalls:sys_enter_clone: clone_flags: 0x1200011, newsp: 0x0\n"
      "p 5/5 [0] 2.000003000: syscalls:sys_exit_clone: 0x7\n"
      "p 7/7 [0] 2.000500000: syscalls:sys_enter_munmap: addr: 0x10000, len: 0x1000\n"
      "p 7/7 [0] 2.000500010: syscalls:sys_exit_munmap: 0x0\n"
      "p 5/5 [0] 2.001000000: syscalls:sys_enter_munmap: addr: 0x10000, len: 0x1000\n"
      "p 5/5 [0] 2.001000010: syscalls:sys_exit_munmap: 0x0\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(t.meta.threads.size(), 3u);
  EXPECT_EQ(t.streams[0].front().ts_ns, 2000000000u);  // its first event: the first clone
  EXPECT_EQ(t.streams[0][1].kind, EventKind::kClone);
  EXPECT_EQ(t.streams[0][2].kind, EventKind::kClone);
  EXPECT_EQ(t.streams[1].front().kind, EventKind::kThreadStart);
  EXPECT_EQ(t.streams[1].front().ts_ns, 2000001000u);  // not 0
  ASSERT_GE(t.streams[2].size(), 2u);
  EXPECT_EQ(t.streams[2][0].ts_ns, 2000003000u);
  EXPECT_EQ(t.streams[2][1].kind, EventKind::kMmCreate);
  EXPECT_EQ(t.streams[2][1].ts_ns, 2000003000u);  // the fork moment
}

TEST(PerfScriptEdge, ImplicitMappingsMergeNearFaultsButNotAcrossMappings) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "p 5/5 [0] 1.000000001: exceptions:page_fault_user: address=0x10000 ip=0x1 error_code=0x6\n"
      "p 5/5 [0] 1.000000002: exceptions:page_fault_user: address=0x13008 ip=0x1 error_code=0x4\n"
      "p 5/5 [0] 1.000000003: syscalls:sys_enter_mmap: addr: 0x20000, len: 0x1000, prot: 0x3, "
      "flags: 0x32, fd: 0xffffffff, off: 0x0\n"
      "p 5/5 [0] 1.000000004: syscalls:sys_exit_mmap: 0x20000\n"
      "p 5/5 [0] 1.000000005: exceptions:page_fault_user: address=0x20010 ip=0x1 error_code=0x6\n"
      "p 5/5 [0] 1.000000006: exceptions:page_fault_user: address=0x30000 ip=0x1 error_code=0x6\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(r.faults_in_known_mappings, 1u);
  EXPECT_EQ(r.faults_outside_mappings, 3u);
  ASSERT_EQ(r.implicit_mappings.size(), 2u);  // 0x10000-0x14000, then 0x30000 (0x20000 between)
  EXPECT_EQ(r.implicit_mappings[0].start, 0x10000u);
  EXPECT_EQ(r.implicit_mappings[0].end, 0x14000u);
  EXPECT_EQ(r.implicit_mappings[0].faults, 2u);
  EXPECT_EQ(r.implicit_mappings[1].start, 0x30000u);
  // The write bit of the error code.
  EXPECT_TRUE(t.streams[0][3].is_write());  // after thread_start and two implicit mmaps
  EXPECT_FALSE(t.streams[0][4].is_write());
}

// A successful mprotect or madvise on a range no call of the trace mapped shows the range was
// mapped before the recording began: ld.so's RELRO mprotect of an exec'd binary's data segment,
// whose first pages take no fault. The implicit mapping covers it, so the replay's call finds it
// mapped (g++'s cc1plus failed its mprotect with ENOMEM before).
TEST(PerfScriptEdge, ImplicitMappingsCoverRangesThatCallsFoundMapped) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "p 5/5 [0] 1.000000001: exceptions:page_fault_user: address=0x13008 ip=0x1 error_code=0x6\n"
      "p 5/5 [0] 1.000000002: syscalls:sys_enter_mprotect: start: 0x10000, len: 0x00002000, "
      "prot: 0x00000001\n"
      "p 5/5 [0] 1.000000003: syscalls:sys_exit_mprotect: 0x0\n"
      "p 5/5 [0] 1.000000004: syscalls:sys_enter_madvise: start: 0x400000, len_in: 0x00001000, "
      "behavior: 0x00000004\n"
      "p 5/5 [0] 1.000000005: syscalls:sys_exit_madvise: 0x0\n"
      // A failed call shows nothing: the range may be unmapped.
      "p 5/5 [0] 1.000000006: syscalls:sys_enter_mprotect: start: 0x800000, len: 0x00001000, "
      "prot: 0x00000001\n"
      "p 5/5 [0] 1.000000007: syscalls:sys_exit_mprotect: 0xfffffffffffffff4\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(r.implicit_mappings.size(), 2u);
  EXPECT_EQ(r.implicit_mappings[0].start, 0x10000u);  // the mprotect's range and the fault's page
  EXPECT_EQ(r.implicit_mappings[0].end, 0x14000u);
  EXPECT_EQ(r.implicit_mappings[0].faults, 1u);
  EXPECT_EQ(r.implicit_mappings[1].start, 0x400000u);  // the madvise's, no fault in it
  EXPECT_EQ(r.implicit_mappings[1].end, 0x401000u);
  EXPECT_EQ(r.implicit_mappings[1].faults, 0u);
}

TEST(StraceEdge, MalformedCallNamesLine) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(ImportFormat::kStrace,
                                  "1.000001 brk(NULL) = 0x1000 <0.000001>\n"
                                  "1.000002 munmap(0x1000, 4096 = 0 <0.000001>\n",
                                  &t, &r);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("in.txt:2:"), std::string::npos) << s.message();
}

TEST(StraceEdge, PidColumnVectorsFailuresUnknownFlagsAndKills) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kStrace,
      "7 1.000001 process_madvise(3, [{iov_base=0x10000, iov_len=4096}, {iov_base=0x30000, "
      "iov_len=8192}], 2, MADV_COLD, 0) = 12288 <0.000010>\n"
      "7 1.000020 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NEWFLAG, -1, 0) = "
      "-1 ENOMEM (Cannot allocate memory) <0.000002>\n"
      "7 1.000030 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NEWFLAG, "
      "-1, 0) = 0x7f0000000000 <0.000003>\n"
      "7 1.000040 <... munmap resumed>) = 0 <0.000001>\n"
      "7 1.000050 openat(AT_FDCWD, \"/x\", O_RDONLY) = 3 <0.000001>\n"
      "7 1.000060 madvise(0x7f0000000000, 8192, MADV_FREE <unfinished ...>\n"
      "7 1.000070 +++ killed by SIGKILL +++\n"
      "what is this\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(t.meta.threads.size(), 1u);
  EXPECT_EQ(t.meta.threads[0].tid, 7u);
  ASSERT_EQ(r.count(EventKind::kMadviseVector), 1u);
  // The vector's ranges were mapped before the first line (the call succeeded): one implicit
  // mapping from the first to the end of the second, less than 1 MiB apart.
  ASSERT_EQ(r.implicit_mappings.size(), 1u);
  EXPECT_EQ(r.implicit_mappings[0].start, 0x10000u);
  EXPECT_EQ(r.implicit_mappings[0].end, 0x32000u);
  const Event& v = t.streams[0][2];
  ASSERT_EQ(v.kind, EventKind::kMadviseVector);
  EXPECT_EQ(v.arg0, kMadvCold);
  ASSERT_EQ(v.range_count, 2u);
  EXPECT_EQ(t.ranges[v.range_begin + 1], (Range{0x30000, 8192}));
  EXPECT_EQ(r.failed_calls, 1u);
  EXPECT_EQ(r.unknown_flag_names, 2u);
  EXPECT_EQ(r.count(EventKind::kMmap), 2u);  // the call's and the implicit one
  EXPECT_EQ(r.unmatched_exits, 1u);
  EXPECT_EQ(r.ignored_events, 0u);
  EXPECT_EQ(r.fd_calls, 1u);          // openat: a descriptor call (issue 19), no longer ignored
  EXPECT_EQ(r.unfinished_calls, 1u);  // madvise, cut by the kill
  EXPECT_EQ(r.count(EventKind::kMadvise), 1u);  // kept: needs no return value
  EXPECT_EQ(r.unknown_lines, 1u);
  EXPECT_EQ(r.count(EventKind::kThreadExit), 1u);
}

TEST(AddressRangesTest, AddMergesRemoveSplits) {
  AddressRanges a;
  a.add(0x1000, 0x3000);
  a.add(0x3000, 0x4000);  // touches: merges
  a.add(0x8000, 0x9000);
  EXPECT_EQ(a.size(), 2u);
  EXPECT_TRUE(a.contains(0x3fff));
  EXPECT_FALSE(a.contains(0x4000));
  a.remove(0x2000, 0x2800);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_FALSE(a.contains(0x2000));
  EXPECT_TRUE(a.contains(0x2800));
  EXPECT_TRUE(a.intersects(0x4fff, 0x8001));
  EXPECT_FALSE(a.intersects(0x4000, 0x8000));
  a.remove(0, ~uint64_t{0});
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.bytes(), 0u);
}

TEST(AddressRangesTest, GapsAreThePartsOutsideTheSet) {
  using Gaps = std::vector<std::pair<uint64_t, uint64_t>>;
  AddressRanges a;
  EXPECT_EQ(a.gaps(0x1000, 0x2000), (Gaps{{0x1000, 0x2000}}));
  a.add(0x2000, 0x3000);
  a.add(0x5000, 0x6000);
  EXPECT_EQ(a.gaps(0x1000, 0x7000), (Gaps{{0x1000, 0x2000}, {0x3000, 0x5000}, {0x6000, 0x7000}}));
  EXPECT_EQ(a.gaps(0x2800, 0x5800), (Gaps{{0x3000, 0x5000}}));  // starts and ends inside
  EXPECT_EQ(a.gaps(0x2000, 0x3000), Gaps{});                    // all inside
  EXPECT_EQ(a.gaps(0x3000, 0x5000), (Gaps{{0x3000, 0x5000}}));  // between, touching both
  EXPECT_EQ(a.gaps(0x4000, 0x4000), Gaps{});                    // empty
}

TEST(StraceEdge, IgnoredCallsAndSignalsAreCountedByName) {
  ImportedTrace t;
  ImportReport r;
  const Status s =
      import_snippet(ImportFormat::kStrace,
                     "7 1.000001 execve(\"/bin/x\", [\"x\"], 0x1 /* 1 var */) = 0 <0.000100>\n"
                     "7 1.000002 futex(0x1, FUTEX_WAKE_PRIVATE, 1) = 0 <0.000001>\n"
                     "7 1.000003 fchmod(3, 0644) = 0 <0.000001>\n"
                     "7 1.000004 --- SIGCHLD {si_signo=SIGCHLD} ---\n"
                     "7 1.000005 futex(0x1, FUTEX_WAKE_PRIVATE, 1) = 0 <0.000001>\n",
                     &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(r.ignored_events, 4u);  // execve is an event now (mm_create)
  EXPECT_EQ(r.ignored_by_name,
            (std::map<std::string, uint64_t>{{"futex", 2}, {"fchmod", 1}, {"signal SIGCHLD", 1}}));
  EXPECT_EQ(r.count(EventKind::kMmCreate), 1u);
}

// Every call that moves a file's data is read (issue 19: nothing silently dropped): pwrite64,
// fdatasync (as fsync),
// readv/writev and the preadv/pwritev family at their offsets or the descriptor's position, and
// the in-kernel copies of cp (copy_file_range) and Python's shutil (sendfile) as the source's read
// (splice: nothing copied to user memory) and the destination's write inside the same call.
TEST(StraceEdge, EveryCallThatMovesFileDataIsReadOrWritten) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kStrace,
      "7 1.000000 openat(AT_FDCWD, \"/src\", O_RDONLY) = 3 <0.000001>\n"
      "7 1.000010 openat(AT_FDCWD, \"/dst\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4 <0.000001>\n"
      "7 1.000020 copy_file_range(3, NULL, 4, NULL, 9223372035781033984, 0) = 65536 "
      "<0.000010>\n"
      "7 1.000040 sendfile(4, 3, NULL, 8192) = 8192 <0.000005>\n"
      "7 1.000050 pwrite64(4, \"abcd\", 4096, 131072) = 4096 <0.000002>\n"
      "7 1.000060 writev(4, [{iov_base=\"a\", iov_len=1}], 1) = 1 <0.000001>\n"
      "7 1.000070 preadv2(3, [{iov_base=\"\", iov_len=4096}], 1, -1, 0) = 4096 <0.000001>\n"
      "7 1.000080 preadv(3, [{iov_base=\"\", iov_len=4096}], 1, 1048576) = 4096 <0.000001>\n"
      "7 1.000090 readv(3, [{iov_base=\"\", iov_len=100}], 1) = 100 <0.000001>\n"
      "7 1.000100 fdatasync(4) = 0 <0.000300>\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_TRUE(r.ignored_by_name.empty());
  EXPECT_EQ(r.count(EventKind::kFsync), 1u);  // fdatasync: sqlite's commits
  std::vector<std::string> io;
  for (const Event& e : t.streams[0]) {
    if (e.kind != EventKind::kFileRead && e.kind != EventKind::kFileWrite) continue;
    io.push_back(std::string(e.kind == EventKind::kFileRead ? "read " : "write ") +
                 t.meta.files.at(e.arg0 - 1).path + " " + std::to_string(e.arg1) + " " +
                 std::to_string(e.len) + (e.is_kernel_mode() ? " splice" : "") +
                 (e.is_continued() ? " continued" : ""));
  }
  EXPECT_EQ(io, (std::vector<std::string>{
                    "read /src 0 65536 splice",      // copy_file_range: the source's read
                    "write /dst 0 65536 continued",  // and the destination's write, one call
                    "read /src 65536 8192 splice",   // sendfile(out, in, ...): in is the source
                    "write /dst 65536 8192 continued",
                    "write /dst 131072 4096",  // pwrite64 at its offset; the position stays
                    "write /dst 73728 1",      // writev at the position
                    "read /src 73728 4096",    // preadv2 at -1: the position
                    "read /src 1048576 4096",  // preadv at its offset
                    "read /src 77824 100",     // readv at the position
                }));
}

// The calls that empty a file's page cache (format 1.10): open and openat with O_TRUNC, creat and
// ftruncate are file_truncate events on their file, at the new size; an open without O_TRUNC is
// none. strace cannot see how many pages each dropped, and takes a truncated file as new (cold
// under --cache auto).
TEST(StraceEdge, TruncatingOpensCreatAndFtruncateAreTruncations) {
  ImportedTrace t;
  ImportReport r;
  const Status s = import_snippet(
      ImportFormat::kStrace,
      "7 1.000000 openat(AT_FDCWD, \"/src\", O_RDONLY) = 3 <0.000001>\n"
      "7 1.000010 openat(AT_FDCWD, \"/dst\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4 <0.000200>\n"
      "7 1.000300 ftruncate(4, 8192) = 0 <0.000003>\n"
      "7 1.000400 creat(\"/c\", 0644) = 5 <0.000002>\n"
      "7 1.000500 open(\"/d\", O_RDWR|O_TRUNC) = 6 <0.000002>\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_TRUE(r.ignored_by_name.empty());
  std::vector<std::string> truncations;
  for (const Event& e : t.streams[0]) {
    if (e.kind != EventKind::kFileTruncate) continue;
    const FileInfo& f = t.meta.files.at(e.arg0 - 1);
    EXPECT_EQ(e.arg2, kTruncatedPagesUnknown);
    truncations.push_back(f.path + " " + std::to_string(e.arg1) + (f.created ? " new" : ""));
  }
  EXPECT_EQ(truncations,
            (std::vector<std::string>{"/dst 0 new", "/dst 8192 new", "/c 0 new", "/d 0 new"}));
  EXPECT_EQ(t.streams[0][1].duration_ns, 200000u) << "the open's time is the truncation's";
}

// perf: with filemap:mm_filemap_delete_from_page_cache recorded (its header line), each
// truncating call counts the pages its folios held (1 << order each); a truncation that dropped
// some was of a file that existed, cached. Without the tracepoint the count is unknown.
TEST(PerfScriptEdge, TruncationsCountThePagesTheKernelDropped) {
  const std::string calls =
      "cp 1/1 [000] 1.000000: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x1, "
      "flags: 0x241, mode: 0x1b6\n"
      "cp 1/1 [000] 1.000001: filemap:mm_filemap_delete_from_page_cache: dev 254:0 ino a7 "
      "pfn=0x1 ofs=0 order=0\n"
      "cp 1/1 [000] 1.000002: filemap:mm_filemap_delete_from_page_cache: dev 254:0 ino a7 "
      "pfn=0x2 ofs=4096 order=0\n"
      "cp 1/1 [000] 1.000003: filemap:mm_filemap_delete_from_page_cache: dev 254:0 ino a7 "
      "pfn=0x3 ofs=8192 order=2\n"
      "cp 1/1 [000] 1.000010: syscalls:sys_exit_openat: 0x3\n"
      "cp 1/1 [000] 1.000020: syscalls:sys_enter_ftruncate: fd: 0x3, length: 0x1000\n"
      "cp 1/1 [000] 1.000021: syscalls:sys_exit_ftruncate: 0x0\n";
  for (const bool traced : {true, false}) {
    ImportedTrace t;
    ImportReport r;
    const std::string header =
        traced ? "# event : name = filemap:mm_filemap_delete_from_page_cache, , id = { 9 }, "
                 "type = 2, size = 128\n"
               : "";
    const Status s = import_snippet(ImportFormat::kPerfScript, header + calls, &t, &r);
    ASSERT_TRUE(s) << s.message();
    EXPECT_TRUE(r.ignored_by_name.empty());
    std::vector<uint64_t> pages;
    for (const Event& e : t.streams[0]) {
      if (e.kind == EventKind::kFileTruncate) pages.push_back(e.arg2);
    }
    const uint64_t unknown = kTruncatedPagesUnknown;
    EXPECT_EQ(pages,
              traced ? (std::vector<uint64_t>{6, 0}) : (std::vector<uint64_t>{unknown, unknown}))
        << "traced " << traced;
    ASSERT_FALSE(t.meta.files.empty());
    EXPECT_EQ(t.meta.files.back().created, !traced) << "it held 6 cached pages: it existed";
  }
}

// unlink and unlinkat drop a file's pages with its last name (evict()). strace cannot count them:
// the file must be one a call named, and no descriptor may hold it (its pages stay until the last
// close, which strace cannot tell either). A directory (AT_REMOVEDIR) has no page cache; a path
// relative to a directory fd is joined to the name -y gives it.
TEST(StraceEdge, UnlinksDropTheFileOnlyWhenNothingHoldsIt) {
  ImportedTrace t;
  ImportReport r;
  const Status s =
      import_snippet(ImportFormat::kStrace,
                     "7 1.000000 openat(AT_FDCWD, \"/a\", O_RDONLY) = 3 <0.000001>\n"
                     "7 1.000001 openat(AT_FDCWD, \"/d/b\", O_RDONLY) = 4 <0.000001>\n"
                     "7 1.000002 close(4) = 0 <0.000001>\n"
                     "7 1.000003 openat(AT_FDCWD, \"/c\", O_RDONLY) = 4 <0.000001>\n"
                     "7 1.000004 close(4) = 0 <0.000001>\n"
                     "7 1.000010 unlink(\"/a\") = 0 <0.000100>\n"             // still open: kept
                     "7 1.000200 unlinkat(5</d>, \"b\", 0) = 0 <0.000100>\n"  // /d/b: dropped
                     "7 1.000400 unlinkat(AT_FDCWD, \"/c\", 0) = 0 <0.000100>\n"  // dropped
                     "7 1.000600 unlink(\"/never-opened\") = 0 <0.000001>\n"      // nothing known
                     "7 1.000700 unlinkat(AT_FDCWD, \"/d\", AT_REMOVEDIR) = 0 <0.000001>\n",
                     &t, &r);
  ASSERT_TRUE(s) << s.message();
  std::vector<std::string> dropped;
  for (const Event& e : t.streams[0]) {
    if (e.kind == EventKind::kFileTruncate) dropped.push_back(t.meta.files.at(e.arg0 - 1).path);
  }
  EXPECT_EQ(dropped, (std::vector<std::string>{"/d/b", "/c"}));
}

// fts (rm -r, find) opens each directory relative to its parent's descriptor and unlinks names
// relative to it: the names are joined to the directories' paths, so two files of one name in two
// directories are two files. A directory descriptor from before the recording names nothing: its
// unlinkat is counted as ignored.
TEST(StraceEdge, NamesRelativeToADirectoryFdAreJoinedToItsPath) {
  ImportedTrace t;
  ImportReport r;
  const Status s =
      import_snippet(ImportFormat::kStrace,
                     "7 1.000000 openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 3 <0.000001>\n"
                     "7 1.000001 openat(3, \"sub\", O_RDONLY|O_DIRECTORY) = 4 <0.000001>\n"
                     "7 1.000002 openat(4, \"f\", O_RDONLY) = 5 <0.000001>\n"
                     "7 1.000003 read(5, \"\", 4096) = 4096 <0.000001>\n"
                     "7 1.000004 close(5) = 0 <0.000001>\n"
                     "7 1.000005 openat(3, \"f\", O_RDONLY) = 5 <0.000001>\n"
                     "7 1.000006 read(5, \"\", 4096) = 4096 <0.000001>\n"
                     "7 1.000007 close(5) = 0 <0.000001>\n"
                     "7 1.000010 unlinkat(4, \"f\", 0) = 0 <0.000010>\n"
                     "7 1.000020 unlinkat(9, \"g\", 0) = 0 <0.000010>\n",
                     &t, &r);
  ASSERT_TRUE(s) << s.message();
  std::vector<std::string> events;
  for (const Event& e : t.streams[0]) {
    if (e.kind == EventKind::kFileRead || e.kind == EventKind::kFileTruncate) {
      events.push_back(std::string(kind_name(e.kind)) + " " + t.meta.files.at(e.arg0 - 1).path);
    }
  }
  EXPECT_EQ(events, (std::vector<std::string>{"file_read /d/sub/f", "file_read /d/f",
                                              "file_truncate /d/sub/f"}));
  EXPECT_EQ(r.ignored_by_name, (std::map<std::string, uint64_t>{{"unlinkat", 1}}));
}

// perf with the page-cache tracepoint: an unlink that dropped pages drops them from the file of
// that name (a file no call opened is added, as one from before the recording); one that dropped
// none is no event; a close that dropped pages (the last descriptor of a file unlinked while
// open) drops them from its fd's file.
TEST(PerfScriptEdge, UnlinksAndLastClosesDropWhatTheKernelDropped) {
  ImportedTrace t;
  ImportReport r;
  const std::string del =
      "filemap:mm_filemap_delete_from_page_cache: dev 254:0 ino a7 pfn=0x1 ofs=0 order=1\n";
  const Status s = import_snippet(
      ImportFormat::kPerfScript,
      "# event : name = filemap:mm_filemap_delete_from_page_cache, , id = { 9 }, type = 2\n"
      "rm 1/1 [000] 1.000000: probe_libc:mmreplay_open_unlink_1: (7f) path=\"/old\"\n"
      "rm 1/1 [000] 1.000001: syscalls:sys_enter_unlink: pathname: 0x1\n"
      "rm 1/1 [000] 1.000002: " +
          del +
          "rm 1/1 [000] 1.000003: syscalls:sys_exit_unlink: 0x0\n"
          "rm 1/1 [000] 1.000010: probe_libc:mmreplay_openat_1: (7f) path=\"/tmp/x\"\n"
          "rm 1/1 [000] 1.000011: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x1, "
          "flags: 0x42, mode: 0x1b6\n"
          "rm 1/1 [000] 1.000012: syscalls:sys_exit_openat: 0x3\n"
          "rm 1/1 [000] 1.000020: probe_libc:mmreplay_open_unlinkat_1: (7f) path=\"/tmp/x\"\n"
          "rm 1/1 [000] 1.000021: syscalls:sys_enter_unlinkat: dfd: 0xffffff9c, pathname: 0x1, "
          "flag: 0x0\n"
          "rm 1/1 [000] 1.000022: syscalls:sys_exit_unlinkat: 0x0\n"
          "rm 1/1 [000] 1.000030: syscalls:sys_enter_close: fd: 0x3\n"
          "rm 1/1 [000] 1.000031: " +
          del + "rm 1/1 [000] 1.000032: " + del +
          "rm 1/1 [000] 1.000033: syscalls:sys_exit_close: 0x0\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  std::vector<std::string> dropped;
  for (const Event& e : t.streams[0]) {
    if (e.kind != EventKind::kFileTruncate) continue;
    dropped.push_back(t.meta.files.at(e.arg0 - 1).path + " " + std::to_string(e.arg2));
  }
  EXPECT_EQ(dropped, (std::vector<std::string>{"/old 2", "/tmp/x 4"}));
}

// strace -t/-tt print a clock time, and strace without -t none: the calls cannot be placed.
TEST(StraceEdge, WithoutEpochTimestampsSaysToUseTtt) {
  for (const char* text :
       {"12:00:01.000001 brk(NULL) = 0x1000 <0.000001>\n", "7 12:00:01 brk(NULL) = 0x1000\n",
        "brk(NULL) = 0x1000\n", "[pid 7] brk(NULL) = 0x1000\n", "7 brk(NULL) = 0x1000\n"}) {
    ImportedTrace t;
    ImportReport r;
    const Status s = import_snippet(ImportFormat::kStrace, text, &t, &r);
    ASSERT_FALSE(s) << text;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(s.message().find("in.txt:1: strace line"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("strace -f -ttt -T"), std::string::npos) << s.message();
  }
}

// System V shared memory: shmat is a shared mapping of shmget's size at the address the kernel
// returned (SHM_RDONLY: read-only); shmdt unmaps it. Both from strace and perf.
TEST(ShmImport, AttachesAreSharedMappingsAtTheRecordedAddress) {
  ImportedTrace t;
  ImportReport r;
  const Status s =
      import_snippet(ImportFormat::kStrace,
                     "7 1.000001 shmget(IPC_PRIVATE, 4194304, IPC_CREAT|0600) = 5 <0.000010>\n"
                     "7 1.000002 shmat(5, NULL, 0) = 0x7f1000000000 <0.000010>\n"
                     "7 1.000003 shmat(5, NULL, SHM_RDONLY) = 0x7f2000000000 <0.000010>\n"
                     "7 1.000004 shmdt(0x7f1000000000) = 0 <0.000010>\n"
                     "7 1.000005 shmat(9, NULL, 0) = 0x7f3000000000 <0.000010>\n",
                     &t, &r);
  ASSERT_TRUE(s) << s.message();
  std::vector<Event> maps, unmaps;
  for (const Event& e : t.streams[0]) {
    if (e.kind == EventKind::kMmap) maps.push_back(e);
    if (e.kind == EventKind::kMunmap) unmaps.push_back(e);
  }
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0].addr, 0x7f1000000000u);
  EXPECT_EQ(maps[0].len, 4194304u);
  EXPECT_EQ(maps[0].prot(), kProtRead | kProtWrite);
  EXPECT_EQ(maps[0].map_flags(), kMapShared | kMapAnonymous);
  EXPECT_EQ(maps[1].prot(), kProtRead);
  ASSERT_EQ(unmaps.size(), 1u);
  EXPECT_EQ(unmaps[0].addr, 0x7f1000000000u);
  EXPECT_EQ(unmaps[0].len, 4194304u);
  EXPECT_EQ(r.shm_attach_without_size, 1u);  // segment 9 predates the recording
  EXPECT_EQ(r.ignored_by_name.count("shmget"), 0u);

  const Status p = import_snippet(
      ImportFormat::kPerfScript,
      "p 7/7 [0] 1.000001000: syscalls:sys_enter_shmget: key: 0x0, size: 0x2000, shmflg: "
      "0x380\n"
      "p 7/7 [0] 1.000002000: syscalls:sys_exit_shmget: 0x3\n"
      "p 7/7 [0] 1.000003000: syscalls:sys_enter_shmat: shmid: 0x3, shmaddr: 0x0, shmflg: "
      "0x0\n"
      "p 7/7 [0] 1.000004000: syscalls:sys_exit_shmat: 0x7f4000000000\n",
      &t, &r);
  ASSERT_TRUE(p) << p.message();
  EXPECT_EQ(r.count(EventKind::kMmap), 1u);
  const Event& m = t.streams[0].back();
  EXPECT_EQ(m.kind, EventKind::kMmap);
  EXPECT_EQ(m.addr, 0x7f4000000000u);
  EXPECT_EQ(m.len, 0x2000u);
}

}  // namespace
}  // namespace mmreplay::formats
