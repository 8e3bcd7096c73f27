// PolicySet: the knobs that are decision procedures over the model's state, as objects the model
// consults at its decision points (madv_free.h, fault_lock.h, watermarks.h). Every other knob is
// a plain KernelConfig field read where it is used. Built from the config and owned by the
// Simulation.

#pragma once

#include <memory>

#include "kernelsim/policy/fault_lock.h"
#include "kernelsim/policy/kernel_config.h"
#include "kernelsim/policy/madv_free.h"
#include "kernelsim/policy/watermarks.h"

namespace mmreplay::kernelsim {

struct PolicySet {
  std::unique_ptr<const MadvFreePolicy> madv_free;
  std::unique_ptr<const FaultLockPolicy> fault_lock;
  std::unique_ptr<const WatermarkPolicy> watermarks;

  static PolicySet build(const KernelConfig& config) {
    return {make_madv_free_policy(config.madv_free), make_fault_lock_policy(config.fault_lock),
            make_watermark_policy(config.watermarks)};
  }
};

}  // namespace mmreplay::kernelsim
