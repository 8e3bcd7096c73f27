// Knob `lazy_tlb`: how a CPU in lazy-TLB mode (idle, still holding the last mm) takes a flush.
//   leave_mm  3.x: the lazy CPU stays in mm_cpumask and gets every shootdown IPI; its handler
//             calls leave_mm(), which switches to init_mm and clears it from mm_cpumask, so
//             later flushes skip it (arch/x86/mm/tlb.c: flush_tlb_func / do_flush_tlb_all).
//   skip      4.19+ (Rik van Riel's lazy-TLB series, 145f573b89a6, version unverified): lazy
//             CPUs get no IPI unless page tables are freed (tlb_is_not_lazy()); they compare the
//             mm's tlb_gen when they switch back and flush then.

#pragma once

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class LazyTlbPolicy {
 public:
  virtual ~LazyTlbPolicy() = default;
  // True when a lazy CPU in mm_cpumask must get the IPI for this flush.
  virtual bool ipi_lazy_cpu(bool freed_tables) const = 0;
  // True when a lazy CPU returning to its mm compares tlb_gen and flushes if stale.
  virtual bool check_tlb_gen_on_return() const = 0;
};

PolicyKnob lazy_tlb_knob();
PolicyValue lazy_tlb_leave_mm();
PolicyValue lazy_tlb_skip();

}  // namespace mmreplay::kernelsim
