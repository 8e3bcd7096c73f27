// Studies: determinism across host threads, exact shard merges, .hgrm format, timing modes,
// bounded memory.

#include "replay/study.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/trace_hash.h"
#include "kernelsim/policy/presets.h"
#include "replay/hgrm.h"
#include "replay/policy_spec.h"
#include "replay/results_json.h"
#include "replay/running_kernel.h"
#include "tests/replay/generated_trace.h"

namespace mmreplay::replay {
namespace {

using testing::open_trace;

// The path of gen's workload `name` with `params`, in a file told apart by `tag`.
std::string generate_path(const std::string& name, const std::vector<std::string>& params,
                          const std::string& tag = "") {
  return testing::generate_file(name, params, name + tag + ".mmtrace");
}

Study make_study(const formats::TraceReader& reader, std::vector<std::string> policies,
                 std::vector<uint32_t> cpus) {
  Study study;
  study.traces.push_back(&reader);
  for (const auto& p : policies) {
    for (uint32_t c : cpus) {
      StudyRun run;
      run.spec.policy_name = p;
      EXPECT_TRUE(resolve_policy(p, &run.spec.config));
      run.spec.cpus = c;
      study.runs.push_back(run);
    }
  }
  return study;
}

nlohmann::json results(const Study& study, int threads, Shard shard = {}) {
  StudyOptions options;
  options.threads = threads;
  options.shard = shard;
  StudyResult result;
  Status s = run_study(study, options, &result);
  EXPECT_TRUE(s) << s.message();
  nlohmann::json j =
      study_to_json(StudyInfo{"compare", {}, study.runs.size(), shard}, study, result);
  return j;
}

TEST(Study, OneAndTwoHostThreadsGiveByteIdenticalResults) {
  auto reader = open_trace(
      generate_path("jemalloc-purge", {"--threads", "4", "--loops", "400", "--scale", "small"}));
  const Study study =
      make_study(*reader, {"per-call", "vector", "linux-4.5+tlb=broadcast"}, {2, 4});
  nlohmann::json one = results(study, 1), two = results(study, 2);
  one.erase("host");
  two.erase("host");
  EXPECT_EQ(one.dump(), two.dump());
  EXPECT_EQ(one["runs"].size(), 6u);
}

TEST(Study, ShardsMergeToTheUnshardedStudy) {
  auto reader = open_trace(
      generate_path("mmap-munmap", {"--threads", "3", "--loops", "10", "--size", "128K"}));
  const Study study = make_study(*reader, {"default", "linux-3.16"}, {1, 2, 4});
  nlohmann::json whole = results(study, 2);
  std::vector<std::string> files;
  for (uint32_t i = 1; i <= 3; ++i) {
    files.push_back(formats::testing::temp_path("shard" + std::to_string(i) + ".json"));
    std::ofstream(files.back()) << results(study, 1, Shard{i, 3}).dump();
  }
  nlohmann::json merged;
  ASSERT_TRUE(merge_results(files, &merged));
  whole.erase("host");
  merged.erase("host");
  EXPECT_EQ(whole.dump(), merged.dump());
  // A missing shard is an error, not a smaller study.
  files.pop_back();
  nlohmann::json partial;
  Status s = merge_results(files, &partial);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("a shard is missing"), std::string::npos) << s.message();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

// Issue 18: a study is as fast as its slowest run, so the heaviest runs (events x CPUs) start
// first; equal runs keep the study's order, the same on every host.
TEST(Study, HeaviestRunsStartFirst) {
  auto small = open_trace(generate_path("mmap-munmap", {"--threads", "2", "--loops", "5"}));
  auto large = open_trace(generate_path("mmap-munmap", {"--threads", "2", "--loops", "50"}));
  ASSERT_GT(large->total_events(), 4 * small->total_events());
  Study study;
  study.traces = {small.get(), large.get()};
  auto add = [&study](size_t trace, uint32_t cpus) {
    StudyRun run;
    run.trace = trace;
    run.spec.cpus = cpus;
    study.runs.push_back(run);
  };
  add(0, 2);  // the lightest
  add(1, 8);  // the heaviest
  add(0, 4);
  add(1, 8);  // as heavy as run 1: after it
  add(1, 1);
  EXPECT_EQ(heaviest_first(study, {0, 1, 2, 3, 4}), (std::vector<size_t>{1, 3, 4, 2, 0}));
  // A shard orders its own runs; positions are into its run_index.
  EXPECT_EQ(heaviest_first(study, {0, 2, 4}), (std::vector<size_t>{2, 1, 0}));
}

// A host counter written as a float past uint64_t's range (2.7e115) was cast to an integer,
// which is undefined behaviour; a fractional schema was truncated to 1. Both are damage.
TEST(Study, MergeRefusesHostCountersAndSchemaThatAreNotWholeNumbers) {
  auto reader = open_trace(generate_path("mmap-munmap", {"--threads", "2", "--loops", "5"}));
  const Study study = make_study(*reader, {"default"}, {1});
  const nlohmann::json good = results(study, 1);
  struct Damage {
    const char* field;
    nlohmann::json value;
  };
  for (const Damage& d : {Damage{"events_replayed", 2.7e115}, Damage{"cache_hits", -3},
                          Damage{"peak_rss_kb", 1.5}, Damage{"wall_seconds", "soon"}}) {
    nlohmann::json bad = good;
    bad["host"][d.field] = d.value;
    const std::string path = formats::testing::temp_path("bad-host.json");
    std::ofstream(path) << bad.dump();
    nlohmann::json merged;
    const Status s = merge_results({path}, &merged);
    EXPECT_FALSE(s) << d.field;
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << d.field;
    EXPECT_NE(s.message().find(path + ": malformed results (host." + d.field), std::string::npos)
        << s.message();
  }
  nlohmann::json bad = good;
  bad["schema"] = 1.5;
  const std::string path = formats::testing::temp_path("bad-schema.json");
  std::ofstream(path) << bad.dump();
  nlohmann::json merged;
  EXPECT_FALSE(merge_results({path}, &merged));
}

// Issue 15: shards of different studies (here --cpus 4 and --cpus 8) were merged silently.
TEST(Study, MergeRefusesShardsOfAnotherStudyAndNamesTheDifference) {
  auto reader =
      open_trace(generate_path("mmap-munmap", {"--threads", "2", "--loops", "5", "--size", "64K"}));
  const Study four = make_study(*reader, {"default", "linux-3.16"}, {4});
  const Study eight = make_study(*reader, {"default", "linux-3.16"}, {8});
  const Study other_policy = make_study(*reader, {"default", "linux-4.5"}, {4});
  auto write = [](const std::string& name, const nlohmann::json& j) {
    const std::string path = formats::testing::temp_path(name);
    std::ofstream(path) << j.dump();
    return path;
  };
  const std::string a = write("id-a.json", results(four, 1, Shard{1, 2}));
  nlohmann::json merged;
  Status s = merge_results({a, write("id-b.json", results(eight, 1, Shard{2, 2}))}, &merged);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  EXPECT_NE(s.message().find("run 1: cpus 4 vs 8"), std::string::npos) << s.message();
  merged = nlohmann::json();
  s = merge_results({a, write("id-c.json", results(other_policy, 1, Shard{2, 2}))}, &merged);
  EXPECT_NE(s.message().find("run 2: policy \"linux-3.16\" vs \"linux-4.5\""), std::string::npos)
      << s.message();
  merged = nlohmann::json();
  s = merge_results({a, write("id-d.json", results(four, 1, Shard{2, 3}))}, &merged);
  EXPECT_NE(s.message().find("shard count 2 vs 3"), std::string::npos) << s.message();
  Study on_zram = make_study(*reader, {"default", "linux-3.16"}, {4});
  for (StudyRun& run : on_zram.runs) run.spec.swap_device = "zram";
  merged = nlohmann::json();
  s = merge_results({a, write("id-e.json", results(on_zram, 1, Shard{2, 2}))}, &merged);
  EXPECT_NE(s.message().find("run 1: swap_device \"\" vs \"zram\""), std::string::npos)
      << s.message();
}

// Issue 15: merge compares what was replayed, not where the file lay. A copy of the trace
// elsewhere merges; another trace is named by its content hash first.
TEST(Study, MergeComparesTheTraceContentNotItsPath) {
  const std::vector<std::string> params = {"--threads", "2", "--loops", "5", "--size", "64K"};
  const std::string path = generate_path("mmap-munmap", params, "-orig");
  const std::string copy = formats::testing::temp_path("mmap-munmap-copy.mmtrace");
  std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
  auto a = open_trace(path), b = open_trace(copy);
  auto c = open_trace(
      generate_path("mmap-munmap", {"--threads", "2", "--loops", "6", "--size", "64K"}, "-6"));
  auto write = [](const std::string& name, const nlohmann::json& j) {
    const std::string out = formats::testing::temp_path(name);
    std::ofstream(out) << j.dump();
    return out;
  };
  const std::string first =
      write("hash-a.json", results(make_study(*a, {"default", "linux-3.16"}, {2}), 1, {1, 2}));
  nlohmann::json merged;
  Status s = merge_results(
      {first,
       write("hash-b.json", results(make_study(*b, {"default", "linux-3.16"}, {2}), 1, {2, 2}))},
      &merged);
  EXPECT_TRUE(s) << s.message();
  merged = nlohmann::json();
  s = merge_results(
      {first,
       write("hash-c.json", results(make_study(*c, {"default", "linux-3.16"}, {2}), 1, {2, 2}))},
      &merged);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  EXPECT_NE(s.message().find("trace 1 content_hash: \"" + formats::trace_content_hash(*a) +
                             "\" vs \"" + formats::trace_content_hash(*c) + "\""),
            std::string::npos)
      << s.message();
}

// A study whose runs fail on one trace and finish on another: run_status says which, the JSON
// marks the failed runs without figures, and merge and report refuse the file.
TEST(Study, FailedRunsAreMarkedAndMergeRefusesThem) {
  const std::string good =
      generate_path("mmap-munmap", {"--threads", "2", "--loops", "5", "--size", "64K"}, "-good");
  std::string bytes = formats::testing::read_file(good);
  const std::string bad = formats::testing::temp_path("study-bad.mmtrace");
  auto sound = open_trace(good);
  const formats::ChunkRef& victim = sound->chunks().front();
  bytes[victim.offset + victim.size / 2] ^= 0x21;
  formats::testing::write_file(bad, bytes);
  auto damaged = open_trace(bad);
  ASSERT_TRUE(damaged);
  Study study = make_study(*sound, {"default"}, {2});
  Study other = make_study(*damaged, {"default"}, {2});
  study.traces.push_back(damaged.get());
  study.runs.push_back(other.runs.front());
  study.runs.back().trace = 1;
  StudyOptions options;
  options.threads = 2;
  StudyResult result;
  const Status s = run_study(study, options, &result);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("run 2 (default)"), std::string::npos) << s.message();
  ASSERT_EQ(result.run_status.size(), 2u);
  EXPECT_TRUE(result.run_status[0]);
  EXPECT_FALSE(result.run_status[1]);
  EXPECT_FALSE(result.all_ok());
  const nlohmann::json j = study_to_json(StudyInfo{"compare", {}, 2, {}}, study, result);
  EXPECT_FALSE(j["runs"][0].contains("failed"));
  EXPECT_TRUE(j["runs"][1].contains("failed"));
  EXPECT_FALSE(j["runs"][1].contains("ops"));
  const std::string path = formats::testing::temp_path("partial.json");
  std::ofstream(path) << j.dump();
  nlohmann::json merged;
  const Status m = merge_results({path}, &merged);
  EXPECT_EQ(m.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.message().find("run 2 failed and holds no results"), std::string::npos)
      << m.message();
}

// A results file of the right schema but without a study section, or with fields of the wrong
// type, is a damaged file (exit 2), not an uncaught exception.
TEST(Study, MergeRefusesMalformedResults) {
  const std::string path = formats::testing::temp_path("malformed.json");
  for (const char* text :
       {R"({"schema":1,"runs":[]})", R"({"schema":1,"runs":[],"traces":[],"study":{"command":1}})",
        R"({"schema":1,"runs":[{"index":"x"}],"traces":[],"study":{"command":"compare",)"
        R"("runs_total":1,"identity":{"shards":1,"runs":[]}}})",
        R"({"schema":1,"runs":[{"index":0}],"traces":[],"study":{"command":"compare",)"
        R"("runs_total":1,"identity":{"shards":1,"runs":[]}},"host":{"wall_seconds":"x"}})"}) {
    std::ofstream(path) << text;
    nlohmann::json merged;
    const Status s = merge_results({path}, &merged);
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << text << ": " << s.message();
    EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  }
}

TEST(Study, HgrmFollowsTheHdrHistogramLayout) {
  kernelsim::Histogram h;
  for (uint64_t v = 1; v <= 1000; ++v) h.record(v * 1000);  // 1 us .. 1 ms
  std::ostringstream out;
  write_hgrm(out, h);
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "       Value     Percentile TotalCount 1/(1-Percentile)");
  std::getline(in, line);
  EXPECT_EQ(line, "");
  int rows = 0, footers = 0;
  double last_p = 0;
  uint64_t last_count = 0;
  while (std::getline(in, line)) {
    if (line.rfind("#[", 0) == 0) {
      ++footers;
      continue;
    }
    std::istringstream row(line);
    double value, p;
    uint64_t count;
    std::string inv;
    ASSERT_TRUE(row >> value >> p >> count >> inv) << line;
    EXPECT_GE(p, last_p);
    EXPECT_GE(count, last_count);
    last_p = p;
    last_count = count;
    ++rows;
  }
  EXPECT_GT(rows, 10);
  EXPECT_EQ(footers, 3);
  EXPECT_EQ(last_count, 1000u);
  EXPECT_DOUBLE_EQ(last_p, 1.0);
  EXPECT_NE(out.str().find("Total count    =         1000"), std::string::npos);
}

