// Hand-offs through oneTBB that ThreadSanitizer cannot see.
//
// Debian's libtbb is not built with -fsanitize=thread, so the synchronisation inside it (a task
// handed to a worker, the join at the end of parallel_for, a pipeline token passed from one
// filter to the next) is invisible to TSan. Data written on one side of such a hand-off and read
// on the other then looks like a race, and the TSan preset drowns in reports that are not races.
// Where our code hands data across TBB, it says so:
//  - TbbShared<T>: what a parallel_for body or pipeline filter holds. TBB copies the body into a
//    task object on the launching thread and a worker reads it; the copy stores the pointer with
//    release and every read loads it with acquire, so TSan sees that everything the launching
//    thread wrote before the launch happens before the worker's reads.
//  - tsan_publish(token) after the writes on one side, tsan_observe(token) before the reads on
//    the other: results coming back through TBB's join, tokens passed between filters. The token
//    is any address both sides agree on; publishes accumulate (TSan joins the clocks), so one
//    token may collect the work of many tasks.
// Races that do not cross such a hand-off (two tasks writing one object) are still reported.
// Outside TSan builds the calls compile to nothing and TbbShared is a plain pointer's cost.

#pragma once

#include <atomic>

#if defined(__SANITIZE_THREAD__)
#define MMREPLAY_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MMREPLAY_TSAN 1
#endif
#endif

#ifdef MMREPLAY_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace mmreplay {

// Everything this thread wrote so far happens before a later tsan_observe(token).
inline void tsan_publish([[maybe_unused]] const void* token) {
#ifdef MMREPLAY_TSAN
  __tsan_release(const_cast<void*>(token));
#endif
}

// What was written before every earlier tsan_publish(token) happens before what follows.
inline void tsan_observe([[maybe_unused]] const void* token) {
#ifdef MMREPLAY_TSAN
  __tsan_acquire(const_cast<void*>(token));
#endif
}

// A pointer to the state a TBB body works on (see above).
template <class T>
class TbbShared {
 public:
  explicit TbbShared(T* state) { set(state); }
  TbbShared(const TbbShared& other) { set(other.get()); }
  TbbShared& operator=(const TbbShared& other) {
    set(other.get());
    return *this;
  }
  T* get() const { return state_.load(std::memory_order_acquire); }
  T* operator->() const { return get(); }
  T& operator*() const { return *get(); }

 private:
  void set(T* state) { state_.store(state, std::memory_order_release); }
  std::atomic<T*> state_{nullptr};
};

}  // namespace mmreplay
