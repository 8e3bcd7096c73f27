// Format figures on generated workloads (tools/gen): bytes per event and decode rate on one core,
// beside zstd alone on the same frames.
//
//   build/release/bench/formats/generated_trace_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>
#include <zstd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "formats/trace_reader.h"
#include "tools/gen/generate.h"

namespace mmreplay::bench {
namespace {

struct Case {
  const char* name;
  std::vector<std::string> params;
};

// Workloads whose traces are event-heavy (per-page or per-allocation loops), at sizes that make
// a few million events.
const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"jemalloc-purge", {"--threads", "8", "--loops", "50000"}},
      {"jemalloc-purge", {"--threads", "8", "--loops", "50000", "--vector", "on"}},
      {"tlb_flush1", {"--loops", "4", "--scale", "1/4"}},
      {"ebizzy", {"--threads", "8", "--loops", "4000"}},
      {"cma-bh", {}},
  };
  return kCases;
}

const formats::TraceReader& trace_for(size_t i) {
  static std::map<size_t, std::unique_ptr<formats::TraceReader>> readers;
  auto& r = readers[i];
  if (!r) {
    const Case& c = cases()[i];
    const auto path = std::filesystem::temp_directory_path() /
                      ("mmreplay-bench-gen-" + std::to_string(i) + ".mmtrace");
    gen::PreparedWorkload prepared;
    gen::GenStats stats;
    Status s = gen::prepare_workload(c.name, c.params, path.string(), &prepared);
    if (s) s = gen::generate_to_file(prepared, path.string(), formats::WriterOptions(), &stats);
    if (s) r = formats::TraceReader::open(path.string(), formats::ReaderOptions(), &s);
    if (!s || !r) {
      std::fprintf(stderr, "bench: %s: %s\n", c.name, s.message().c_str());
      std::exit(1);
    }
  }
  return *r;
}

void label(benchmark::State& state, size_t i) {
  std::string l = cases()[i].name;
  for (const auto& p : cases()[i].params) l += " " + p;
  state.SetLabel(l);
}

void BM_DecodeGenerated(benchmark::State& state) {
  const size_t i = static_cast<size_t>(state.range(0));
  const formats::TraceReader& reader = trace_for(i);
  formats::DecodedChunk chunk;
  for (auto _ : state) {
    for (const auto& ref : reader.chunks()) {
      if (!reader.decode(ref, &chunk)) std::abort();
      benchmark::DoNotOptimize(chunk.events.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * reader.total_events()));
  state.counters["events"] = static_cast<double>(reader.total_events());
  state.counters["bytes_per_event"] =
      static_cast<double>(reader.file_size()) / static_cast<double>(reader.total_events());
  label(state, i);
}
BENCHMARK(BM_DecodeGenerated)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

void BM_ZstdOnlyGenerated(benchmark::State& state) {
  const size_t i = static_cast<size_t>(state.range(0));
  const formats::TraceReader& reader = trace_for(i);
  std::vector<char> out(64 << 20);
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  const auto bytes = reader.bytes();
  for (auto _ : state) {
    for (const auto& ref : reader.chunks()) {
      const size_t n =
          ZSTD_decompressDCtx(dctx, out.data(), out.size(), bytes.data() + ref.offset, ref.size);
      if (ZSTD_isError(n)) std::abort();
      benchmark::DoNotOptimize(out.data());
    }
  }
  ZSTD_freeDCtx(dctx);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * reader.total_events()));
  label(state, i);
}
BENCHMARK(BM_ZstdOnlyGenerated)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mmreplay::bench
