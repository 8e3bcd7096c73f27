// CacheLine: ownership of one contended cache line (a lock word, an atomic counter).
//
// An atomic read-modify-write by a CPU that does not own the line first pulls it over, at the
// cost of the two CPUs' distance (sched/topology.h: an SMT sibling, another core of the socket
// -- cacheline_transfer --, or another socket); RMWs on one line serialise. This is what makes a
// shared atomic such as the rwsem count or a per-VMA lock's reader count stop scaling with CPUs,
// the effect behind the page-fault scalability threads.
//
// Invariant: busy_until never decreases (RMWs are applied in simulated-time order).

#pragma once

#include <cstdint>

#include "kernelsim/sched/topology.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class CacheLine {
 public:
  static constexpr int32_t kNoOwner = -1;

  // One atomic RMW by `cpu` issued at `at`; returns when it completes. Sets *bounced when the
  // line came from another CPU, and *cost (when given) to what the RMW itself took (the
  // transfer from the last owner, or atomic_local), without the wait for earlier RMWs.
  SimTime atomic_rmw(uint32_t cpu, SimTime at, const Topology& topo, bool* bounced,
                     SimTime* cost = nullptr) {
    const SimTime start = max(at, busy_until_);
    const bool moved = owner_ != kNoOwner && owner_ != static_cast<int32_t>(cpu);
    const SimTime own = moved ? topo.line_transfer(static_cast<uint32_t>(owner_), cpu)
                              : topo.line_transfer(cpu, cpu);
    busy_until_ = start + own;
    owner_ = static_cast<int32_t>(cpu);
    if (bounced != nullptr) *bounced = moved;
    if (cost != nullptr) *cost = own;
    return busy_until_;
  }

  // The line moves to `cpu` as part of a handoff that completes at `until` (the transfer is
  // charged by the caller).
  void hand_to(uint32_t cpu, SimTime until) {
    owner_ = static_cast<int32_t>(cpu);
    busy_until_ = max(busy_until_, until);
  }

  int32_t owner() const { return owner_; }

 private:
  int32_t owner_ = kNoOwner;
  SimTime busy_until_;
};

}  // namespace mmreplay::kernelsim
