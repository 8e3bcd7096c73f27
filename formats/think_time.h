// ThinkClock: the on-CPU user time a trace thread spent before each of its events, read from the
// gaps between events, the one place that arithmetic lives (replay's closed-loop timing and the
// importers' think-time report both use it).
//
// A recorded gap (this event's start minus the previous event's end, that end being its start
// plus its observed duration when the capture knew it) holds more than the program's own work:
//   - the recorder's cost per event: perf writing its samples and the syscall entry and exit
//     around the timestamps, which the model charges again itself (GapCosts::tracing_ns);
//   - after a page fault, the fault's kernel time: a fault has no exit event, so its end is not
//     known and its kernel time stays in the gap while the model adds its own fault on top
//     (GapCosts::fault_ns).
// Both are measured by `record` on the recording machine and stored in the trace header
// (RecorderInfo, format 1.3); a trace without them (older files, other recorders) has both 0 and
// its gaps are replayed as recorded. fault_ns is a zero-fill fault's; a fault that copied a page
// held more, which only the model knows of: replay takes that surplus out of the gap after it
// (replay/trace_op_source.h).
//
// Time the thread spent off its CPU inside a gap (an off_cpu observation: preempted, or asleep in
// a fault) is not think time either: the off_cpu event ends where the thread ran again, so the gap
// splits in two around it, and the costs of the one recorded gap are taken from its pieces in
// order.
//
// The costs are medians, so a gap with no user work in it sits at the cost itself and about half
// of such gaps clamp: noise around the median, not a cost taken out twice. (mremap_grow, issue
// 19: 2,700 of its 2,733 clamps follow a fault that the next mmap follows at once, median gap
// 2,284 ns against 751 + 1,512 ns of costs; its syscall-to-syscall gaps keep ~100 ns more than
// the few instructions between the calls.)
//
// Invariants: (1) a gap is never negative: costs larger than the recorded gap (its pieces
// together) clamp it to 0 and count one clamp; (2) an event that starts inside the previous one
// (a kernel-mode fault inside its syscall) has no gap, takes nothing out and does not move the
// end back; (3) with zero costs and no off_cpu events the gaps are exactly the recorded ones.

#pragma once

#include <cstdint>

#include "formats/event.h"
#include "formats/trace_meta.h"

namespace mmreplay::formats {

struct GapCosts {
  uint64_t tracing_ns = 0;  // taken out of every gap
  uint64_t fault_ns = 0;    // also taken out of the gap after a user-mode fault

  static GapCosts from(const RecorderInfo& r) { return {r.tracing_cost_ns, r.fault_cost_ns}; }
};

// What a clock took out of its gaps, for the results.
struct GapTally {
  uint64_t removed_ns = 0;  // recorded gap time not replayed as think time
  uint64_t clamps = 0;      // gaps the costs exceeded (clamped to 0)
};

// One thread's clock: feed it the thread's events in stream order.
class ThinkClock {
 public:
  explicit ThinkClock(GapCosts costs) : costs_(costs) {}

  // The think time before `e` (0 for the thread's first event), then advances past `e`.
  uint64_t gap_before(const Event& e, GapTally* tally);

 private:
  GapCosts costs_;
  bool first_ = true;
  uint64_t prev_end_ns_ = 0;          // latest end of an event so far
  bool prev_was_user_fault_ = false;  // the event that set prev_end_ns_ was a user-mode fault
  uint64_t debt_ns_ = 0;              // costs of the current gap not yet taken from its pieces
  bool in_gap_ = false;               // an off_cpu event split the current gap
};

}  // namespace mmreplay::formats
