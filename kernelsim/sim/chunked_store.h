// ChunkedStore<T>: a growable array of T indexed by uint32_t, stored in fixed chunks that never
// move, whose chunks outlive the store in a process-wide pool.
//
// Why not std::vector: Lruvec's page frames grow by one per new page for the whole run. A vector
// copied every frame at each doubling (perf: most of page_add_new_anon_rmap()'s time replaying a
// recording, and the copy's fresh memory faulted on the host each time). Chunks are filled in
// place and never copied. Their memory goes back to a pool when the store dies, so the next
// simulation on any host thread (a study's next run, a benchmark's next iteration) reuses memory
// that is already mapped instead of faulting fresh pages in again; glibc would otherwise trim or
// unmap the freed chunks and the next run would fault them back (tried with plain new/delete:
// repeated in-process runs 2-3x slower).
//
// An element is value-initialised when it is appended (emplace_back()), whatever an earlier user
// of the chunk left there. T must be trivially destructible: chunks are handed back without
// running destructors.

#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

namespace mmreplay::kernelsim {

// The pool of free chunks of one size, shared by every store of that chunk size in the process.
// Keeps at most max_pooled_bytes; chunks beyond it go back to the heap.
class ChunkPool {
 public:
  static constexpr size_t kMaxPooledBytes = size_t{256} << 20;

  explicit ChunkPool(size_t chunk_bytes, size_t max_pooled_bytes = kMaxPooledBytes)
      : chunk_bytes_(chunk_bytes), max_chunks_(max_pooled_bytes / chunk_bytes) {}
  ChunkPool(const ChunkPool&) = delete;
  ChunkPool& operator=(const ChunkPool&) = delete;
  ~ChunkPool();

  // A chunk of chunk_bytes, from the pool or the heap. Its contents are unspecified.
  void* take();
  // Returns the chunks to the pool (or the heap, above the cap).
  void give(const std::vector<void*>& chunks);
  // Chunks held now (tests).
  size_t pooled() const;

 private:
  const size_t chunk_bytes_;
  const size_t max_chunks_;
  mutable std::mutex mu_;
  std::vector<void*> free_;
};

template <typename T, uint32_t kChunkShift = 12>
class ChunkedStore {
  static_assert(std::is_trivially_destructible_v<T>);

 public:
  static constexpr uint32_t kChunkElems = uint32_t{1} << kChunkShift;
  static constexpr uint32_t kChunkMask = kChunkElems - 1;

  ChunkedStore() = default;
  ChunkedStore(const ChunkedStore&) = delete;
  ChunkedStore& operator=(const ChunkedStore&) = delete;
  ~ChunkedStore() { pool().give(chunks_); }

  T& operator[](uint32_t i) { return chunk(i >> kChunkShift)[i & kChunkMask]; }
  const T& operator[](uint32_t i) const { return chunk(i >> kChunkShift)[i & kChunkMask]; }
  uint32_t size() const { return size_; }

  // Appends a value-initialised T; returns its index.
  uint32_t emplace_back() {
    if ((size_ & kChunkMask) == 0 && (size_ >> kChunkShift) == chunks_.size())
      chunks_.push_back(pool().take());
    const uint32_t i = size_++;
    new (&(*this)[i]) T();
    return i;
  }

  // The pool of this store's chunk size.
  static ChunkPool& pool() {
    static ChunkPool p(sizeof(T) * kChunkElems);
    return p;
  }

 private:
  T* chunk(uint32_t c) const { return static_cast<T*>(chunks_[c]); }

  std::vector<void*> chunks_;  // as the pool hands them out, so that they go back without a copy
  uint32_t size_ = 0;
};

}  // namespace mmreplay::kernelsim
