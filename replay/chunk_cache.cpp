#include "replay/chunk_cache.h"

#include <cassert>

namespace mmreplay::replay {

ChunkCache::ChunkCache(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

ChunkCache::ChunkPtr ChunkCache::get(const formats::TraceReader& reader, uint32_t id,
                                     Status* status) {
  const Key key{&reader, id};
  std::unique_lock lock(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    if (it->second.decoding) {
      ++stats_.waits;
      decoded_.wait(lock, [&] {
        auto again = entries_.find(key);
        return again == entries_.end() || !again->second.decoding;
      });
      it = entries_.find(key);
    }
    if (it != entries_.end() && it->second.chunk) {
      ++stats_.hits;
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      *status = Status::ok();
      return it->second.chunk;
    }
    // The decode we waited for failed (the entry was removed): decode it ourselves below.
  }
  ++stats_.misses;
  entries_[key].decoding = true;
  lock.unlock();

  auto chunk = std::make_shared<formats::DecodedChunk>();
  Status s = id < reader.chunks().size()
                 ? reader.decode(reader.chunks()[id], chunk.get())
                 : Status::invalid_argument(reader.path() + ": no chunk " + std::to_string(id));
  lock.lock();
  if (!s) {
    entries_.erase(key);
    decoded_.notify_all();
    *status = s;
    return nullptr;
  }
  insert_locked(key, chunk);
  decoded_.notify_all();
  *status = Status::ok();
  return chunk;
}

void ChunkCache::insert_locked(const Key& key, ChunkPtr chunk) {
  Entry& entry = entries_[key];
  entry.decoding = false;
  entry.chunk = std::move(chunk);
  lru_.push_front(key);
  entry.lru = lru_.begin();
  while (lru_.size() > capacity_) {
    const Key victim = lru_.back();
    lru_.pop_back();
    entries_.erase(victim);
    ++stats_.evictions;
  }
}

ChunkCacheStats ChunkCache::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

size_t ChunkCache::size() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

}  // namespace mmreplay::replay
