// Trace format throughput: writing, decoding with 1 and 2 workers, zstd alone on the same frames
// (the floor decoding is measured against), and bytes per event.
//
//   build/release/bench/formats/trace_io_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>
#include <zstd.h>

#include <filesystem>
#include <numeric>
#include <vector>

#include <capnp/serialize.h>
#include "bench/formats/mixed_workload.h"

#include "formats/chunk_codec.h"
#include "formats/frame_io.h"
#include "formats/parallel_decode.h"
#include "formats/trace_reader.h"

namespace mmreplay::bench {
namespace {

constexpr uint32_t kThreads = 8;
constexpr uint64_t kEventsPerThread = 250000;  // 2M events in all

const std::string& bench_trace() {
  static const std::string path = [] {
    auto p = std::filesystem::temp_directory_path() / "mmreplay-bench-mixed.mmtrace";
    write_mixed_trace(p.string(), kThreads, kEventsPerThread, formats::WriterOptions());
    return p.string();
  }();
  return path;
}

std::unique_ptr<formats::TraceReader> open_bench_trace() {
  Status status;
  auto reader = formats::TraceReader::open(bench_trace(), formats::ReaderOptions(), &status);
  if (!reader) std::abort();
  return reader;
}

void BM_Write(benchmark::State& state) {
  formats::WriterOptions options;
  options.zstd_level = static_cast<int>(state.range(0));
  const auto path = std::filesystem::temp_directory_path() / "mmreplay-bench-write.mmtrace";
  MixStats stats;
  for (auto _ : state) stats = write_mixed_trace(path.string(), kThreads, 50000, options);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * stats.events));
  state.counters["bytes_per_event"] =
      static_cast<double>(stats.file_bytes) / static_cast<double>(stats.events);
}
BENCHMARK(BM_Write)->Arg(3)->Arg(9)->Arg(19)->Unit(benchmark::kMillisecond);

// Sequential decode of every chunk on the calling thread.
void BM_Decode(benchmark::State& state) {
  auto reader = open_bench_trace();
  formats::DecodedChunk chunk;
  for (auto _ : state) {
    for (const auto& ref : reader->chunks()) {
      if (!reader->decode(ref, &chunk)) std::abort();
      benchmark::DoNotOptimize(chunk.events.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * reader->total_events()));
  state.counters["bytes_per_event"] =
      static_cast<double>(reader->file_size()) / static_cast<double>(reader->total_events());
}
BENCHMARK(BM_Decode)->Unit(benchmark::kMillisecond);

// decode_in_order on a TBB arena of N workers.
void BM_DecodeParallel(benchmark::State& state) {
  auto reader = open_bench_trace();
  std::vector<uint32_t> ids(reader->chunks().size());
  std::iota(ids.begin(), ids.end(), 0u);
  tbb::task_arena arena(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    arena.execute([&] {
      uint64_t n = 0;
      if (!formats::decode_in_order(*reader, ids, 4, [&](const formats::DecodedChunk& c) {
            n += c.events.size();
            return true;
          })) {
        std::abort();
      }
      benchmark::DoNotOptimize(n);
    });
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * reader->total_events()));
}
BENCHMARK(BM_DecodeParallel)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The column decode alone (decode_chunk on frames decompressed beforehand): what BM_Decode adds
// to BM_ZstdOnly, apart from Cap'n Proto's message setup.
void BM_DecodeColumnsOnly(benchmark::State& state) {
  auto reader = open_bench_trace();
  const auto bytes = reader->bytes();
  std::vector<formats::WordBuffer> frames(reader->chunks().size());
  for (size_t i = 0; i < frames.size(); ++i) {
    const auto& ref = reader->chunks()[i];
    if (!formats::decompress_frame(bytes.subspan(ref.offset, ref.size), ref.offset, 256ull << 20,
                                   &frames[i])) {
      std::abort();
    }
  }
  formats::DecodedChunk chunk;
  for (auto _ : state) {
    for (const formats::WordBuffer& words : frames) {
      capnp::FlatArrayMessageReader message(formats::as_words(words),
                                            formats::reader_options_for(words.size()));
      const auto root = message.getRoot<formats::capnp_schema::Frame>();
      if (!formats::decode_chunk(root.getChunk(), 0, &chunk)) std::abort();
      benchmark::DoNotOptimize(chunk.events.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * reader->total_events()));
}
BENCHMARK(BM_DecodeColumnsOnly)->Unit(benchmark::kMillisecond);

// zstd alone on the same frames: the floor for BM_Decode.
void BM_ZstdOnly(benchmark::State& state) {
  auto reader = open_bench_trace();
  std::vector<char> out(64 << 20);
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  const auto bytes = reader->bytes();
  for (auto _ : state) {
    for (const auto& ref : reader->chunks()) {
      const size_t n =
          ZSTD_decompressDCtx(dctx, out.data(), out.size(), bytes.data() + ref.offset, ref.size);
      if (ZSTD_isError(n)) std::abort();
      benchmark::DoNotOptimize(out.data());
    }
  }
  ZSTD_freeDCtx(dctx);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * reader->total_events()));
}
BENCHMARK(BM_ZstdOnly)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mmreplay::bench
