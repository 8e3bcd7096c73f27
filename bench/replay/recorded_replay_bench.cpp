// Replay of recorded programs (issue 18, goal 4): events/s of one run on one host core, for
// traces that `trace-replay record` made of tests/real's programs (bench/fixtures/recorded).
// Each iteration is a whole run in this process (the simulation built, the trace decoded and
// replayed), so it leaves out only the process start-up that `trace-replay replay` adds.
//
//   build/release/bench/replay/recorded_replay_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "replay/policy_spec.h"
#include "replay/study.h"

namespace mmreplay::bench {
namespace {

// The recordings, in bench/fixtures/recorded (README.md there says how they were made).
const char* const kRecordings[] = {"idle_thread", "fork_touch", "pmadv_dontneed",
                                   "socket_pair_stream"};

const formats::TraceReader& recording(size_t i) {
  static std::unique_ptr<formats::TraceReader> readers[std::size(kRecordings)];
  if (!readers[i]) {
    const std::string path = std::string(MMREPLAY_RECORDED_DIR) + "/" + kRecordings[i] + ".mmtrace";
    Status s;
    readers[i] = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
    if (!readers[i]) {
      std::fprintf(stderr, "bench: %s\n", s.message().c_str());
      std::exit(1);
    }
  }
  return *readers[i];
}

// One run of recording range(0) as `replay` runs it: the recording's CPUs and memory, the
// default policy and profile, one host worker.
void BM_ReplayRecorded(benchmark::State& state) {
  const auto i = static_cast<size_t>(state.range(0));
  replay::Study study;
  study.traces.push_back(&recording(i));
  replay::StudyRun run;
  run.spec.policy_name = "default";
  if (!replay::resolve_policy(run.spec.policy_name, &run.spec.config)) std::abort();
  study.runs.push_back(run);
  replay::StudyOptions options;
  options.threads = 1;
  replay::StudyResult result;
  for (auto _ : state) {
    if (!replay::run_study(study, options, &result)) std::abort();
  }
  state.SetLabel(kRecordings[i]);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * result.host.events_replayed));
  state.counters["events"] = static_cast<double>(result.host.events_replayed);
}
BENCHMARK(BM_ReplayRecorded)
    ->DenseRange(0, std::size(kRecordings) - 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace mmreplay::bench
