#include "replay/chunk_cache.h"

#include <gtest/gtest.h>
#include <tbb/parallel_for.h>

#include "common/tsan_handoff.h"
#include "replay/event_stream.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::replay {
namespace {

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    formats::WriterOptions options;
    options.chunk_events = 32;
    trace_ = formats::testing::make_random_trace(41, 4, 400);
    formats::testing::write_trace(path_, trace_, options);
    Status status;
    reader_ = formats::TraceReader::open(path_, formats::ReaderOptions(), &status);
    ASSERT_TRUE(reader_) << status.message();
    ASSERT_EQ(reader_->chunks().size(), 4u * 13u);  // 400 = 12 x 32 + 16 per thread
  }
  std::string path_ = formats::testing::temp_path("cache.mmtrace");
  formats::testing::RandomTrace trace_;
  std::unique_ptr<formats::TraceReader> reader_;
};

TEST_F(CacheTest, SecondReaderOfAChunkIsAHitAndGetsTheSameObject) {
  ChunkCache cache(8);
  Status s;
  auto a = cache.get(*reader_, 3, &s);
  auto b = cache.get(*reader_, 3, &s);
  ASSERT_TRUE(a);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(cache.stats().misses, 1u);
  EXPECT_EQ(cache.stats().hits, 1u);
}

TEST_F(CacheTest, CapacityBoundsTheCacheAndEvictsLeastRecentlyUsed) {
  ChunkCache cache(3);
  Status s;
  for (uint32_t id : {0, 1, 2}) cache.get(*reader_, id, &s);
  cache.get(*reader_, 0, &s);  // 0 is now the most recent; 1 is the oldest
  cache.get(*reader_, 5, &s);  // evicts 1
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.stats().evictions, 1u);
  const uint64_t misses = cache.stats().misses;
  cache.get(*reader_, 0, &s);
  EXPECT_EQ(cache.stats().misses, misses);  // still cached
  cache.get(*reader_, 1, &s);
  EXPECT_EQ(cache.stats().misses, misses + 1);  // was evicted
}

TEST_F(CacheTest, ManyRunsOnManyWorkersDecodeEveryChunkExactlyOnce) {
  ChunkCache cache(1024);
  const uint32_t chunks = static_cast<uint32_t>(reader_->chunks().size());
  constexpr int kRuns = 8;
  // The launch and the join go through libtbb, which TSan cannot see (common/tsan_handoff.h).
  tsan_publish(&cache);
  tbb::parallel_for(0, kRuns, [&](int) {
    tsan_observe(&cache);
    for (uint32_t id = 0; id < chunks; ++id) {
      Status s;
      auto c = cache.get(*reader_, id, &s);
      ASSERT_TRUE(c) << s.message();
      EXPECT_EQ(c->ref, reader_->chunks()[id]);
    }
    tsan_publish(&cache);
  });
  tsan_observe(&cache);
  const ChunkCacheStats st = cache.stats();
  EXPECT_EQ(st.misses, chunks);
  EXPECT_EQ(st.hits + st.misses, uint64_t{kRuns} * chunks);
  EXPECT_DOUBLE_EQ(st.hit_rate(), 1.0 - 1.0 / kRuns);
}

TEST_F(CacheTest, StreamReadsThroughTheCacheEqualTheWrittenEvents) {
  ChunkCache cache(2);  // smaller than a stream: forces evictions while reading
  for (uint32_t s = 0; s < trace_.streams.size(); ++s) {
    EventStream stream(cache, *reader_, s);
    size_t i = 0;
    while (stream.next()) {
      ASSERT_LT(i, trace_.streams[s].events.size());
      formats::Event e = stream.event();
      e.range_begin = 0;
      e.range_count = 0;
      EXPECT_EQ(e, trace_.streams[s].events[i]);
      EXPECT_TRUE(std::equal(stream.ranges().begin(), stream.ranges().end(),
                             trace_.streams[s].ranges[i].begin(),
                             trace_.streams[s].ranges[i].end()));
      ++i;
    }
    EXPECT_TRUE(stream.status());
    EXPECT_EQ(i, trace_.streams[s].events.size());
  }
}

TEST_F(CacheTest, DecodeErrorIsReturnedNotCached) {
  ChunkCache cache(4);
  Status s;
  EXPECT_FALSE(cache.get(*reader_, 100000, &s));
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("no chunk 100000"), std::string::npos);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace mmreplay::replay