TEST(Study, OpenLoopStartsAtTraceTimestampsClosedLoopAfterThinkTime) {
  // One thread: mmap, then a madvise 1 ms later in trace time. Closed loop: the madvise starts
  // 1 ms after the mmap *ended* in the model; open loop: at 1 ms sharp (it is never late here).
  const std::string path = formats::testing::temp_path("timing.mmtrace");
  {
    formats::TraceMeta meta;
    meta.threads = {{1, 1, "t"}};
    Status s;
    auto w = formats::TraceWriter::create(path, meta, formats::WriterOptions(), &s);
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->append(0, formats::ev::mmap(1000, 0x7f0000000000, 1 << 20, 3, 0x22)));
    ASSERT_TRUE(w->append(
        0, formats::ev::madvise(1001000, 0x7f0000000000, 1 << 20, formats::kMadvDontNeed)));
    ASSERT_TRUE(w->close());
  }
  auto reader = open_trace(path);
  ChunkCache cache(4);
  RunSpec closed, opened;
  opened.timing = Timing::kOpen;
  RunResult c, o;
  ASSERT_TRUE(execute_run(closed, *reader, cache, &c));
  ASSERT_TRUE(execute_run(opened, *reader, cache, &o));
  const uint64_t mmap_ns = c.ops.at("mmap").max();
  const uint64_t madvise_ns = c.ops.at("madvise").max();
  ASSERT_GT(mmap_ns, 0u);
  EXPECT_EQ(o.ops.at("madvise").max(), madvise_ns);
  // Closed loop: the madvise starts 1 ms after the mmap ended, so the mmap's latency delays it;
  // open loop: it starts at its timestamp whatever the mmap took.
  // (The first op of a task also waits for the task's start-up work; open loop reports that as
  // lateness of the mmap.)
  EXPECT_EQ(c.makespan_ns - o.makespan_ns, mmap_ns + o.open_loop_lateness.max());
  EXPECT_GT(c.makespan_ns, 1000000 + mmap_ns + madvise_ns);
  // Open loop records how late each op started: the madvise was on time.
  EXPECT_EQ(o.open_loop_lateness.count(), 2u);
  EXPECT_EQ(o.open_loop_lateness.min(), 0u);
}

