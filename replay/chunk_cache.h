// ChunkCache: the decoded chunks of the traces of a study, shared by every run (decode once,
// replay many).
//
// A run asks for chunk `id` of a trace; if it is cached the run gets the same immutable decoded
// chunk as every other run (a hit); if another run is decoding it right now, the caller waits for
// that decode instead of repeating it; otherwise the caller decodes it (a miss) and publishes it.
// The cache holds at most `capacity` chunks and evicts the least recently used; a run that still
// reads an evicted chunk keeps it alive through its shared_ptr, so memory is bounded by
// capacity + (threads x runs in flight) chunks, never by trace length.
//
// Thread-safe: called from many TBB workers at once.

#pragma once

#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>

#include "common/status.h"
#include "formats/trace_reader.h"

namespace mmreplay::replay {

struct ChunkCacheStats {
  uint64_t hits = 0;    // served from the cache
  uint64_t misses = 0;  // decoded by the caller
  uint64_t waits = 0;   // found another run decoding it and waited (counted as hits too)
  uint64_t evictions = 0;
  double hit_rate() const {
    const uint64_t total = hits + misses;
    return total == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(total);
  }
};

class ChunkCache {
 public:
  using ChunkPtr = std::shared_ptr<const formats::DecodedChunk>;

  // REQUIRES: capacity >= 1.
  explicit ChunkCache(size_t capacity);

  // Returns chunk `id` (an index into reader.chunks()); nullptr with *status set on a decode error.
  ChunkPtr get(const formats::TraceReader& reader, uint32_t id, Status* status);

  ChunkCacheStats stats() const;
  size_t capacity() const { return capacity_; }
  size_t size() const;

 private:
  using Key = std::pair<const formats::TraceReader*, uint32_t>;
  struct Entry {
    ChunkPtr chunk;  // null while being decoded
    bool decoding = false;
    std::list<Key>::iterator lru;  // valid when chunk is set
  };

  void insert_locked(const Key& key, ChunkPtr chunk);

  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable decoded_;
  std::map<Key, Entry> entries_;
  std::list<Key> lru_;  // front = most recently used; holds only decoded entries
  ChunkCacheStats stats_;
};

}  // namespace mmreplay::replay
