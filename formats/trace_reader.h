// TraceReader: opens an .mmtrace file, reads its header and index, and decodes chunks.
//
// Open reads the header frame and the index named by the footer. When the footer or index is
// missing or damaged (a killed capture, a cut copy), it rebuilds the index by scanning frames from
// the start and records a warning that says how many chunks were recovered and what was lost.
//
// Decoding is thread-safe: decode() is const and keeps no shared scratch state, so many threads
// (see parallel_decode.h) may decode chunks of one reader at once.
//
// Hostile input: frames larger than ReaderOptions::max_frame_bytes are refused before they are
// decompressed, Cap'n Proto traversal and nesting limits are set from the frame size, every
// column read is bounds-checked. Errors name the file and the byte offset of the frame. Every
// header and index field is checked before anything is allocated by it: a thread table longer
// than ReaderOptions::max_threads is refused (ResourceExhausted, with its length); a chunk naming a
// stream at or above the limit is Corruption; index entries must tile the data between the header
// and the index exactly, in stream sequence. A second header frame (two traces concatenated) or
// a chunk whose (stream, seq) repeats is refused with its offset, with or without the index.

#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/event.h"
#include "formats/trace_meta.h"

namespace mmreplay::formats {

struct ReaderOptions {
  bool allow_recovery = true;                 // scan the file when the footer/index is unusable
  uint64_t max_frame_bytes = 256ull << 20;    // largest decompressed frame accepted
  uint32_t max_threads = kDefaultMaxThreads;  // most threads a header, index or stream id may name
};

// Where one chunk lives and what it holds, from the index (or from the recovery scan).
struct ChunkRef {
  uint64_t offset = 0;  // byte offset of the zstd frame in the file
  uint64_t size = 0;    // compressed size of the frame
  uint32_t stream = 0;
  uint64_t seq = 0;  // 0, 1, 2, ... within the stream
  uint64_t first_ts = 0;
  uint64_t last_ts = 0;
  uint32_t events = 0;
  friend bool operator==(const ChunkRef&, const ChunkRef&) = default;
};

struct DecodedChunk {
  ChunkRef ref;
  std::vector<Event> events;
  std::vector<Range> ranges;  // vector madvise ranges, indexed by Event::range_begin
};

class TraceReader {
 public:
  static std::unique_ptr<TraceReader> open(const std::string& path, ReaderOptions options,
                                           Status* status);
  // Reads a trace held in memory; `name` stands for the file name in messages.
  static std::unique_ptr<TraceReader> open_buffer(const std::string& name,
                                                  std::vector<uint8_t> bytes, ReaderOptions options,
                                                  Status* status);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  const std::string& path() const;
  const TraceMeta& meta() const;
  uint64_t file_size() const;

  // Every chunk, in file order.
  const std::vector<ChunkRef>& chunks() const;
  // Indices into chunks() of one stream's chunks, in sequence order.
  std::span<const uint32_t> chunks_of_stream(uint32_t stream) const;
  uint64_t total_events() const;

  // True when the index was rebuilt by scanning; warnings() says what was recovered and lost.
  bool recovered() const;
  const std::vector<std::string>& warnings() const;

  // Decodes every chunk (on TBB workers) and drops those that do not decode, so that the rest can
  // be replayed (`replay --skip-damaged`). Returns one line per dropped chunk naming its offset,
  // stream, sequence, events and why; each is also added to warnings(). A stream that loses a
  // chunk goes on with its next one. Not thread-safe: call it before the reader is shared.
  std::vector<std::string> drop_damaged_chunks();

  // Decodes one chunk. Reuses `out`'s storage.
  Status decode(const ChunkRef& ref, DecodedChunk* out) const;

  // The raw bytes of the file (the reader maps it read-only).
  std::span<const uint8_t> bytes() const;

 private:
  struct Impl;
  explicit TraceReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Reads one stream's events in order, chunk by chunk.
class StreamCursor {
 public:
  StreamCursor(const TraceReader& reader, uint32_t stream);

  // Advances to the next event. Returns false at the end of the stream or on error (see status()).
  bool next();
  const Event& event() const { return chunk_.events[pos_]; }
  // The ranges of the current event (empty unless it is a vector madvise).
  std::span<const Range> ranges() const;
  const Status& status() const { return status_; }

 private:
  const TraceReader& reader_;
  std::span<const uint32_t> chunk_ids_;
  size_t next_chunk_ = 0;
  DecodedChunk chunk_;
  size_t pos_ = 0;
  bool started_ = false;
  Status status_;
};

}  // namespace mmreplay::formats
