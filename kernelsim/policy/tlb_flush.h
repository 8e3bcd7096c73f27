// Knob `tlb`: how remote TLB entries are invalidated.
//   ipi        x86 shootdown: IPIs to the other CPUs of mm_cpumask, the initiator waits for all
//              acks (arch/x86/mm/tlb.c: native_flush_tlb_multi()).
//   broadcast  AMD INVLPGB + TLBSYNC / Intel RAR: no IPIs, a broadcast invalidation whose cost the
//              initiator pays (CONFIG_BROADCAST_TLB_FLUSH, ~6.15).

#pragma once

#include <cstdint>

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

struct TlbFlushView {
  uint64_t nr_pages = 0;      // pages in the range (0 = whole mm)
  uint32_t nr_remote = 0;     // other CPUs in mm_cpumask
};

enum class TlbFlushMethod { kIpi, kBroadcast };

class TlbFlushPolicy {
 public:
  virtual ~TlbFlushPolicy() = default;
  virtual TlbFlushMethod method(const TlbFlushView& view) const = 0;
};

PolicyKnob tlb_flush_knob();
PolicyValue tlb_ipi();
PolicyValue tlb_broadcast();

}  // namespace mmreplay::kernelsim
