// SimFloor: what every task of a simulation stands on, and all that sim/ knows of it: virtual
// time and its event queue, the scheduler's time slice and entry points, and the trace sink.
//
// Simulation (kernelsim/simulation.h) is the roof built over it: it owns the model's components
// and derives from SimFloor, so a Task (sim/task.h) reaches the floor without seeing the model.

#pragma once

#include "kernelsim/sched/time_slice.h"
#include "kernelsim/sim/event_queue.h"
#include "kernelsim/sim/frame_pool.h"
#include "kernelsim/sim/time.h"
#include "kernelsim/sim/trace_sink.h"

namespace mmreplay::kernelsim {

class Scheduler;
class Task;

class SimFloor {
 public:
  SimTime now() const { return events_.now(); }
  EventQueue& events() { return events_; }
  // Coroutine frames of this simulation's kernel paths (sim/co.h).
  FramePool& frames() { return frames_; }
  // The attached trace sink, nullptr when not tracing.
  TraceSink* trace() const { return trace_; }
  // The fair class's slice on this machine, and the tick that ends it (sched/time_slice.h).
  const TimeSlice& time_slice() const { return time_slice_; }
  Scheduler& sched() { return *scheduler_; }
  // Labels t's track in the trace sink as it starts (the roof knows its mm and CPU).
  virtual void trace_task_start(const Task& t) = 0;

 protected:
  explicit SimFloor(const TimeSlice& time_slice) : time_slice_(time_slice) {}
  ~SimFloor() = default;
  SimFloor(const SimFloor&) = delete;
  SimFloor& operator=(const SimFloor&) = delete;

  // Declared first, destroyed last: every frame of the simulation is freed before it.
  FramePool frames_;
  EventQueue events_;
  TraceSink* trace_ = nullptr;
  TimeSlice time_slice_;
  Scheduler* scheduler_ = nullptr;  // set by the roof once its scheduler exists
};

}  // namespace mmreplay::kernelsim
