// TraceOpSource: turns one trace thread's events into the model's Ops (kernelsim/sim/op.h).
//
// Timing (DESIGN.md, "Replay timing"):
//  - closed loop (default): before each event the thread thinks for the user-space time the trace
//    saw between the previous event's end and this event's start (its start gap minus the
//    observed duration of the previous event when the capture knew it), net of the recorder's
//    own per-event cost and of a user fault's kernel time where the header has them
//    (formats/think_time.h), so a slower simulated kernel delays everything after it, as it
//    would delay the real program;
//  - open loop: each event starts at its trace timestamp (relative to the trace's start) or as
//    soon as the thread is free if it is late; how late it started is recorded.
// A `block` event (a blocking syscall) replays as sleep for its recorded duration: the task is off
// its CPU and the gap after it is measured from its end, so think time stays on-CPU user time.
// A `clone` event starts the child's task (run.cpp creates it waiting); a `wait_child` sleeps
// until that child's task has exited.
// A failed_call observation (a call the kernel refused) replays as a syscall that fails.
// Events the model does not replay (other observations, blocks without a duration) still consume
// their time gap and are counted per kind in `skipped`. A kernel-mode fault (kFlagKernel) starts
// inside the syscall before it, so it replays right after that syscall with no think time between.
//
// The policy's trace rewrites (purge_advice, madvise_batch) act between the thread's EventStream
// and this source (replay/trace_rewrite.h): translate() sees the rewritten events, and the
// closed-loop think time comes with them.
//
// Why the tracing costs come out here and not at import: the stored timestamps stay the ones the
// recording saw (open-loop timing and `cat` read them), traces recorded before the costs were
// measured replay unchanged, and a better estimate later needs no re-import.

#pragma once

#include <array>
#include <cstdint>

#include "formats/event.h"
#include "formats/think_time.h"
#include "kernelsim/sim/histogram.h"
#include "kernelsim/sim/op.h"
#include "kernelsim/sim/task.h"
#include "replay/event_stream.h"
#include "replay/trace_rewrite.h"

namespace mmreplay::replay {

enum class Timing { kClosed, kOpen };

// What a source saw, for the run's results.
struct SourceCounters {
  uint64_t events = 0;                                       // trace events consumed
  std::array<uint64_t, formats::kEventKindCount> skipped{};  // consumed but not modelled
  formats::GapTally gaps;                                    // tracing cost taken out (closed loop)
  uint64_t kernel_mode_faults = 0;                           // page faults with kFlagKernel
  uint64_t failed_calls = 0;                // failed_call observations run as syscalls that fail
  kernelsim::Histogram open_loop_lateness;  // ns an op started after its timestamp
  RewriteTally rewrites;                    // what the trace rewrites changed
};

class TraceOpSource final : public kernelsim::OpSource {
 public:
  // `origin_ns`: the trace timestamp that is virtual time zero. `costs`: what closed-loop timing
  // takes out of each recorded gap (the trace header's, GapCosts::from(meta.recorder)).
  // `rewrites`: the policy's trace rewrites (none by default).
  TraceOpSource(EventStream stream, Timing timing, uint64_t origin_ns, SourceCounters* counters,
                formats::GapCosts costs = {}, const TraceRewrites& rewrites = {});

  // The task running this source (open-loop timing reads its clock; closed-loop timing takes
  // its Task::wp_copied). Set before the run starts.
  void attach(kernelsim::Task* task) { task_ = task; }

  bool next(kernelsim::Op& op) override;

  // A decode error met while reading (the stream then ends early).
  const Status& status() const { return stream_.status(); }

 private:
  // Translates the current event; false when the model has no Op for it.
  bool translate(kernelsim::Op& op) const;
  // The think time before the current event, or 0. `last`: the op returned before it
  // (OpSource::next()'s `op` as it comes in).
  uint64_t gap_before_current(const kernelsim::Op& last);
  // `gap` when `last` copied a write-protected page; takes Task::wp_copied. Out of line: it is
  // rare, and the common path stays short.
  [[gnu::noinline]] uint64_t less_wp_copy_surplus(const kernelsim::Op& last, uint64_t gap);

  RewrittenStream stream_;
  Timing timing_;
  uint64_t origin_ns_;
  SourceCounters* counters_;
  kernelsim::Task* task_ = nullptr;
  // Closed-loop timing of a trace whose gaps hold a user fault's kernel time (GapCosts::fault_ns
  // is not 0): a gap after a fault the model resolved by copying a write-protected page also
  // held the copy, beyond the zero-fill fault the recorder took out; that surplus
  // (kernelsim::wp_copy_surplus()) comes out of it too, clamped at 0 and tallied with the
  // recorder's costs (think_removed_ns, think_clamped). fork_touch (tests/real): its COW faults
  // kept ~1.3 us of their copy each as think time, on top of the model's own copy, and the
  // post-fork half replayed at 1.3x of its recording.
  bool gaps_hold_fault_time_;
  bool have_event_ = false;     // the current event is read but its Op is not yet returned
  bool think_emitted_ = false;  // the think Op before the current event was returned
};

}  // namespace mmreplay::replay