TEST(Study, PeakMemoryDoesNotGrowWithTraceLength) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer runtimes keep freed memory in quarantine: peak RSS says nothing here";
#endif
  // Replaying a 10x longer trace must not need 10x the memory: chunks stream through the cache.
  auto small =
      open_trace(generate_path("tlb_flush2", {"--processes", "2", "--loops", "20"}, "small"));
  auto large =
      open_trace(generate_path("tlb_flush2", {"--processes", "2", "--loops", "200"}, "large"));
  ASSERT_GE(large->total_events(), 9 * small->total_events());
  StudyOptions options;
  options.threads = 1;
  options.cache_chunks = 4;
  StudyResult a, b;
  ASSERT_TRUE(run_study(make_study(*small, {"default"}, {2}), options, &a));
  const uint64_t rss_small = peak_rss_kb();
  ASSERT_TRUE(run_study(make_study(*large, {"default"}, {2}), options, &b));
  const uint64_t rss_large = peak_rss_kb();
  EXPECT_EQ(b.host.events_replayed, large->total_events());
  EXPECT_LE(static_cast<double>(rss_large), 1.5 * static_cast<double>(rss_small))
      << "peak RSS " << rss_small << " kB -> " << rss_large << " kB";
}

TEST(PolicySpec, ResolvesUpFrontAndNamesTheFlag) {
  kernelsim::KernelConfig config;
  ASSERT_TRUE(resolve_policy("linux-4.5+madvise=vector", &config));
  EXPECT_EQ(config.madvise, kernelsim::MadviseVectorMode::kVector);
  Status s = resolve_policy("linux-9.9", &config);
  EXPECT_NE(s.message().find("--policy 'linux-9.9': no preset 'linux-9.9'"), std::string::npos)
      << s.message();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(split_policy_list({"a,b", "c"}), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_policy_list({}), (std::vector<std::string>{"default"}));
  EXPECT_FALSE(resolve_policy(split_policy_list({""}).front(), &config));
}

