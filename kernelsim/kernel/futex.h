// Futex waits in the recorded wake-up order (kernel/futex/waitwake.c: futex_wait(),
// futex_wake()).
//
// A trace does not say what a futex word held, only who woke whom: the importer pairs each wait
// that returned 0 with the FUTEX_WAKE that ended it (same mm and address, entered before the
// wait returned) and gives the pair a wake id. In the replay the waiter sleeps until that wake
// has replayed, so the recorded order holds however fast either side replays; a wait whose wake
// replayed first returns at once. A wait without a recorded waker (timed out, interrupted,
// requeued, a shared futex of another process) sleeps its recorded duration instead.
//
// Invariants:
//  (1) a task waits for at most one wake id at a time, and is in `waiters` only while asleep;
//  (2) a wake id, once in `woken`, stays there (a later waiter for it never sleeps).

#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "kernelsim/sim/co.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Task;

// The wake ids replayed so far. The importer numbers wakes from 1 up, so most ids are small
// and dense: a bit each (a std::set took a node allocation per wake: the bits save 2.6% of the
// host instructions of socket_pair_stream's replay, cachegrind, recorded_replay_bench); ids past
// kDenseLimit, which only another tool's trace would carry, go to a set.
class WokenSet {
 public:
  static constexpr uint64_t kDenseLimit = uint64_t{1} << 26;  // 8 MiB of bits at most

  bool contains(uint64_t id) const {
    if (id >= kDenseLimit) return sparse_.contains(id);
    return id / 64 < dense_.size() && ((dense_[id / 64] >> (id % 64)) & 1) != 0;
  }
  void insert(uint64_t id) {
    if (id >= kDenseLimit) {
      sparse_.insert(id);
      return;
    }
    if (id / 64 >= dense_.size()) dense_.resize(id / 64 + 1);  // the vector grows geometrically
    dense_[id / 64] |= uint64_t{1} << (id % 64);
  }

 private:
  std::vector<uint64_t> dense_;  // bit id % 64 of word id / 64
  std::set<uint64_t> sparse_;
};

struct FutexWakes {
  WokenSet woken;                          // wake ids replayed so far
  std::multimap<uint64_t, Task*> waiters;  // wake id -> tasks asleep for it
};

// Models futex_wait(): t sleeps until wake `wake_id` has replayed (at once when it has), or
// `fallback` when wake_id is 0 (no recorded waker).
Co<void> futex_wait(Task& t, uint64_t wake_id, SimTime fallback);

// Models futex_wake(): marks `wake_id` replayed and wakes the tasks waiting for it. 0: a wake
// that ended no recorded wait (nothing to do). `wake_flags` WF_SYNC: the waker is about to sleep
// (a pipe's wake_up_interruptible_sync_poll()), so a wakee may move to its CPU
// (sched/wake_affine.h); a real futex wake has none (wake_up_q()).
Co<void> futex_wake(Task& t, uint64_t wake_id, uint32_t wake_flags = 0);

// Wakes every waiter still asleep (the end of a run with wakes that never replayed, e.g. their
// task was OOM-killed). Returns how many.
size_t futex_wake_all(FutexWakes& f, SimTime now);

}  // namespace mmreplay::kernelsim
