// Seed 004 end to end: the cma-bh workload at its default size (4 file workers x 10,000 I/Os on
// 1 MiB files, an 8 KiB contiguous allocation every 10 ms held 1 ms) and a variant with an
// allocation every 100 us, generated once each, then replayed under each bh_invalidate policy.
// Reports host events/s and the model's figures (read latency, contiguous allocation latency,
// bh_lru misses, invalidation IPIs). Quoted, never asserted.
//
//   build/release/bench/replay/cma_bh_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "replay/chunk_cache.h"
#include "replay/policy_spec.h"
#include "replay/run.h"
#include "tools/gen/generate.h"

namespace mmreplay::bench {
namespace {

constexpr size_t kCacheChunks = 64;

std::unique_ptr<formats::TraceReader> generate(const char* file,
                                               const std::vector<std::string>& params) {
  const auto path = std::filesystem::temp_directory_path() / file;
  gen::PreparedWorkload prepared;
  gen::GenStats stats;
  Status s = gen::prepare_workload("cma-bh", params, path.string(), &prepared);
  if (s) s = gen::generate_to_file(prepared, path.string(), formats::WriterOptions(), &stats);
  std::unique_ptr<formats::TraceReader> r;
  if (s) r = formats::TraceReader::open(path.string(), formats::ReaderOptions(), &s);
  if (!r) {
    std::fprintf(stderr, "bench: %s\n", s.message().c_str());
    std::exit(1);
  }
  return r;
}

// The default size: ~10 ms of model time, so one allocation at 100/s.
const formats::TraceReader& default_trace() {
  static std::unique_ptr<formats::TraceReader> reader =
      generate("mmreplay-bench-cma-bh.mmtrace", {});
  return *reader;
}

// Minchan Kim's case: frequent small (8 KiB) allocations, one every 100 us held 20 us.
const formats::TraceReader& frequent_trace() {
  static std::unique_ptr<formats::TraceReader> reader = generate(
      "mmreplay-bench-cma-bh-frequent.mmtrace", {"--cma-rate", "10000", "--cma-hold", "20us"});
  return *reader;
}

void BM_CmaBh(benchmark::State& state, const formats::TraceReader& (*trace)(), const char* knobs) {
  replay::ChunkCache cache(kCacheChunks);
  replay::RunSpec spec;
  spec.policy_name = knobs;
  if (!replay::resolve_policy(knobs, &spec.config)) std::abort();
  replay::RunResult r;
  for (auto _ : state) {
    if (!replay::execute_run(spec, trace(), cache, &r)) std::abort();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * r.events_replayed));
  state.counters["read_p50_ns"] = static_cast<double>(r.ops.at("read").percentile(50));
  state.counters["read_p99_ns"] = static_cast<double>(r.ops.at("read").percentile(99));
  state.counters["contig_p50_ns"] = static_cast<double>(r.ops.at("contig_alloc").percentile(50));
  state.counters["contig_max_ns"] = static_cast<double>(r.ops.at("contig_alloc").max());
  state.counters["contig_allocs"] = static_cast<double>(r.counters.at("contig_allocs"));
  state.counters["contig_fails"] = static_cast<double>(r.counters.at("contig_alloc_fails"));
  state.counters["migrated"] = static_cast<double>(r.counters.at("pages_migrated"));
  state.counters["bh_misses"] = static_cast<double>(r.counters.at("bh_lru_misses"));
  state.counters["bh_ipis"] = static_cast<double>(r.counters.at("bh_invalidate_ipis"));
  state.counters["makespan_ms"] = static_cast<double>(r.makespan_ns) / 1e6;
}

BENCHMARK_CAPTURE(BM_CmaBh, default_all, default_trace, "bh_invalidate=all")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CmaBh, default_cond, default_trace, "bh_invalidate=cond")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CmaBh, default_selected, default_trace, "bh_invalidate=selected")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CmaBh, default_none, default_trace, "bh_invalidate=none")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CmaBh, default_drain, default_trace, "bh_invalidate=drain")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CmaBh, frequent_all, frequent_trace, "bh_invalidate=all")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CmaBh, frequent_cond, frequent_trace, "bh_invalidate=cond")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CmaBh, frequent_selected, frequent_trace, "bh_invalidate=selected")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CmaBh, frequent_none, frequent_trace, "bh_invalidate=none")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CmaBh, frequent_drain, frequent_trace, "bh_invalidate=drain")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mmreplay::bench
