// EventStream: one trace thread's events in order, read through the study's shared ChunkCache.
// A run keeps one EventStream per trace thread; each holds at most one decoded chunk.

#pragma once

#include <span>

#include "formats/trace_reader.h"
#include "replay/chunk_cache.h"

namespace mmreplay::replay {

class EventStream {
 public:
  EventStream(ChunkCache& cache, const formats::TraceReader& reader, uint32_t stream);

  // Advances to the next event; false at the end of the stream or on error (see status()).
  bool next();
  const formats::Event& event() const { return chunk_->events[pos_]; }
  std::span<const formats::Range> ranges() const;
  const Status& status() const { return status_; }
  uint32_t stream() const { return stream_; }

 private:
  ChunkCache& cache_;
  const formats::TraceReader& reader_;
  uint32_t stream_;
  std::span<const uint32_t> chunk_ids_;
  size_t next_chunk_ = 0;
  ChunkCache::ChunkPtr chunk_;
  size_t pos_ = 0;
  Status status_;
};

}  // namespace mmreplay::replay
