// Byte-exact round trips: what the writer is given, the reader returns; writing what was read
// gives the same file again.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::formats {
namespace {

using testing::make_random_trace;
using testing::RandomTrace;
using testing::read_trace;
using testing::temp_path;
using testing::write_trace;

void expect_same(const RandomTrace& a, const RandomTrace& b) {
  EXPECT_EQ(a.meta, b.meta);
  ASSERT_EQ(a.streams.size(), b.streams.size());
  for (size_t s = 0; s < a.streams.size(); ++s) {
    ASSERT_EQ(a.streams[s].events.size(), b.streams[s].events.size()) << "stream " << s;
    for (size_t i = 0; i < a.streams[s].events.size(); ++i) {
      ASSERT_EQ(a.streams[s].events[i], b.streams[s].events[i]) << "stream " << s << " event " << i;
      ASSERT_EQ(a.streams[s].ranges[i], b.streams[s].ranges[i]) << "stream " << s << " event " << i;
    }
  }
}

struct Shape {
  uint64_t seed;
  uint32_t threads;
  uint32_t events;
  uint32_t chunk_events;
};

class RoundTrip : public ::testing::TestWithParam<Shape> {};

TEST_P(RoundTrip, EventsComeBackExactlyAndRewriteIsByteIdentical) {
  const Shape shape = GetParam();
  const RandomTrace trace = make_random_trace(shape.seed, shape.threads, shape.events);
  WriterOptions options;
  options.chunk_events = shape.chunk_events;
  const std::string first = temp_path("first.mmtrace");
  write_trace(first, trace, options);
  const RandomTrace back = read_trace(first);
  expect_same(trace, back);

  const std::string second = temp_path("second.mmtrace");
  write_trace(second, back, options);
  EXPECT_EQ(testing::read_file(first), testing::read_file(second));
  std::filesystem::remove(first);
  std::filesystem::remove(second);
}

INSTANTIATE_TEST_SUITE_P(Shapes, RoundTrip,
                         ::testing::Values(Shape{1, 1, 20, 8192}, Shape{2, 4, 1000, 64},
                                           Shape{3, 7, 5000, 8192}, Shape{4, 2, 3000, 1},
                                           Shape{5, 16, 700, 100}));

TEST(RoundTripEdges, EmptyTraceHasHeaderAndIndexOnly) {
  RandomTrace trace;
  trace.meta.recorder.tool = "empty";
  const std::string path = temp_path("empty.mmtrace");
  write_trace(path, trace, WriterOptions());
  Status status;
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  EXPECT_FALSE(reader->recovered());
  EXPECT_EQ(reader->chunks().size(), 0u);
  EXPECT_EQ(reader->total_events(), 0u);
  EXPECT_EQ(reader->meta().recorder.tool, "empty");
}

TEST(RoundTripEdges, ThreadWithZeroEventsKeepsItsTableEntry) {
  RandomTrace trace = make_random_trace(9, 3, 50);
  trace.streams[1].events.clear();
  trace.streams[1].ranges.clear();
  const std::string path = temp_path("zero.mmtrace");
  write_trace(path, trace, WriterOptions());
  const RandomTrace back = read_trace(path);
  expect_same(trace, back);
  EXPECT_EQ(back.meta.threads[1].name, "thread-1");
}

TEST(RoundTripEdges, TenThousandThreads) {
  const RandomTrace trace = make_random_trace(10, 10000, 2);
  const std::string path = temp_path("10k.mmtrace");
  write_trace(path, trace, WriterOptions());
  const RandomTrace back = read_trace(path);
  expect_same(trace, back);
}

TEST(RoundTripEdges, HugeAddressesLengthsAndDurations) {
  RandomTrace trace;
  trace.meta.threads = {{1, 1, "t"}};
  trace.streams.resize(1);
  const uint64_t max = ~uint64_t{0};
  auto add = [&](Event e, std::vector<Range> r = {}) {
    trace.streams[0].events.push_back(e);
    trace.streams[0].ranges.push_back(std::move(r));
  };
  add(ev::mmap(0, max - 4095, 4096, 7, 0xffffffffu, max, max));
  add(ev::munmap(0, 0, max));
  add(ev::mremap(1, max, max, 0, max, max));
  Event fault = ev::page_fault(max - 1, max, true, true);
  fault.duration_ns = max - 1;  // the largest observable duration
  add(fault);
  add(ev::madvise_vector(max, kMadvFree), {{max, max}, {0, 0}, {max, 1}});
  const std::string path = temp_path("huge.mmtrace");
  write_trace(path, trace, WriterOptions());
  expect_same(trace, read_trace(path));
}

// Format 1.2: a block event keeps its call and its duration (the blocked time); one the capture
// did not time keeps no duration; the file says 1.2.
TEST(RoundTripEdges, BlockEventsKeepCallAndDuration) {
  RandomTrace trace;
  trace.meta.threads = {{1, 1, "sleeper"}, {2, 1, "waiter"}};
  trace.streams.resize(2);
  auto add = [&](uint32_t s, Event e) {
    trace.streams[s].events.push_back(e);
    trace.streams[s].ranges.emplace_back();
  };
  add(0, ev::block(1000, BlockCall::kNanosleep, 1'000'000'000));
  add(0, ev::block(1'000'002'000, BlockCall::kClockNanosleep, 0));
  add(1, ev::block(1500, BlockCall::kFutex, 999'999'000));
  add(1, ev::block(1'000'001'000, BlockCall::kWait4, kNoDuration));
  add(1, ev::block(1'000'003'000, BlockCall::kWaitid, ~uint64_t{0} - 1));
  const std::string path = temp_path("block.mmtrace");
  write_trace(path, trace, WriterOptions());
  const RandomTrace back = read_trace(path);
  expect_same(trace, back);
  EXPECT_EQ(back.meta.version_major, 1);
  EXPECT_EQ(back.meta.version_minor, kFormatVersionMinor);
  EXPECT_EQ(back.streams[0].events[0].kind, EventKind::kBlock);
  EXPECT_EQ(back.streams[1].events[0].arg0, static_cast<uint64_t>(BlockCall::kFutex));
  EXPECT_FALSE(back.streams[1].events[1].has_duration());
  std::filesystem::remove(path);
}

TEST(RoundTripEdges, ThreadsAddedAfterTheHeaderReachTheReaderThroughTheIndex) {
  const std::string path = temp_path("late.mmtrace");
  Status status;
  WriterOptions options;
  options.chunk_events = 2;
  TraceMeta meta;
  meta.threads = {{1, 1, "early"}};
  auto w = TraceWriter::create(path, meta, options, &status);
  ASSERT_TRUE(w) << status.message();
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(w->append(0, ev::thread_start(i)));  // header written
  const uint32_t late = w->add_thread({2, 1, "late"});
  ASSERT_TRUE(w->append(late, ev::brk(10, 0x1000)));
  ASSERT_TRUE(w->close());
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  ASSERT_EQ(reader->meta().threads.size(), 2u);
  EXPECT_EQ(reader->meta().threads[1].name, "late");
  StreamCursor c(*reader, late);
  ASSERT_TRUE(c.next());
  EXPECT_EQ(c.event().addr, 0x1000u);
}

TEST(RoundTripEdges, MemoryBudgetFlushesEarlyWithoutChangingContent) {
  const RandomTrace trace = make_random_trace(11, 50, 400);
  WriterOptions small_budget;
  small_budget.max_buffered_bytes = 4096;
  const std::string path = temp_path("budget.mmtrace");
  write_trace(path, trace, small_budget);
  Status status;
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader);
  EXPECT_GT(reader->chunks().size(), 50u);  // forced flushes made many small chunks
  expect_same(trace, read_trace(path));
}

TEST(RoundTripEdges, WriterRejectsBadStreamAndOversizedVector) {
  const std::string path = temp_path("bad.mmtrace");
  Status status;
  TraceMeta meta;
  meta.threads = {{1, 1, "t"}};
  auto w = TraceWriter::create(path, meta, WriterOptions(), &status);
  ASSERT_TRUE(w);
  EXPECT_FALSE(w->append(5, ev::thread_start(0)));
  std::vector<Range> many(kMaxVectorRanges + 1);
  EXPECT_FALSE(w->append(0, ev::madvise_vector(0, kMadvFree), many));
  EXPECT_TRUE(w->close());
}

}  // namespace
}  // namespace mmreplay::formats
