// Issue 15: every header and index field is validated before anything is allocated by it, and a
// file that is not one trace (two traces' headers, a repeated chunk) is refused with the offset,
// with the index present and when the reader recovers by scanning. Nothing crashes; the 60M-id
// case allocates nothing per id.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "formats/trace_check.h"
#include "formats/trace_reader.h"
#include "tests/formats/hostile_trace.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::formats {
namespace {

using testing::make_random_trace;
using testing::read_file;
using testing::splice;
using testing::temp_path;
using testing::with_chunk_stream;
using testing::write_file;
using testing::write_trace;

std::string offset_of(uint64_t offset) {
  return "offset " + std::to_string(offset) + ":";
}

class Crafted : public ::testing::Test {
 protected:
  void SetUp() override {
    WriterOptions options;
    options.chunk_events = 64;
    write_trace(path_, make_random_trace(15, 3, 300), options);
    original_ = read_file(path_);
    Status status;
    auto reader = TraceReader::open(path_, ReaderOptions(), &status);
    ASSERT_TRUE(reader) << status.message();
    ASSERT_FALSE(reader->recovered());
    chunks_ = reader->chunks();
    ASSERT_GE(chunks_.size(), 10u);
  }
  // The file without its index and footer (what a killed capture leaves).
  std::string data_only() const {
    return original_.substr(0, chunks_.back().offset + chunks_.back().size);
  }
  // Opens `bytes` (written to `name`) with and without recovery; both must fail with `code` and a
  // message holding every one of `parts`.
  void expect_refused(const std::string& name, const std::string& bytes, StatusCode code,
                      std::initializer_list<std::string> parts, ReaderOptions options = {}) {
    const std::string path = temp_path(name);
    write_file(path, bytes);
    for (bool recovery : {true, false}) {
      options.allow_recovery = recovery;
      Status status;
      EXPECT_FALSE(TraceReader::open(path, options, &status)) << name << " recovery=" << recovery;
      EXPECT_EQ(status.code(), code) << status.message();
      for (const std::string& part : parts) {
        EXPECT_NE(status.message().find(part), std::string::npos)
            << name << " recovery=" << recovery << ": " << status.message();
      }
    }
  }
  std::string path_ = temp_path("valid.mmtrace");
  std::string original_;
  std::vector<ChunkRef> chunks_;
};

std::string frame_at(const std::string& file, const ChunkRef& c) {
  return file.substr(c.offset, c.size);
}

TEST_F(Crafted, StreamIdsPastTheLimitAreRefusedWithTheirOffset) {
  // 2^32-1 overflowed `stream + 1`; 10M and 60M allocated a thread entry per id.
  for (uint32_t stream : {0xFFFFFFFFu, 60'000'000u, 10'000'000u, kDefaultMaxThreads}) {
    const ChunkRef& c = chunks_[4];
    const std::string frame = with_chunk_stream(frame_at(original_, c), stream);
    const std::string part = "chunk names stream " + std::to_string(stream);
    // With the index present: when the re-encoded frame changed size the index no longer tiles
    // the data and the reader scans; when it kept its size the index is trusted, lists the chunk
    // under its old stream, and decoding it names the offset.
    const std::string indexed = splice(original_, c.offset, c.size, frame);
    if (frame.size() != c.size) {
      expect_refused("stream-indexed.mmtrace", indexed, StatusCode::kCorruption,
                     {offset_of(c.offset), part});
    } else {
      const std::string path = temp_path("stream-indexed.mmtrace");
      write_file(path, indexed);
      Status status;
      auto reader = TraceReader::open(path, ReaderOptions(), &status);
      ASSERT_TRUE(reader) << status.message();
      DecodedChunk chunk;
      status = reader->decode(reader->chunks()[4], &chunk);
      EXPECT_EQ(status.code(), StatusCode::kCorruption);
      EXPECT_NE(status.message().find(offset_of(c.offset) + " chunk holds stream " +
                                      std::to_string(stream)),
                std::string::npos)
          << status.message();
    }
    expect_refused("stream-scanned.mmtrace", splice(data_only(), c.offset, c.size, frame),
                   StatusCode::kCorruption, {offset_of(c.offset), part});
  }
}

TEST_F(Crafted, MaxThreadsIsSettable) {
  // A stream missing from the thread table is named after its id, up to the limit.
  const ChunkRef& c = chunks_[0];
  const std::string bytes =
      splice(data_only(), c.offset, c.size, with_chunk_stream(frame_at(original_, c), 9));
  const std::string path = temp_path("stream9.mmtrace");
  write_file(path, bytes);
  Status status;
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  EXPECT_EQ(reader->meta().threads.size(), 10u);
  ReaderOptions eight;
  eight.max_threads = 8;
  EXPECT_FALSE(TraceReader::open(path, eight, &status));
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find(offset_of(c.offset) + " chunk names stream 9"), std::string::npos)
      << status.message();
}

TEST_F(Crafted, ThreadTableOverTheLimitIsRefusedWithItsLength) {
  ReaderOptions two;
  two.max_threads = 2;
  expect_refused("threads.mmtrace", original_, StatusCode::kResourceExhausted,
                 {"offset 0: header names 3 threads, more than the limit of 2"}, two);
}

TEST_F(Crafted, TwoTracesInOneFileAreRefusedAtTheSecondHeader) {
  // The second trace's index is valid for the first trace's offsets: it must not be trusted.
  expect_refused("twice.mmtrace", original_ + original_, StatusCode::kCorruption,
                 {offset_of(original_.size()), "a second header frame"});
  expect_refused("twice-noindex.mmtrace", data_only() + data_only(), StatusCode::kCorruption,
                 {offset_of(data_only().size()), "a second header frame"});
  CheckReport report;
  const std::string path = temp_path("twice-check.mmtrace");
  write_file(path, original_ + original_);
  const Status status = check_trace(path, &report);
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find(offset_of(original_.size()) + " a second header frame"),
            std::string::npos)
      << status.message();
}

TEST_F(Crafted, RepeatedChunkIsRefusedAtTheCopy) {
  const ChunkRef& c = chunks_[3];
  const uint64_t copy_at = c.offset + c.size;
  const std::string part = "repeats the chunk at offset " + std::to_string(c.offset);
  const std::string frame = frame_at(original_, c);
  expect_refused("dup.mmtrace", splice(original_, copy_at, 0, frame), StatusCode::kCorruption,
                 {offset_of(copy_at), part});
  expect_refused("dup-noindex.mmtrace", splice(data_only(), copy_at, 0, frame),
                 StatusCode::kCorruption, {offset_of(copy_at), part});
  // A copy appended after the index is refused too (the index no longer ends the file).
  expect_refused("dup-tail.mmtrace", original_ + frame, StatusCode::kCorruption,
                 {offset_of(original_.size()), part});
  CheckReport report;
  const std::string path = temp_path("dup-check.mmtrace");
  write_file(path, splice(original_, copy_at, 0, frame));
  const Status status = check_trace(path, &report);
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find(offset_of(copy_at)), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("repeats"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace mmreplay::formats
