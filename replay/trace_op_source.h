// TraceOpSource: turns one trace thread's events into the model's Ops (kernelsim/sim/op.h).
//
// Timing (DESIGN.md, "Replay timing"):
//  - closed loop (default): before each event the thread thinks for the user-space time the trace
//    saw between the previous event's end and this event's start (its start gap minus the
//    observed duration of the previous event when the capture knew it), so a slower simulated
//    kernel delays everything after it, as it would delay the real program;
//  - open loop: each event starts at its trace timestamp (relative to the trace's start) or as
//    soon as the thread is free if it is late; how late it started is recorded.
// A `block` event (a blocking syscall) replays as sleep for its recorded duration: the task is off
// its CPU and the gap after it is measured from its end, so think time stays on-CPU user time.
// A `clone` event starts the child's task (run.cpp creates it waiting); a `wait_child` sleeps
// until that child's task has exited.
// Events the model does not replay (observations, blocks without a duration) still consume their
// time gap and are counted per kind in `skipped`.

#pragma once

#include <array>
#include <cstdint>

#include "formats/event.h"
#include "kernelsim/sim/histogram.h"
#include "kernelsim/sim/op.h"
#include "kernelsim/sim/task.h"
#include "replay/event_stream.h"

namespace mmreplay::replay {

enum class Timing { kClosed, kOpen };

// What a source saw, for the run's results.
struct SourceCounters {
  uint64_t events = 0;                                       // trace events consumed
  std::array<uint64_t, formats::kEventKindCount> skipped{};  // consumed but not modelled
  kernelsim::Histogram open_loop_lateness;                   // ns an op started after its timestamp
};

class TraceOpSource final : public kernelsim::OpSource {
 public:
  // `origin_ns`: the trace timestamp that is virtual time zero.
  TraceOpSource(EventStream stream, Timing timing, uint64_t origin_ns, SourceCounters* counters);

  // The task running this source (open-loop timing reads its clock). Set before the run starts.
  void attach(const kernelsim::Task* task) { task_ = task; }

  bool next(kernelsim::Op& op) override;

  // A decode error met while reading (the stream then ends early).
  const Status& status() const { return stream_.status(); }

 private:
  // Translates the current event; false when the model has no Op for it.
  bool translate(kernelsim::Op& op) const;
  // The think time before the current event, or 0.
  uint64_t gap_before_current();

  EventStream stream_;
  Timing timing_;
  uint64_t origin_ns_;
  SourceCounters* counters_;
  const kernelsim::Task* task_ = nullptr;
  bool have_event_ = false;     // the current event is read but its Op is not yet returned
  bool think_emitted_ = false;  // the think Op before the current event was returned
  uint64_t prev_end_ns_ = 0;    // trace time the previous event ended (closed loop)
  bool first_ = true;
};

}  // namespace mmreplay::replay