// "running-kernel" is this machine's release preset, overrides and rewrites after it included; a
// spec that only mentions it elsewhere is not rewritten.
TEST(PolicySpec, RunningKernelIsThisMachinesReleasePreset) {
  const std::string preset = kernelsim::kernel_release_preset(running_kernel_release());
  kernelsim::KernelConfig running, named;
  TraceRewrites running_rewrites, named_rewrites;
  if (preset.empty()) {
    const Status s = resolve_policy("running-kernel", &running);
    EXPECT_NE(s.message().find("names no kernel preset"), std::string::npos) << s.message();
    GTEST_SKIP() << "this machine's release '" << running_kernel_release() << "' names no preset";
  }
  ASSERT_TRUE(resolve_policy("running-kernel+tlb=broadcast+purge_advice=free", &running,
                             &running_rewrites));
  ASSERT_TRUE(resolve_policy(preset + "+tlb=broadcast+purge_advice=free", &named, &named_rewrites));
  EXPECT_EQ(kernelsim::format_knobs(running), kernelsim::format_knobs(named));
  EXPECT_EQ(format_rewrites(running_rewrites), format_rewrites(named_rewrites));
  EXPECT_EQ(describe_policy("running-kernel"),
            "running-kernel (" + preset + ", kernel " + running_kernel_release() + ")");
  EXPECT_EQ(describe_policy("linux-6.6"), "linux-6.6");
  const Status s = resolve_policy("linux-6.6+running-kernel", &running);
  EXPECT_FALSE(s) << "a preset after the first item is no preset";
}

