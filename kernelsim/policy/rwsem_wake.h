// Knob `rwsem_wake`: which readers rwsem_mark_wake() wakes when a reader heads the wait list.
//   phase-fair  5.3+: up to MAX_READERS_WAKEUP readers from anywhere in the queue, skipping
//               writers (kernel/locking/rwsem.c after Waiman Long's rework).
//   contiguous  3.x rwsem-xadd: only the readers in front of the first waiting writer.

#pragma once

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class RwsemWakePolicy {
 public:
  virtual ~RwsemWakePolicy() = default;
  virtual bool wake_readers_past_writers() const = 0;
};

PolicyKnob rwsem_wake_knob();
PolicyValue rwsem_wake_phase_fair();
PolicyValue rwsem_wake_contiguous();

}  // namespace mmreplay::kernelsim
