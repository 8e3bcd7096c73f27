// TraceSink: where the model's tracepoints go (a timeline writer in replay/, a recorder in tests).
//
// A Simulation holds at most one sink (Simulation::set_trace_sink(); nullptr = tracing off). Each
// hook in the model is one line at the place the kernel has a tracepoint (sched_switch,
// contention_begin/end, tlb_flush, ipi_send_cpu, mm_vmscan_direct_reclaim_begin/end,
// mm_vmscan_kswapd_wake/sleep) and costs one predictable branch when tracing is off:
//
//   if (TraceSink* ts = sim.trace()) ts->begin(Track::task(t.id()), name, TraceCat::kLockHold, at);
//
// Tracks. Slices on one track must nest (Chrome "X" events), so each kind of event goes where
// nesting holds by construction:
//   Track::cpu(n)   which task runs on CPU n (run_slice(): from the switch in to the switch out);
//                   nothing else, so slices there never overlap.
//   Track::irq(n)   IPI handlers run on CPU n (sequential: a CPU runs one handler at a time).
//   Track::task(i)  what task i does in the kernel: lock waits and holds, TLB flushes, IPIs it
//                   sent, direct reclaim, kswapd runs. A task is bound to one CPU; its track
//                   sits under that CPU's. Lock holds live here rather than on the CPU track
//                   because an rwsem holder may sleep or be preempted while holding it: its hold
//                   would partially overlap the next task's run slice.
//
// Contract for callers (the writer relies on it, tests check it):
//  (1) On one track, begin(), instant() and complete() come with non-decreasing start times;
//      end() never precedes its begin(). Task clocks only move forward, so hooks that use the
//      task's clock (or the grant time of a lock it waits for) satisfy this.
//  (2) end() names the same (name, cat) as its begin(). Ends out of LIFO order are allowed; a
//      writer keeps nesting by splitting the slices still open above (see TimelineJsonWriter).
//  (3) Names and keys are string views that stay valid for the sink's lifetime (lock class
//      names live in LockStat, the rest are literals).

#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

struct Track {
  enum class Kind : uint8_t { kCpu, kIrq, kTask };
  Kind kind;
  uint32_t id;

  static constexpr Track cpu(uint32_t n) { return Track{Kind::kCpu, n}; }
  static constexpr Track irq(uint32_t n) { return Track{Kind::kIrq, n}; }
  static constexpr Track task(uint32_t id) { return Track{Kind::kTask, id}; }
  friend constexpr bool operator==(Track, Track) = default;
};

// What a slice or instant is; a writer turns it into the Chrome "cat" (and "wait " name prefix).
enum class TraceCat : uint8_t {
  kSched,     // a task running
  kLockWait,  // waiting for a lock (spinning or asleep)
  kLockHold,  // holding a lock
  kTlb,       // a TLB flush by the task
  kIpi,       // an IPI sent (instant) or handled (slice)
  kReclaim,   // direct reclaim, kswapd's balance_pgdat()
};

struct TraceArg {
  std::string_view key;
  int64_t value;
};
using TraceArgs = std::initializer_list<TraceArg>;

class TraceSink {
 public:
  virtual ~TraceSink() = default;

  // A track's label: called for CPU tracks when the sink is attached and for a task when it
  // starts (kswapd included).
  virtual void name_task(uint32_t task_id, uint32_t cpu, uint32_t mm_id, bool kthread) = 0;

  // Task `task_id` ran on `cpu` from `start` for `dur` (sched_switch in, then out).
  virtual void run_slice(uint32_t cpu, uint32_t task_id, SimTime start, SimTime dur) = 0;

  // A slice whose end is not known yet (a lock hold, a reclaim run), and its end.
  virtual void begin(Track track, std::string_view name, TraceCat cat, SimTime at) = 0;
  virtual void end(Track track, std::string_view name, TraceCat cat, SimTime at) = 0;

  // A slice known whole (a lock wait at its grant, an IPI handler when it is queued).
  virtual void complete(Track track, std::string_view name, TraceCat cat, SimTime start,
                        SimTime dur, TraceArgs args = {}) = 0;

  // A point event (an IPI sent).
  virtual void instant(Track track, std::string_view name, TraceCat cat, SimTime at,
                       TraceArgs args = {}) = 0;

  // One sample of a counter group ("free pages", "LRU pages"); each arg is one series.
  virtual void counter(std::string_view name, SimTime at, TraceArgs series) = 0;

  // Virtual time between two counter samples; the Simulation samples at most this often.
  virtual SimTime counter_interval() const = 0;
};

// One-line hooks for a slice on a task's track; no-ops when tracing is off (ts == nullptr).
inline void trace_task_begin(TraceSink* ts, uint32_t task_id, std::string_view name, TraceCat cat,
                             SimTime at) {
  if (ts != nullptr) ts->begin(Track::task(task_id), name, cat, at);
}
inline void trace_task_end(TraceSink* ts, uint32_t task_id, std::string_view name, TraceCat cat,
                           SimTime at) {
  if (ts != nullptr) ts->end(Track::task(task_id), name, cat, at);
}

// contention_begin / contention_end of a lock granted to a waiter: the wait [since, granted] and
// the hold that starts at the grant.
inline void trace_contended_acquire(TraceSink& ts, uint32_t task_id, std::string_view lock,
                                    SimTime since, SimTime granted) {
  ts.complete(Track::task(task_id), lock, TraceCat::kLockWait, since, granted - since);
  ts.begin(Track::task(task_id), lock, TraceCat::kLockHold, granted);
}

}  // namespace mmreplay::kernelsim
