#include "kernelsim/sim/chunked_store.h"

namespace mmreplay::kernelsim {

ChunkPool::~ChunkPool() {
  for (void* c : free_) ::operator delete(c);
}

void* ChunkPool::take() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      void* c = free_.back();
      free_.pop_back();
      return c;
    }
  }
  return ::operator new(chunk_bytes_);
}

void ChunkPool::give(const std::vector<void*>& chunks) {
  size_t i = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (; i < chunks.size() && free_.size() < max_chunks_; ++i) free_.push_back(chunks[i]);
  }
  for (; i < chunks.size(); ++i) ::operator delete(chunks[i]);
}

size_t ChunkPool::pooled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_.size();
}

}  // namespace mmreplay::kernelsim
