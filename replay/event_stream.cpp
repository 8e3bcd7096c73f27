#include "replay/event_stream.h"

namespace mmreplay::replay {

EventStream::EventStream(ChunkCache& cache, const formats::TraceReader& reader, uint32_t stream)
    : cache_(cache),
      reader_(reader),
      stream_(stream),
      chunk_ids_(reader.chunks_of_stream(stream)) {}

bool EventStream::next() {
  if (!status_) return false;
  if (chunk_ && pos_ + 1 < chunk_->events.size()) {
    ++pos_;
    return true;
  }
  while (next_chunk_ < chunk_ids_.size()) {
    chunk_ = cache_.get(reader_, chunk_ids_[next_chunk_++], &status_);
    if (!chunk_) return false;
    if (!chunk_->events.empty()) {
      pos_ = 0;
      return true;
    }
  }
  chunk_.reset();  // release the last chunk as soon as the stream ends
  return false;
}

std::span<const formats::Range> EventStream::ranges() const {
  const formats::Event& e = event();
  if (e.range_count == 0) return {};
  return std::span<const formats::Range>(chunk_->ranges).subspan(e.range_begin, e.range_count);
}

}  // namespace mmreplay::replay