// "recorded-kernel" is the trace's kernel: refused where no trace is, checked before one is read,
// and resolved with the trace's recorder release.
TEST(PolicySpec, RecordedKernelIsTheTracesReleasePreset) {
  kernelsim::KernelConfig config, named;
  TraceRewrites rewrites, named_rewrites;
  Status s = resolve_policy("recorded-kernel", &config);
  EXPECT_NE(s.message().find("resolved where a recording is replayed"), std::string::npos)
      << s.message();
  EXPECT_TRUE(check_recorded_kernel_spec("recorded-kernel+tlb=broadcast+purge_advice=free"));
  EXPECT_TRUE(check_recorded_kernel_spec("linux-6.6"));
  s = check_recorded_kernel_spec("recorded-kernel+bogus=1");
  EXPECT_NE(s.message().find("--policy 'recorded-kernel+bogus=1': unknown policy knob 'bogus'"),
            std::string::npos)
      << s.message();
  ASSERT_TRUE(resolve_recorded_policy("recorded-kernel+tlb=broadcast+purge_advice=free",
                                      "6.8.0-45-generic", &config, &rewrites));
  ASSERT_TRUE(resolve_policy("linux-6.6+tlb=broadcast+purge_advice=free", &named, &named_rewrites));
  EXPECT_EQ(kernelsim::format_knobs(config), kernelsim::format_knobs(named));
  EXPECT_EQ(format_rewrites(rewrites), format_rewrites(named_rewrites));
  s = resolve_recorded_policy("recorded-kernel", "", &config, &rewrites);
  EXPECT_NE(s.message().find("the trace names no kernel it was recorded on"), std::string::npos)
      << s.message();
  ASSERT_TRUE(resolve_recorded_policy("linux-3.16", "6.18.1", &config, &rewrites))
      << "a spec that names no pseudo-preset is itself";
  ASSERT_TRUE(resolve_policy("linux-3.16", &named, &named_rewrites));
  EXPECT_EQ(kernelsim::format_knobs(config), kernelsim::format_knobs(named));
}

}  // namespace
}  // namespace mmreplay::replay
