// How long a task keeps its CPU while others wait there: the fair class's slice and the tick
// that enforces it (kernel/sched/fair.c).
//
// Neither CFS nor EEVDF preempts a task the moment its slice is used up: the scheduler tick
// (task_tick_fair() -> update_curr()) notices it, every TICK_NSEC, and marks the task for resched
// (check_preempt_tick() before 6.6, update_deadline() since). A task is thus preempted at the
// first tick at or after its slice's end. At HZ=250 every slice shorter than 4 ms lasts a tick:
// two busy threads pinned to one CPU of this project's 6.18 guest switched every 4.0 ms (251
// involuntary switches each in 2 s). Ticks fall at the same instants on every CPU (jiffies;
// skew_tick is off by default).
//
// A task woken onto a busy CPU may preempt sooner (check_preempt_wakeup()). CFS preempts for a
// wakee further behind in vruntime than sysctl_sched_wakeup_granularity: while it slept its
// CPU's min_vruntime moved on about as far as it slept, and place_entity() keeps it no further
// back than half of sched_latency, so the model has a wakee that slept at least the granularity
// preempt at once and one that slept less wait for the tick. EEVDF preempts for a wakee that is
// eligible by its lag (sched/eevdf_lag.h). A new task never preempts at its first wake-up
// (CFS's START_DEBIT places it a slice behind; the model treats EEVDF's alike).

#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>

#include "kernelsim/constants.h"
#include "kernelsim/policy/kernel_config.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

// get_update_sysctl_factor() under SCHED_TUNABLESCALING_LOG: 1 + ilog2(min(cpus, 8)).
inline int64_t sched_tunable_factor(uint32_t nr_cpus) {
  const uint32_t cpus = std::clamp(nr_cpus, 1u, SCHED_TUNABLESCALING_MAX_CPUS);
  return std::bit_width(cpus);  // 1 + ilog2(cpus)
}

// The first tick at or after `t`.
inline SimTime tick_at_or_after(SimTime t) {
  const int64_t ns = t.count_ns();
  const int64_t ticks = ns <= 0 ? 0 : (ns + TICK_NSEC - 1) / TICK_NSEC;
  return SimTime::ns(ticks * TICK_NSEC);
}

// How much user-mode work (think time, accesses that take no fault) the model runs before it
// looks for a preemption: a wake-up's preemption then lands at most this late. The normalized
// base slice, the interval the model used before it had ticks.
inline constexpr SimTime kUserModePreemptCheck = SimTime::ns(normalized_sysctl_sched_base_slice_ns);

class TimeSlice {
 public:
  TimeSlice(SchedSliceMode mode, uint32_t nr_cpus)
      : mode_(mode),
        base_slice_(
            SimTime::ns(normalized_sysctl_sched_base_slice_ns * sched_tunable_factor(nr_cpus))),
        latency_(SimTime::ns(normalized_sysctl_sched_latency_ns * sched_tunable_factor(nr_cpus))),
        wakeup_granularity_(SimTime::ns(normalized_sysctl_sched_wakeup_granularity_ns *
                                        sched_tunable_factor(nr_cpus))) {}

  // The slice of a task sharing its CPU with nr_running - 1 others (nr_running >= 2).
  // EEVDF: sysctl_sched_base_slice, whatever the load. CFS: sched_slice(), the task's share of
  // __sched_period() (sysctl_sched_latency, or nr_running x sysctl_sched_min_granularity beyond
  // sched_nr_latency tasks, a share of min_granularity), equal weights.
  SimTime slice(size_t nr_running) const {
    assert(nr_running >= 2);
    if (mode_ == SchedSliceMode::kEevdf || nr_running > sched_nr_latency) return base_slice_;
    return max(base_slice_, SimTime::ns(latency_.count_ns() / static_cast<int64_t>(nr_running)));
  }

  // When a task that got its CPU at `start` is preempted while nr_running share it: the tick
  // that finds the slice used up.
  SimTime preempt_tick(SimTime start, size_t nr_running) const {
    return tick_at_or_after(start + slice(nr_running));
  }

  // CFS: when a task that slept from `slept` to `woken`, woken onto a busy CPU, preempts its
  // running task (at its next preemption point from then); infinite: not at the wake-up. EEVDF
  // decides by the wakee's lag (sched/eevdf_lag.h).
  SimTime wakeup_preempt(SimTime slept, SimTime woken) const {
    assert(mode_ == SchedSliceMode::kCfs);
    return woken - slept >= wakeup_granularity_ ? woken : SimTime::infinite();
  }

  SimTime base_slice() const { return base_slice_; }
  bool eevdf() const { return mode_ == SchedSliceMode::kEevdf; }
  // The clamp of an EEVDF task's lag (update_entity_lag(): max(2 slices, a tick) of vruntime).
  SimTime lag_limit() const { return max(2 * base_slice_, SimTime::ns(TICK_NSEC)); }

 private:
  SchedSliceMode mode_;
  SimTime base_slice_;  // sysctl_sched_base_slice (CFS: sysctl_sched_min_granularity), scaled
  SimTime latency_;     // CFS's sysctl_sched_latency, scaled
  SimTime wakeup_granularity_;  // CFS's sysctl_sched_wakeup_granularity, scaled
};

}  // namespace mmreplay::kernelsim
