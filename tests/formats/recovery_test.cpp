// Recovery past damage (issue 15): with the index lost, the scan resumes at the next frame that
// parses after any damaged frame or stray bytes and keeps every intact chunk; with the index
// intact, drop_damaged_chunks() (replay --skip-damaged) drops only the chunks that do not decode.
// The content hash follows the content, not the compression.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "formats/trace_hash.h"
#include "formats/trace_reader.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::formats {
namespace {

using testing::make_random_trace;
using testing::read_file;
using testing::temp_path;
using testing::write_file;
using testing::write_trace;

std::unique_ptr<TraceReader> open_ok(const std::string& path) {
  Status status;
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  EXPECT_TRUE(reader) << status.message();
  return reader;
}

// Every chunk of `want` (by stream, seq and events) is among `got`.
::testing::AssertionResult keeps_every(const std::vector<ChunkRef>& want,
                                       const std::vector<ChunkRef>& got) {
  for (const ChunkRef& w : want) {
    const bool found = std::any_of(got.begin(), got.end(), [&](const ChunkRef& g) {
      return g.stream == w.stream && g.seq == w.seq && g.events == w.events;
    });
    if (!found) {
      return ::testing::AssertionFailure()
             << "lost the intact chunk of stream " << w.stream << " seq " << w.seq;
    }
  }
  return ::testing::AssertionSuccess();
}

class Recovery : public ::testing::Test {
 protected:
  void SetUp() override {
    WriterOptions options;
    options.chunk_events = 64;
    write_trace(path_, make_random_trace(15, 3, 300), options);
    original_ = read_file(path_);
    auto reader = open_ok(path_);
    ASSERT_TRUE(reader);
    chunks_ = reader->chunks();
    ASSERT_GE(chunks_.size(), 12u);
    data_end_ = chunks_.back().offset + chunks_.back().size;
  }
  std::vector<ChunkRef> all_but(size_t k) const {
    std::vector<ChunkRef> rest = chunks_;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
    return rest;
  }
  std::string path_ = temp_path("recovery.mmtrace");
  std::string original_;
  std::vector<ChunkRef> chunks_;
  uint64_t data_end_ = 0;
};

// Issue 15's reproducer: with the index lost, one unparsable frame ended the scan (2 of 15 chunks
// kept). Damage each chunk in turn, at its magic number, its frame header, its middle and its
// checksum: every other chunk is recovered.
TEST_F(Recovery, IndexLostDamagedChunkCostsOnlyItself) {
  const std::string bad = temp_path("recovery-bad.mmtrace");
  for (size_t k = 0; k < chunks_.size(); ++k) {
    const ChunkRef& c = chunks_[k];
    for (uint64_t at :
         {c.offset, c.offset + 5, c.offset + 7, c.offset + c.size / 2, c.offset + c.size - 1}) {
      std::string bytes = original_.substr(0, data_end_);  // no index, no footer
      bytes[at] = static_cast<char>(bytes[at] ^ 0xa5);
      write_file(bad, bytes);
      auto reader = open_ok(bad);
      ASSERT_TRUE(reader);
      EXPECT_TRUE(reader->recovered());
      EXPECT_TRUE(keeps_every(all_but(k), reader->chunks()))
          << "damage at offset " << at << " in chunk " << k;
      DecodedChunk chunk;
      for (const ChunkRef& ref : reader->chunks()) {
        EXPECT_TRUE(reader->decode(ref, &chunk)) << "offset " << ref.offset;
      }
    }
  }
}

TEST_F(Recovery, StrayBytesBetweenFramesAreSkippedAndNamed) {
  const std::string bad = temp_path("recovery-stray.mmtrace");
  const uint64_t gap = chunks_[4].offset;
  std::string bytes = original_.substr(0, data_end_);
  bytes.insert(gap, std::string(333, '\x5a'));
  write_file(bad, bytes);
  auto reader = open_ok(bad);
  ASSERT_TRUE(reader);
  ASSERT_EQ(reader->chunks().size(), chunks_.size());
  EXPECT_TRUE(keeps_every(chunks_, reader->chunks()));
  const std::string& note = reader->warnings().back();
  EXPECT_NE(note.find("skipped 333 damaged bytes"), std::string::npos) << note;
  bool named = false;
  for (const std::string& w : reader->warnings()) {
    named |= w.find("skipped 333 bytes at offset " + std::to_string(gap)) != std::string::npos;
  }
  EXPECT_TRUE(named);
}

TEST_F(Recovery, DamagedTailIsReportedAsLost) {
  const std::string bad = temp_path("recovery-tail.mmtrace");
  std::string bytes = original_.substr(0, data_end_);
  const ChunkRef& last = chunks_.back();
  bytes[last.offset + last.size / 2] ^= 0x11;
  write_file(bad, bytes);
  auto reader = open_ok(bad);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->chunks().size(), chunks_.size() - 1);
  EXPECT_NE(reader->warnings().back().find("lost " + std::to_string(last.size) +
                                           " bytes from offset " + std::to_string(last.offset)),
            std::string::npos)
      << reader->warnings().back();
}

