// Damaged traces: cut files are read up to the cut with a note of what was lost; flipped bytes
// are reported with the offset of their frame; nothing crashes. (Also run under the asan preset.)

#include <capnp/message.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "formats/frame_io.h"
#include "formats/header_codec.h"
#include "formats/trace_check.h"
#include "formats/trace_reader.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::formats {
namespace {

using testing::make_random_trace;
using testing::read_file;
using testing::temp_path;
using testing::write_file;
using testing::write_trace;

// Decodes everything the reader offers; returns the number of chunks that decoded.
size_t decode_all(const TraceReader& reader) {
  size_t good = 0;
  DecodedChunk chunk;
  for (const ChunkRef& ref : reader.chunks()) good += reader.decode(ref, &chunk).is_ok();
  return good;
}

class Damaged : public ::testing::Test {
 protected:
  void SetUp() override {
    WriterOptions options;
    options.chunk_events = 64;
    write_trace(path_, make_random_trace(21, 3, 300), options);
    original_ = read_file(path_);
    Status status;
    auto reader = TraceReader::open(path_, ReaderOptions(), &status);
    ASSERT_TRUE(reader) << status.message();
    chunks_ = reader->chunks();
    ASSERT_GE(chunks_.size(), 10u);
  }
  std::string path_ = temp_path("orig.mmtrace");
  std::string original_;
  std::vector<ChunkRef> chunks_;
};

TEST_F(Damaged, CutAtEveryChunkBoundaryKeepsEveryChunkBefore) {
  const std::string cut_path = temp_path("cut.mmtrace");
  for (size_t k = 0; k < chunks_.size(); ++k) {
    const uint64_t cut = chunks_[k].offset + chunks_[k].size;  // just after chunk k
    write_file(cut_path, original_.substr(0, cut));
    Status status;
    auto reader = TraceReader::open(cut_path, ReaderOptions(), &status);
    ASSERT_TRUE(reader) << status.message();
    EXPECT_TRUE(reader->recovered());
    ASSERT_EQ(reader->chunks().size(), k + 1);
    for (size_t i = 0; i <= k; ++i) EXPECT_EQ(reader->chunks()[i], chunks_[i]);
    EXPECT_EQ(decode_all(*reader), k + 1);
    ASSERT_FALSE(reader->warnings().empty());
    EXPECT_NE(reader->warnings().back().find("recovered " + std::to_string(k + 1) + " chunks"),
              std::string::npos)
        << reader->warnings().back();
  }
}

TEST_F(Damaged, CutAtRandomOffsetsReturnsCompleteChunksAndNamesTheLoss) {
  const std::string cut_path = temp_path("cut.mmtrace");
  uint64_t rng = 77;
  const uint64_t header_end = chunks_.front().offset;
  for (int trial = 0; trial < 60; ++trial) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t cut = header_end + (rng >> 33) % (original_.size() - header_end);
    write_file(cut_path, original_.substr(0, cut));
    Status status;
    auto reader = TraceReader::open(cut_path, ReaderOptions(), &status);
    ASSERT_TRUE(reader) << status.message();
    size_t complete = 0;
    while (complete < chunks_.size() && chunks_[complete].offset + chunks_[complete].size <= cut) {
      ++complete;
    }
    EXPECT_EQ(reader->chunks().size(), complete) << "cut at " << cut;
    EXPECT_EQ(decode_all(*reader), complete);
    // A cut exactly between two frames leaves no partial frame to name: the reader only says it
    // rebuilt the index (the random trace hits such a cut since observations have 8 kinds).
    const bool between_frames =
        complete > 0 && chunks_[complete - 1].offset + chunks_[complete - 1].size == cut;
    if (complete < chunks_.size() && !between_frames) {
      EXPECT_NE(reader->warnings().back().find("lost"), std::string::npos)
          << reader->warnings().back();
    }
  }
}

TEST_F(Damaged, CutInsideTheHeaderIsAClearError) {
  const std::string cut_path = temp_path("cut.mmtrace");
  write_file(cut_path, original_.substr(0, chunks_.front().offset / 2));
  Status status;
  EXPECT_FALSE(TraceReader::open(cut_path, ReaderOptions(), &status));
  EXPECT_NE(status.message().find("offset 0"), std::string::npos) << status.message();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  write_file(cut_path, "");
  EXPECT_FALSE(TraceReader::open(cut_path, ReaderOptions(), &status));
  EXPECT_NE(status.message().find("empty file"), std::string::npos) << status.message();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
}

