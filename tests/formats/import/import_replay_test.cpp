// Recorded addresses replay where the kernel put them (issue 19 item 2): real recordings of
// mremap_move.c (8 steps; tests/fixtures/import/), whose mapping the kernel moves on every grow,
// imported and replayed. Before, each moved range was wherever the model chose, so every later
// fault in it was a SEGV and every later mremap of it failed.

#include <gtest/gtest.h>

#include "formats/import/import.h"
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

}  // namespace
}  // namespace mmreplay::formats
