#include "kernelsim/policy/rwsem_wake.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

class PhaseFair final : public RwsemWakePolicy {
 public:
  bool wake_readers_past_writers() const override { return true; }
};

class Contiguous final : public RwsemWakePolicy {
 public:
  bool wake_readers_past_writers() const override { return false; }
};

}  // namespace

PolicyKnob rwsem_wake_knob() {
  return {"rwsem_wake", "readers woken by one rwsem wake-up", "phase-fair", {}};
}

PolicyValue rwsem_wake_phase_fair() {
  return {"phase-fair", "5.3+: up to MAX_READERS_WAKEUP readers, skipping writers",
          [](PolicySet& s) { s.rwsem_wake = std::make_unique<PhaseFair>(); }};
}

PolicyValue rwsem_wake_contiguous() {
  return {"contiguous", "3.x: the readers before the first waiting writer",
          [](PolicySet& s) { s.rwsem_wake = std::make_unique<Contiguous>(); }};
}

}  // namespace mmreplay::kernelsim
