// Generation speed of every workload (events/s into memory) and, written to a file through the
// TraceWriter, the trace's compressed size (bytes/event), at the small sizes of the tests.
//
//   build/.../bench/tools/gen_bench                      all workloads
//   build/.../bench/tools/gen_bench --benchmark_filter=jemalloc

#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tools/gen/event_sink.h"
#include "tools/gen/generate.h"
#include "tools/gen/registry.h"

namespace mmreplay::gen {
namespace {

// Arguments that make each workload a few hundred thousand events at most.
const std::map<std::string, std::vector<std::string>>& bench_args() {
  static const std::map<std::string, std::vector<std::string>> args = {
      {"madv-bomb", {"--scale", "small"}},
      {"jemalloc-purge", {"--threads", "8", "--loops", "20000", "--scale", "small"}},
      {"bulk-free", {"--threads", "8", "--scale", "medium"}},
      {"page-fault-scale", {"--scale", "small"}},
      {"parallel-dd", {"--scale", "small"}},
      {"cma-bh", {"--loops", "20000", "--lmbench"}},
      {"page_fault1", {"--scale", "small"}},
      {"page_fault2", {"--scale", "small"}},
      {"page_fault3", {"--scale", "small"}},
      {"tlb_flush1", {"--scale", "small"}},
      {"tlb_flush2", {}},
      {"tlb_flush3", {"--scale", "small"}},
      {"ebizzy", {"--loops", "2000", "--scale", "small"}},
      {"madvise-vector", {"--scale", "medium"}},
      {"mmap-munmap", {"--scale", "small"}},
  };
  return args;
}

void BM_GenerateToMemory(benchmark::State& state, std::string name) {
  PreparedWorkload prepared;
  Status status = prepare_workload(name, bench_args().at(name), "", &prepared);
  if (!status.is_ok()) {
    state.SkipWithError(status.message().c_str());
    return;
  }
  uint64_t events = 0;
  for (auto _ : state) {
    CollectingSink sink(/*keep_events=*/false);
    status = generate_to_sink(prepared, sink);
    events += sink.total();
    benchmark::DoNotOptimize(sink.total());
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

void BM_GenerateToFile(benchmark::State& state, std::string name) {
  std::string path =
      (std::filesystem::temp_directory_path() / ("gen_bench_" + name + ".mmtrace")).string();
  PreparedWorkload prepared;
  Status status = prepare_workload(name, bench_args().at(name), path, &prepared);
  if (!status.is_ok()) {
    state.SkipWithError(status.message().c_str());
    return;
  }
  GenStats stats;
  uint64_t events = 0;
  for (auto _ : state) {
    status = generate_to_file(prepared, path, formats::WriterOptions{}, &stats);
    if (!status.is_ok()) {
      state.SkipWithError(status.message().c_str());
      break;
    }
    events += stats.events;
  }
  std::filesystem::remove(path);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(stats.events);
  state.counters["bytes/event"] =
      stats.events == 0 ? 0.0
                        : static_cast<double>(stats.bytes) / static_cast<double>(stats.events);
}

[[maybe_unused]] const bool kRegistered = [] {
  for (const WorkloadSpec& spec : all_workloads()) {
    benchmark::RegisterBenchmark(("gen_memory/" + spec.name).c_str(), BM_GenerateToMemory,
                                 spec.name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("gen_file/" + spec.name).c_str(), BM_GenerateToFile, spec.name)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
}  // namespace mmreplay::gen
