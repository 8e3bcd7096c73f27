// Knob `zap_lru_drain`: whether the zap paths drain this CPU's LRU batches first.
//   on   the kernel: madvise_dontneed_single_vma() / zap_page_range() and unmap_region() call
//        lru_add_drain() before tlb_gather_mmu(), so the pages about to be freed are on the LRU
//        (one lru_lock round for a non-empty batch)
//   off  no drain: pages still in a batch are released when the batch drains (an experiment)

#pragma once

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class ZapLruDrainPolicy {
 public:
  virtual ~ZapLruDrainPolicy() = default;
  virtual bool drain() const = 0;
};

PolicyKnob zap_lru_drain_knob();
PolicyValue zap_lru_drain_on();
PolicyValue zap_lru_drain_off();

}  // namespace mmreplay::kernelsim
