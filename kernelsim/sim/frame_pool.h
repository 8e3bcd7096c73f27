// FramePool: recycles the coroutine frames of one simulation's kernel paths (sim/co.h).
//
// Every co_await of a Co<T> path allocates the callee's frame and frees it on return: a fault
// allocates several (do_user_addr_fault, handle_mm_fault, alloc_one, lru_cache_add, ...). With
// malloc each was a lock-free but branchy tcache round trip, and frames above tcache's largest
// bin went to the arenas. The pool keeps freed frames in per-size-class free lists and hands them
// back on the next allocation of that class, so a steady simulation stops calling malloc.
//
// One pool per simulation (SimFloor owns it). While a simulation runs (Simulation::run(),
// run_until()) it is this host thread's current pool (FramePool::Use), and frames allocated then
// come from it; a frame records its pool in a header, so freeing needs no argument and may
// happen outside the run. Frames allocated outside any run (a task's top-level body, made before
// run()) and frames above the largest class use the global heap. Studies run one simulation per
// host thread at a time, so a thread's current pool is the one simulation it is running.
//
// Invariants (asserted in frame_pool.cpp):
//  (1) a block is either live (handed out) or on exactly one free list of its own class;
//  (2) the pool outlives every frame it handed out (SimFloor, a base of Simulation, is destroyed
//      after the tasks, mms and waiters that own frames).

#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace mmreplay::kernelsim {

class FramePool {
 public:
  FramePool() = default;
  ~FramePool();
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;

  // A frame of n bytes, from this pool (or the global heap when n is above the largest class).
  void* allocate(size_t n);
  // A frame of n bytes without a pool: the global heap, with the same header.
  static void* allocate_unpooled(size_t n);
  // From this thread's current pool, or without one when no simulation is running here.
  static void* allocate_current(size_t n) {
    return current_ != nullptr ? current_->allocate(n) : allocate_unpooled(n);
  }
  // Frees a frame from allocate() or allocate_unpooled(), to the pool that gave it.
  static void deallocate(void* frame) noexcept;

  // Blocks handed out and not yet freed (tests).
  uint64_t live() const { return live_; }

  // Makes `pool` this thread's current pool for the guard's lifetime (nests: restores the last).
  class Use {
   public:
    explicit Use(FramePool& pool) : prev_(current_) { current_ = &pool; }
    ~Use() { current_ = prev_; }
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;

   private:
    FramePool* prev_;
  };

 private:
  struct Block {
    Block* next;
  };
  // Block header in front of each frame; 16 bytes keeps the frame 16-byte aligned
  // (__STDCPP_DEFAULT_NEW_ALIGNMENT__ on x86-64).
  struct Header {
    FramePool* pool;  // nullptr: the global heap
    uint64_t size_class;
  };
  static_assert(sizeof(Header) == 16);

  static constexpr size_t kClassBytes = 64;  // a cache line: frames of a class share its size
  static constexpr size_t kClasses = 64;     // up to 4 KiB; larger frames are rare (study setup)

  static inline thread_local FramePool* current_ = nullptr;

  std::array<Block*, kClasses> free_{};
  uint64_t live_ = 0;
};

}  // namespace mmreplay::kernelsim