TEST_F(Damaged, FlippedByteInAnyFrameIsReportedWithItsOffset) {
  const std::string bad_path = temp_path("flip.mmtrace");
  // Frame starts: the header at 0, every chunk, the index frame after the last chunk.
  std::vector<uint64_t> starts = {0};
  for (const ChunkRef& c : chunks_) starts.push_back(c.offset);
  starts.push_back(chunks_.back().offset + chunks_.back().size);
  starts.push_back(original_.size());
  for (size_t f = 0; f + 1 < starts.size(); ++f) {
    for (uint64_t pos : {starts[f], (starts[f] + starts[f + 1]) / 2, starts[f + 1] - 1}) {
      std::string bytes = original_;
      bytes[pos] = static_cast<char>(bytes[pos] ^ 0x5a);
      write_file(bad_path, bytes);
      CheckReport report;
      const Status status = check_trace(bad_path, &report);
      ASSERT_FALSE(status) << "flip at " << pos << " went unnoticed";
      // Damage is Corruption, or the size guard when the flip made a frame declare a huge size.
      EXPECT_TRUE(status.code() == StatusCode::kCorruption ||
                  status.code() == StatusCode::kResourceExhausted)
          << "flip at " << pos << ": " << status_code_name(status.code()) << ": "
          << status.message();
      // The message names a byte offset inside the damaged frame (or the index it belongs to).
      bool named = false;
      for (uint64_t o = starts[f]; o <= pos && !named; ++o) {
        named = status.message().find("offset " + std::to_string(o)) != std::string::npos;
      }
      const bool index_frame = f + 2 == starts.size();
      EXPECT_TRUE(named || index_frame) << "flip at " << pos << ": " << status.message();
      // Reading it never crashes: open, recover if needed, decode what is there.
      Status open_status;
      auto reader = TraceReader::open(bad_path, ReaderOptions(), &open_status);
      if (reader) decode_all(*reader);
    }
  }
}

TEST_F(Damaged, MissingFooterIsRecoveredAndStrictModeRefuses) {
  const std::string cut_path = temp_path("nofooter.mmtrace");
  const uint64_t data_end = chunks_.back().offset + chunks_.back().size;
  write_file(cut_path, original_.substr(0, data_end));
  Status status;
  auto reader = TraceReader::open(cut_path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  EXPECT_TRUE(reader->recovered());
  EXPECT_EQ(reader->chunks(), chunks_);
  ReaderOptions strict;
  strict.allow_recovery = false;
  EXPECT_FALSE(TraceReader::open(cut_path, strict, &status));
  EXPECT_NE(status.message().find("no index footer"), std::string::npos) << status.message();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
}

TEST(Version, NewerMajorVersionIsRefusedByName) {
  const std::string path = temp_path("v2.mmtrace");
  TraceMeta meta;
  meta.version_major = kFormatVersionMajor + 1;
  capnp::MallocMessageBuilder message;
  build_header(meta, 8192, message.initRoot<capnp_schema::Frame>().initHeader());
  FrameCompressor compressor(3);
  std::string frame;
  ASSERT_TRUE(compressor.compress(message, &frame));
  write_file(path, frame);
  Status status;
  EXPECT_FALSE(TraceReader::open(path, ReaderOptions(), &status));
  EXPECT_NE(status.message().find("is newer than this reader"), std::string::npos)
      << status.message();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
}

TEST(Hostile, FrameDeclaringAHugeContentSizeIsRefusedBeforeAllocating) {
  TraceMeta meta;
  meta.recorder.command_line = std::string(4096, 'x');
  capnp::MallocMessageBuilder message;
  build_header(meta, 8192, message.initRoot<capnp_schema::Frame>().initHeader());
  FrameCompressor compressor(3);
  std::string frame;
  ASSERT_TRUE(compressor.compress(message, &frame));
  const std::string path = temp_path("big.mmtrace");
  write_file(path, frame);
  ReaderOptions tiny;
  tiny.max_frame_bytes = 1024;
  Status status;
  EXPECT_FALSE(TraceReader::open(path, tiny, &status));
  EXPECT_NE(status.message().find("more than the limit"), std::string::npos) << status.message();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
}

TEST(Hostile, NonTraceFileIsRejected) {
  const std::string path = temp_path("text.mmtrace");
  write_file(path, "this is not a trace\n");
  Status status;
  EXPECT_FALSE(TraceReader::open(path, ReaderOptions(), &status));
  EXPECT_NE(status.message().find("not an .mmtrace file"), std::string::npos) << status.message();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_FALSE(TraceReader::open(temp_path("missing"), ReaderOptions(), &status));
  EXPECT_NE(status.message().find("cannot open"), std::string::npos);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace mmreplay::formats
