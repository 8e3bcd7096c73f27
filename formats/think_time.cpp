#include "formats/think_time.h"

namespace mmreplay::formats {

namespace {

bool is_off_cpu(const Event& e) {
  return e.kind == EventKind::kObservation &&
         e.arg0 == static_cast<uint64_t>(ObservationKind::kOffCpu) && e.has_duration();
}

}  // namespace

uint64_t ThinkClock::gap_before(const Event& e, GapTally* tally) {
  const uint64_t end = e.end_ns();
  const bool off_cpu = is_off_cpu(e);
  const bool user_fault =
      e.kind == EventKind::kPageFault && !e.has_duration() && !e.is_kernel_mode();
  if (first_ || e.ts_ns <= prev_end_ns_) {
    // (2) The first event starts the thread; one inside the previous event (a kernel-mode fault
    // in its syscall, a tracepoint in a fault, a sleep in a blocking call) is part of that
    // event's kernel time.
    const bool extends = first_ || end > prev_end_ns_;
    first_ = false;
    if (extends) {
      prev_end_ns_ = end;
      if (!off_cpu) prev_was_user_fault_ = user_fault;
    }
    return 0;
  }
  const uint64_t piece = e.ts_ns - prev_end_ns_;
  if (!in_gap_) debt_ns_ = costs_.tracing_ns + (prev_was_user_fault_ ? costs_.fault_ns : 0);
  const uint64_t take = piece < debt_ns_ ? piece : debt_ns_;
  debt_ns_ -= take;
  tally->removed_ns += take;
  prev_end_ns_ = end;
  in_gap_ = off_cpu;  // the gap goes on after the thread is back on its CPU
  if (!off_cpu) {
    if (debt_ns_ > 0) ++tally->clamps;  // (1)
    prev_was_user_fault_ = user_fault;
  }
  return piece - take;
}

}  // namespace mmreplay::formats
