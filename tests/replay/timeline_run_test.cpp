// --timeline on a replay run (RunSpec::timeline_path): a generated jemalloc-purge trace (seed 002)
// replayed with a timeline gives a valid, nested file and the same results as without one.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "replay/run.h"
#include "tests/formats/random_trace.h"
#include "tests/replay/generated_trace.h"
#include "tests/replay/timeline_check.h"

namespace mmreplay::replay {
namespace {

std::unique_ptr<formats::TraceReader> generate_purge(const std::string& file) {
  const std::vector<std::string> params = {"--threads", "4", "--loops", "300", "--scale", "small"};
  return testing::open_trace(testing::generate_file("jemalloc-purge", params, file));
}

TEST(TimelineRun, ReplayWritesANestedTimelineAndTheSameResults) {
  auto reader = generate_purge("timeline-purge.mmtrace");
  ASSERT_TRUE(reader);
  ChunkCache cache(64);
  RunSpec spec;
  spec.policy_name = "default";
  spec.cpus = 4;
  RunResult plain;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &plain));

  spec.timeline_path = formats::testing::temp_path("timeline-purge.json");
  RunResult traced;
  const Status s = execute_run(spec, *reader, cache, &traced);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(traced.counters, plain.counters);
  EXPECT_EQ(traced.makespan_ns, plain.makespan_ns);
  EXPECT_EQ(traced.ops.at("madvise").count(), plain.ops.at("madvise").count());

  std::ifstream in(spec.timeline_path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const testing::TimelineSummary sum = testing::check_timeline(doc);
  EXPECT_GT(sum.slices, 0u);
  // Trace threads' tracks carry the recorded tid.
  size_t labelled = 0;
  for (const auto& [tid, name] : sum.thread_names) labelled += name.rfind("tid ", 0) == 0 ? 1 : 0;
  EXPECT_EQ(labelled, 4u);
  EXPECT_LE(static_cast<uint64_t>(sum.max_end), plain.makespan_ns);
  // Event counters are tracks under their results keys (common/counters.h); the last sample of
  // each is the run's figure. Counters the run never moved have no track.
  std::map<std::string, int64_t> last;
  for (const nlohmann::json& e : doc) {
    if (e.value("ph", "") == "C" && e["args"].contains("count")) {
      last[e["name"].get<std::string>()] = e["args"]["count"].get<int64_t>();
    }
  }
  for (const char* key : {"faults", "tlb_flush_calls", "tlb_ipis_sent", "busy_ns"}) {
    ASSERT_GT(plain.counters.at(key), 0u) << key;
    EXPECT_EQ(last[key], static_cast<int64_t>(plain.counters.at(key))) << key;
  }
  for (const auto& [key, value] : plain.counters) {
    if (value == 0) {
      EXPECT_EQ(last.count(key), 0u) << key;
    }
  }
  std::filesystem::remove(spec.timeline_path);
}

TEST(TimelineRun, UnwritablePathIsAnErrorNamingIt) {
  auto reader = generate_purge("timeline-purge2.mmtrace");
  ASSERT_TRUE(reader);
  ChunkCache cache(64);
  RunSpec spec;
  spec.policy_name = "default";
  spec.timeline_path = "/nonexistent-dir/t.json";
  RunResult r;
  const Status s = execute_run(spec, *reader, cache, &r);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("/nonexistent-dir/t.json"), std::string::npos) << s.message();
  EXPECT_EQ(s.code(), StatusCode::kIOError);
}

}  // namespace
}  // namespace mmreplay::replay
