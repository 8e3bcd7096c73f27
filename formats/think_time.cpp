#include "formats/think_time.h"

namespace mmreplay::formats {

uint64_t ThinkClock::gap_before(const Event& e, GapTally* tally) {
  const uint64_t end = e.ts_ns + (e.has_duration() ? e.duration_ns : 0);
  const bool user_fault =
      e.kind == EventKind::kPageFault && !e.has_duration() && !e.is_kernel_mode();
  if (first_ || e.ts_ns <= prev_end_ns_) {
    // (2) The first event starts the thread; one inside the previous event (a kernel-mode fault
    // in its syscall, a tracepoint in a fault) is part of that event's kernel time.
    const bool extends = first_ || end > prev_end_ns_;
    first_ = false;
    if (extends) {
      prev_end_ns_ = end;
      prev_was_user_fault_ = user_fault;
    }
    return 0;
  }
  const uint64_t recorded = e.ts_ns - prev_end_ns_;
  const uint64_t cost = costs_.tracing_ns + (prev_was_user_fault_ ? costs_.fault_ns : 0);
  prev_end_ns_ = end;
  prev_was_user_fault_ = user_fault;
  if (recorded < cost) {  // (1)
    tally->removed_ns += recorded;
    ++tally->clamps;
    return 0;
  }
  tally->removed_ns += cost;
  return recorded - cost;
}

}  // namespace mmreplay::formats
