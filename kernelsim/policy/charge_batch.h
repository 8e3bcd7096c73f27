// Knob `charge_batch`: pages a CPU charges to the memcg counter at once and keeps in its per-CPU
// stock (memcg_stock_pcp) for the next charges.
//   32  CHARGE_BATCH (3.x) / MEMCG_CHARGE_BATCH before 6.1
//   64  MEMCG_CHARGE_BATCH from 6.1 (version: kernel-mm.md section 5)

#pragma once

#include <cstdint>

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class ChargeBatchPolicy {
 public:
  virtual ~ChargeBatchPolicy() = default;
  virtual uint32_t size() const = 0;
};

PolicyKnob charge_batch_knob();
PolicyValue charge_batch_32();
PolicyValue charge_batch_64();

}  // namespace mmreplay::kernelsim
