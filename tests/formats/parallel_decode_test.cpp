#include "formats/parallel_decode.h"

#include <gtest/gtest.h>

#include <numeric>

#include "formats/trace_stats.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::formats {
namespace {

TEST(ParallelDecode, DeliversChunksInRequestedOrderForAnyWindow) {
  const std::string path = testing::temp_path("par.mmtrace");
  WriterOptions options;
  options.chunk_events = 50;
  const auto trace = testing::make_random_trace(31, 5, 400);
  testing::write_trace(path, trace, options);
  Status status;
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  // Request in reverse order to prove order follows the request, not completion.
  std::vector<uint32_t> ids(reader->chunks().size());
  std::iota(ids.rbegin(), ids.rend(), 0u);
  for (size_t window : {1, 2, 4, 16}) {
    std::vector<uint32_t> seen;
    ASSERT_TRUE(decode_in_order(*reader, ids, window, [&](const DecodedChunk& c) {
      const ChunkRef& want = reader->chunks()[ids[seen.size()]];
      EXPECT_EQ(c.ref, want);
      seen.push_back(ids[seen.size()]);
      return true;
    }));
    EXPECT_EQ(seen, ids) << "window " << window;
  }
}

TEST(ParallelDecode, SinkCanStopEarly) {
  const std::string path = testing::temp_path("stop.mmtrace");
  WriterOptions options;
  options.chunk_events = 10;
  testing::write_trace(path, testing::make_random_trace(32, 2, 200), options);
  Status status;
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader);
  std::vector<uint32_t> ids(reader->chunks().size());
  std::iota(ids.begin(), ids.end(), 0u);
  int calls = 0;
  EXPECT_TRUE(decode_in_order(*reader, ids, 4, [&](const DecodedChunk&) { return ++calls < 3; }));
  EXPECT_EQ(calls, 3);
}

TEST(TraceStats, CountsEveryKindAndThread) {
  const std::string path = testing::temp_path("stats.mmtrace");
  const auto trace = testing::make_random_trace(33, 4, 500);
  testing::write_trace(path, trace, WriterOptions());
  Status status;
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader);
  TraceStats stats;
  ASSERT_TRUE(compute_stats(*reader, &stats));
  std::array<uint64_t, kEventKindCount> kinds{};
  uint64_t ranges = 0;
  for (const auto& s : trace.streams) {
    for (size_t i = 0; i < s.events.size(); ++i) {
      ++kinds[static_cast<size_t>(s.events[i].kind)];
      ranges += s.ranges[i].size();
    }
  }
  EXPECT_EQ(stats.per_kind, kinds);
  EXPECT_EQ(stats.events, 2000u);
  EXPECT_EQ(stats.vector_ranges, ranges);
  EXPECT_EQ(stats.per_stream, (std::vector<uint64_t>{500, 500, 500, 500}));
  for (int k = 0; k < kEventKindCount; ++k) EXPECT_GT(stats.per_kind[k], 0u) << k;
}

}  // namespace
}  // namespace mmreplay::formats
