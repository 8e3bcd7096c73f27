// PageCounter: the usage counter of one memory cgroup against its limit, in the form policy
// `memcg` picks (mm/memcontrol.c, kernel/res_counter.c, mm/page_counter.c):
//   res_counter   (<= 3.18) usage and limit under counter->lock, a QSpinLock of lock class
//                 "&counter->lock": every charge and every uncharge batch takes it (seed 001);
//   page_counter  (3.19+, 3e32cb2e0a12) an atomic add on the counter's cache line; a charge that
//                 passes the limit is taken back with a second atomic. No lock class.
// One hierarchy level is modelled (the group directly below the root, which is never charged).
//
// Invariants (asserted in page_counter.cpp):
//  (1) usage() <= limit() after every charge completes;
//  (2) an uncharge never takes usage below zero.

#pragma once

#include <cstdint>
#include <memory>

#include "kernelsim/locking/cacheline.h"
#include "kernelsim/locking/qspinlock.h"
#include "kernelsim/policy/kernel_config.h"
#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Simulation;
class Task;

inline constexpr uint64_t kNoPageLimit = ~uint64_t{0};

class PageCounter {
 public:
  // REQUIRES: kind != MemcgCounterKind::kOff.
  PageCounter(Simulation& sim, MemcgCounterKind kind, uint64_t limit_pages);

  // Models res_counter_charge() / page_counter_try_charge(): adds nr pages unless that passes
  // the limit (then failcnt is bumped). Returns true when charged.
  Co<bool> try_charge(Task& t, uint64_t nr);
  // Models res_counter_uncharge() / page_counter_uncharge(). REQUIRES: nr <= usage().
  Co<void> uncharge(Task& t, uint64_t nr);

  uint64_t usage() const { return usage_; }
  uint64_t limit() const { return limit_; }
  uint64_t failcnt() const { return failcnt_; }
  // Pages that fit under the limit (mem_cgroup_margin()).
  uint64_t margin() const { return limit_ > usage_ ? limit_ - usage_ : 0; }

 private:
  class AtomicStep;
  // The part of a charge or an uncharge that changes usage. Returns false on a failed charge.
  bool apply(int64_t delta);

  Simulation& sim_;
  MemcgCounterKind kind_;
  uint64_t limit_;
  uint64_t usage_ = 0;
  uint64_t failcnt_ = 0;
  std::unique_ptr<QSpinLock> lock_;  // res_counter: counter->lock
  CacheLine line_;                   // page_counter: the counter's line
};

}  // namespace mmreplay::kernelsim
