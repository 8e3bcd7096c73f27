// Descriptors by kind, imported and replayed (issue 19 item 5). Before kinds, a pipe between two
// processes was two disk files (one per process and fd), /dev/null writes filled the page cache
// and every input was read cold.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "formats/import/import.h"
#include "replay/run.h"
#include "tests/formats/import/replay_imported.h"

namespace mmreplay::formats {
namespace {

replay::RunResult import_and_replay(std::string_view strace_text, const std::string& name,
                                    replay::CacheStart cache) {
  ImportedTrace trace;
  ImportReport report;
  Status s = import_text(ImportFormat::kStrace, name, strace_text, &trace, &report);
  EXPECT_TRUE(s) << s.message();
  replay::RunSpec spec;
  spec.policy_name = "default";
  spec.cache = cache;
  return testing::replay_imported(trace, name, spec);
}

// A parent maps 8 KiB, makes a pipe and forks; the child unmaps the inherited range, writes
// 256 KiB into the pipe and exits; the parent reads it to the end and waits (strace -f -ttt -T -y).
constexpr std::string_view kPipe =
    "10 1.000000 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = "
    "0x7f0000000000 <0.000002>\n"
    "10 1.000010 pipe2([3<pipe:[99]>, 4<pipe:[99]>], 0) = 0 <0.000002>\n"
    "10 1.000020 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
    "child_tidptr=0x7f00) = 11 <0.000050>\n"
    "10 1.000080 close(4<pipe:[99]>) = 0 <0.000001>\n"
    "11 1.000100 close(3<pipe:[99]>) = 0 <0.000001>\n"
    "11 1.000110 munmap(0x7f0000000000, 8192) = 0 <0.000003>\n"
    "11 1.000120 write(4<pipe:[99]>, \"ab\"..., 65536) = 65536 <0.000020>\n"
    "10 1.000130 read(3<pipe:[99]>, \"ab\"..., 65536) = 65536 <0.000100>\n"
    "11 1.000140 write(4<pipe:[99]>, \"ab\"..., 65536) = 65536 <0.000020>\n"
    "10 1.000250 read(3<pipe:[99]>, \"ab\"..., 65536) = 65536 <0.000010>\n"
    "11 1.000260 write(4<pipe:[99]>, \"ab\"..., 65536) = 65536 <0.000020>\n"
    "10 1.000290 read(3<pipe:[99]>, \"ab\"..., 65536) = 65536 <0.000010>\n"
    "11 1.000300 write(4<pipe:[99]>, \"ab\"..., 65536) = 65536 <0.000020>\n"
    "11 1.000330 exit_group(0) = ?\n"
    "11 1.000340 +++ exited with 0 +++\n"
    "10 1.000350 read(3<pipe:[99]>, \"ab\"..., 65536) = 65536 <0.000010>\n"
    "10 1.000370 read(3<pipe:[99]>, \"\", 65536) = 0 <0.000010>\n"
    "10 1.000390 wait4(11, NULL, 0, NULL) = 11 <0.000004>\n"
    "10 1.000400 exit_group(0) = ?\n"
    "10 1.000410 +++ exited with 0 +++\n";

TEST(FdReplay, APipeBetweenTwoProcessesMovesItsBytesWithoutThePageCache) {
  const replay::RunResult r = import_and_replay(kPipe, "pipe", replay::CacheStart::kAuto);
  EXPECT_EQ(r.counters.at("fault_segv"), 0u);
  EXPECT_EQ(r.counters.at("ops_failed"), 0u);
  EXPECT_EQ(r.counters.at("fd_io_pipe"), 9u);  // 4 writes, 5 reads
  EXPECT_EQ(r.counters.at("fd_io_regular"), 0u);
  EXPECT_EQ(r.counters.at("pgcache_miss"), 0u);
  EXPECT_EQ(r.counters.at("pgcache_warm"), 0u);
}

// The parent polls the pipe, woken when its child writes, and reads what the child wrote. Under
// the tracer the poll lasted 50 ms, though the child's write comes 0.1 ms after the clone (a
// recording whose writer the tracer held up: the replay takes perf's cost out of its gaps). The
// read's ordering edge (the write of its data) is what woke the poll: the parent goes on after
// the write, not after a 50 ms timer (python's multiprocessing result handler, event loops).
TEST(FdReplay, APollWokenByAPipeWriteEndsWithThatWrite) {
  constexpr std::string_view kPoll =
      "10 1.000010 pipe2([3<pipe:[99]>, 4<pipe:[99]>], 0) = 0 <0.000002>\n"
      "10 1.000020 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
      "child_tidptr=0x7f00) = 11 <0.000050>\n"
      "10 1.000080 close(4<pipe:[99]>) = 0 <0.000001>\n"
      "10 1.000090 poll([{fd=3<pipe:[99]>, events=POLLIN}], 1, -1) = 1 ([{fd=3, revents=POLLIN}]) "
      "<0.050000>\n"
      "11 1.000100 close(3<pipe:[99]>) = 0 <0.000001>\n"
      "11 1.000200 write(4<pipe:[99]>, \"ab\"..., 4096) = 4096 <0.000020>\n"
      "11 1.000230 exit_group(0) = ?\n"
      "10 1.050100 read(3<pipe:[99]>, \"ab\"..., 4096) = 4096 <0.000010>\n"
      "10 1.050120 wait4(11, NULL, 0, NULL) = 11 <0.000004>\n"
      "10 1.050130 exit_group(0) = ?\n";
  ImportReport report;
  const replay::RunResult r =
      testing::import_and_replay_text(ImportFormat::kStrace, "poll", kPoll, &report);
  EXPECT_EQ(report.readiness_waits_on_edges, 1u);
  EXPECT_EQ(r.counters.at("fd_io_pipe"), 2u);
  EXPECT_EQ(r.counters.at("fault_segv"), 0u);
  // About 0.3 ms: the child's write, then the read and the reap. 50 ms with the timer.
  EXPECT_LT(r.makespan_ns, 5'000'000u);
}

// cat of a 1 MiB input that existed, to /dev/null, in 64 KiB calls.
std::string cat_to_dev_null() {
  std::string text =
      "20 1.000000 openat(AT_FDCWD, \"/data/in\", O_RDONLY) = 3</data/in> <0.000002>\n"
      "20 1.000010 openat(AT_FDCWD, \"/dev/null\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = "
      "4</dev/null> <0.000002>\n";
  for (int i = 0; i < 16; ++i) {
    const double ts = 1.0001 + i * 1e-4;
    text += fmt::format("20 {:.6f} read(3</data/in>, \"ab\"..., 65536) = 65536 <0.000020>\n", ts);
    text += fmt::format("20 {:.6f} write(4</dev/null>, \"ab\"..., 65536) = 65536 <0.000002>\n",
                        ts + 5e-5);
  }
  return text + "20 1.003000 exit_group(0) = ?\n";
}

TEST(FdReplay, DevNullWritesAreSyscallsAndTheInputStartsWarmUnlessAskedCold) {
  const std::string text = cat_to_dev_null();
  const replay::RunResult warm = import_and_replay(text, "cat_auto", replay::CacheStart::kAuto);
  const replay::RunResult cold = import_and_replay(text, "cat_cold", replay::CacheStart::kCold);
  constexpr uint64_t kPages = (1 << 20) / 4096;
  EXPECT_EQ(warm.counters.at("fd_io_char"), 16u);
  EXPECT_EQ(warm.counters.at("fd_io_regular"), 16u);
  EXPECT_EQ(warm.counters.at("pgcache_miss"), 0u) << "/data/in existed: warm by default";
  EXPECT_EQ(warm.counters.at("pgcache_warm"), kPages) << "and no /dev/null page is among them";
  EXPECT_EQ(cold.counters.at("pgcache_miss"), kPages);
  EXPECT_EQ(cold.counters.at("pgcache_warm"), 0u);
  EXPECT_EQ(warm.counters.at("ops_failed"), 0u);
}

}  // namespace
}  // namespace mmreplay::formats
