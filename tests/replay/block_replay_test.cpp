// A trace's block events (blocking syscalls) replay as sleep: the task is off its CPU for the
// recorded time and another task runs there meanwhile (issue 19, item 3).

#include <gtest/gtest.h>

#include "replay/run.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::replay {
namespace {

using formats::BlockCall;
namespace ev = formats::ev;

constexpr uint64_t kMs = 1'000'000;

// Two threads of one process: `sleeper` blocks 1 ms in nanosleep (or, without the block event,
// shows the same 1 ms as a plain gap: user time), `thinker` computes for 1 ms.
RunResult run_pair(bool with_block, uint32_t cpus) {
  const std::string path =
      formats::testing::temp_path(with_block ? "block.mmtrace" : "noblock.mmtrace");
  {
    formats::TraceMeta meta;
    meta.threads = {{1, 1, "sleeper"}, {2, 1, "thinker"}};
    Status s;
    auto w = formats::TraceWriter::create(path, meta, formats::WriterOptions(), &s);
    EXPECT_TRUE(w) << s.message();
    EXPECT_TRUE(w->append(0, ev::thread_start(0)));
    EXPECT_TRUE(w->append(1, ev::thread_start(0)));
    if (with_block) {
      EXPECT_TRUE(w->append(0, ev::block(10, BlockCall::kNanosleep, kMs)));
    }
    EXPECT_TRUE(w->append(0, ev::thread_exit(kMs + 10)));
    EXPECT_TRUE(w->append(1, ev::thread_exit(kMs)));
    EXPECT_TRUE(w->close());
  }
  Status s;
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
  EXPECT_TRUE(reader) << s.message();
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = cpus;
  RunResult r;
  EXPECT_TRUE(execute_run(spec, *reader, cache, &r));
  return r;
}

TEST(BlockReplay, BlockedTaskLeavesItsCpuToAnother) {
  // One CPU: the thinker runs while the sleeper sleeps, so the pair takes ~1 ms, not 2.
  const RunResult r = run_pair(true, 1);
  EXPECT_GE(r.makespan_ns, kMs);
  EXPECT_LT(r.makespan_ns, kMs + kMs / 10) << "blocked time replayed as CPU work";
  ASSERT_EQ(r.per_cpu.size(), 1u);
  EXPECT_LT(r.per_cpu[0].busy_ns, kMs + kMs / 10);  // only the thinker's millisecond is work
  EXPECT_EQ(r.counters.count("skipped_block"), 0u);
}

TEST(BlockReplay, TheSameGapWithoutBlockIsUserTimeAndSharesTheCpu) {
  // The control: the sleeper's millisecond as a plain gap is think time, so one CPU runs 2 ms.
  const RunResult r = run_pair(false, 1);
  EXPECT_GE(r.makespan_ns, 2 * kMs);
  // With a CPU each, both take ~1 ms either way.
  EXPECT_LT(run_pair(true, 2).makespan_ns, kMs + kMs / 10);
  EXPECT_LT(run_pair(false, 2).makespan_ns, kMs + kMs / 10);
}

}  // namespace
}  // namespace mmreplay::replay
