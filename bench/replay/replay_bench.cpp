// Replay throughput: events/s of one run, and a study of 8 runs on 1, 2, ... host workers
// (parallel efficiency), with the shared chunk cache's hit rate and the peak RSS.
//
//   build/release/bench/replay/replay_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include "replay/policy_spec.h"
#include "replay/study.h"
#include "tools/gen/generate.h"

namespace mmreplay::bench {
namespace {

// jemalloc-purge (seed 002): allocation, touches and purges from 8 threads.
const formats::TraceReader& trace() {
  static std::unique_ptr<formats::TraceReader> reader = [] {
    const auto path = std::filesystem::temp_directory_path() / "mmreplay-bench-replay.mmtrace";
    gen::PreparedWorkload prepared;
    gen::GenStats stats;
    const std::vector<std::string> params = {"--threads", "8",       "--loops",
                                             "4000",      "--scale", "small"};
    Status s = gen::prepare_workload("jemalloc-purge", params, path.string(), &prepared);
    if (s) s = gen::generate_to_file(prepared, path.string(), formats::WriterOptions(), &stats);
    std::unique_ptr<formats::TraceReader> r;
    if (s) r = formats::TraceReader::open(path.string(), formats::ReaderOptions(), &s);
    if (!r) {
      std::fprintf(stderr, "bench: %s\n", s.message().c_str());
      std::exit(1);
    }
    return r;
  }();
  return *reader;
}

replay::Study study_of(size_t runs) {
  static const char* const kPolicies[] = {"per-call",  "vector",    "broadcast", "linux-3.16",
                                          "linux-4.5", "linux-6.6", "default",   "free"};
  replay::Study study;
  study.traces.push_back(&trace());
  for (size_t i = 0; i < runs; ++i) {
    replay::StudyRun run;
    run.spec.policy_name = kPolicies[i % 8];
    if (!replay::resolve_policy(run.spec.policy_name, &run.spec.config)) std::abort();
    run.spec.cpus = 8;
    study.runs.push_back(run);
  }
  return study;
}

// Runs `study` on `workers` host threads for every iteration; items are the events replayed.
replay::StudyResult time_study(benchmark::State& state, const replay::Study& study, int workers) {
  replay::StudyOptions options;
  options.threads = workers;
  replay::StudyResult result;
  for (auto _ : state) {
    if (!replay::run_study(study, options, &result)) std::abort();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * result.host.events_replayed));
  state.counters["workers"] = workers;
  return result;
}

void BM_Study(benchmark::State& state) {
  const size_t runs = static_cast<size_t>(state.range(0));
  const replay::StudyResult result =
      time_study(state, study_of(runs), static_cast<int>(state.range(1)));
  state.counters["runs"] = static_cast<double>(runs);
  state.counters["cache_hit_rate"] = result.host.cache.hit_rate();
  state.counters["peak_rss_MiB"] = static_cast<double>(replay::peak_rss_kb()) / 1024.0;
  state.counters["events"] = static_cast<double>(result.host.events_replayed);
}
BENCHMARK(BM_Study)
    ->Args({1, 1})
    ->Args({8, 1})
    ->Args({8, 2})
    ->Args({8, 4})
    ->Args({8, 8})
    ->Args({8, 16})
    // 16 runs (two of each policy) for scaling up to 16 host workers (the lent 16-core machine).
    ->Args({16, 1})
    ->Args({16, 2})
    ->Args({16, 4})
    ->Args({16, 8})
    ->Args({16, 16})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Host seconds of each of `study`'s runs replayed alone, as a one-run study on one worker.
std::vector<double> seconds_alone(const replay::Study& study) {
  std::vector<double> seconds;
  for (const replay::StudyRun& run : study.runs) {
    replay::Study one;
    one.traces = study.traces;
    one.runs = {run};
    replay::StudyOptions options;
    options.threads = 1;
    replay::StudyResult result;
    const auto t0 = std::chrono::steady_clock::now();
    if (!replay::run_study(one, options, &result)) std::abort();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return seconds;
}

// Four runs of unequal weight (the same trace on 8, 4, 2 and 1 simulated CPUs), as a compare
// across CPU counts makes: the study is as fast as its longest run, so it reaches linear
// scaling only if that run starts first (run_study schedules heaviest first).
// Counters: each run alone (longest_run_ms, runs_sum_ms), the best a schedule can do on these
// workers (bound_ms: the longest run, or the sum spread evenly, whichever is more), and how
// close the study came to it (of_bound) and to linear scaling (of_linear).
void BM_StudyUnequal(benchmark::State& state) {
  replay::Study study = study_of(4);
  const uint32_t cpus[] = {1, 2, 4, 8};  // listed lightest first, the worst order to start in
  for (size_t i = 0; i < study.runs.size(); ++i) study.runs[i].spec.cpus = cpus[i];
  const int workers = static_cast<int>(state.range(0));
  // Measured again for each Arg, just before its timing: on a VM whose speed drifts within a
  // minute, a bound taken earlier for another Arg put of_linear above 1 (1.03-1.13).
  const std::vector<double> alone = seconds_alone(study);
  const auto t0 = std::chrono::steady_clock::now();
  time_study(state, study, workers);
  const double per_iteration =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
      static_cast<double>(state.iterations());
  double longest = 0, sum = 0;
  for (double s : alone) {
    longest = std::max(longest, s);
    sum += s;
  }
  const double bound = std::max(longest, sum / workers);
  state.counters["longest_run_ms"] = longest * 1e3;
  state.counters["runs_sum_ms"] = sum * 1e3;
  state.counters["bound_ms"] = bound * 1e3;
  state.counters["of_bound"] = bound / per_iteration;
  state.counters["of_linear"] = sum / (workers * per_iteration);
}
BENCHMARK(BM_StudyUnequal)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace mmreplay::bench