// With the index intact a damaged chunk opens fine and fails when decoded; drop_damaged_chunks()
// drops exactly it, says so with its offset, and the rest decodes.
TEST_F(Recovery, IntactIndexDropDamagedChunksKeepsTheRest) {
  const std::string bad = temp_path("recovery-indexed.mmtrace");
  const size_t k = chunks_.size() / 2;
  std::string bytes = original_;
  bytes[chunks_[k].offset + chunks_[k].size / 2] ^= 0x40;
  write_file(bad, bytes);
  auto reader = open_ok(bad);
  ASSERT_TRUE(reader);
  EXPECT_FALSE(reader->recovered());
  const uint64_t events_before = reader->total_events();
  const std::vector<std::string> dropped = reader->drop_damaged_chunks();
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_NE(dropped[0].find("offset " + std::to_string(chunks_[k].offset) +
                            ": dropped the chunk of stream " + std::to_string(chunks_[k].stream)),
            std::string::npos)
      << dropped[0];
  EXPECT_EQ(reader->chunks(), all_but(k));
  EXPECT_EQ(reader->total_events(), events_before - chunks_[k].events);
  const uint32_t stream = chunks_[k].stream;
  for (uint32_t id : reader->chunks_of_stream(stream)) {
    EXPECT_NE(reader->chunks()[id].seq, chunks_[k].seq);
  }
  EXPECT_NE(reader->warnings().back(), "");
  // A sound trace loses nothing.
  auto sound = open_ok(path_);
  ASSERT_TRUE(sound);
  EXPECT_TRUE(sound->drop_damaged_chunks().empty());
  EXPECT_EQ(sound->chunks(), chunks_);
}

TEST(ContentHash, FollowsTheContentNotTheCompression) {
  const auto trace = make_random_trace(7, 2, 500);
  WriterOptions fast;
  fast.chunk_events = 100;
  fast.zstd_level = 1;
  WriterOptions small = fast;
  small.zstd_level = 15;
  const std::string a = temp_path("hash-a.mmtrace"), b = temp_path("hash-b.mmtrace");
  write_trace(a, trace, fast);
  write_trace(b, trace, small);
  ASSERT_NE(read_file(a), read_file(b));
  auto ra = open_ok(a), rb = open_ok(b);
  ASSERT_TRUE(ra && rb);
  const std::string hash = trace_content_hash(*ra);
  EXPECT_EQ(hash.size(), 16u);
  EXPECT_EQ(hash, trace_content_hash(*rb));

  auto changed = trace;
  changed.streams[1].events.back().ts_ns += 1000;  // the last event: still in order
  const std::string c = temp_path("hash-c.mmtrace");
  write_trace(c, changed, fast);
  auto rc = open_ok(c);
  ASSERT_TRUE(rc);
  EXPECT_NE(hash, trace_content_hash(*rc));
}

}  // namespace
}  // namespace mmreplay::formats
