// x86 TLB model: per-CPU loaded mm and lazy mode, mm_cpumask, and flush_tlb_mm_range() with
// shootdown IPIs or broadcast invalidation (arch/x86/mm/tlb.c).
//
// A flush of n pages is done with n single-page INVLPGs when n <= tlb_single_page_flush_ceiling
// (33), else with one full flush; on the initiating CPU (if it has the mm loaded) and, under
// tlb=ipi, in an IPI handler on every other CPU of mm_cpumask (lazy CPUs per policy lazy_tlb).
// Each handler's time (entry + flush) is stolen from whatever task runs on the target; the
// initiator spins until the last ack (native_flush_tlb_multi(), wait=1), its local flush running
// meanwhile (5.12+, 4ce94eabac16). Under tlb=broadcast no IPIs are sent: the initiator issues
// INVLPGB for the range (or the ASID) and waits in TLBSYNC. Under tlb=pv (a guest whose
// pv_ops.mmu.flush_tlb_multi is a hypercall, as hyperv_flush_tlb_multi()) no IPIs are sent
// either: when another CPU is in mm_cpumask, one hypercall names this CPU and the others (lazy
// ones only when page tables were freed) and the host invalidates them; nothing runs in the guest
// on the targets, and their tlb_gen does not move.
//
// Invariants (asserted in tlb.cpp):
//  (1) every shootdown has exactly one initiator, which waits for all the acks it expects;
//  (2) a CPU is in mm->cpumask iff it has that mm loaded (running it or lazily); Mm::ran_on, the
//      mask 6.14+ keeps (mm_cpumask=lazy), holds those and the CPUs that ran it since a flush of
//      the mm last found them running another;
//  (3) an IPI handler runs on its target after the previous handler there has finished, and
//      outside the target's interrupts-off sections (kernel/smp.h).

#pragma once

#include <cstdint>

#include "kernelsim/constants.h"
#include "kernelsim/kernel/smp.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Mm;
class Simulation;
struct Cpu;

// Models switch_mm_irqs_off(): `cpu` starts running a task of `next` (nullptr: a task with no mm,
// which runs lazily on the previous one). Returns the time this costs the incoming task.
SimTime switch_mm_irqs_off(Simulation& sim, Cpu& cpu, Mm* next);

// Models enter_lazy_tlb(): an idle CPU keeps its mm loaded and stays in mm_cpumask.
void enter_lazy_tlb(Cpu& cpu);

// Models leave_mm(): switch to init_mm; the CPU leaves the old mm's cpumask.
void leave_mm(Simulation& sim, Cpu& cpu);

// The range of one flush, as struct flush_tlb_info. The caller gives the first four;
// flush_tlb_mm_range() sets the last two (get_flush_tlb_info()) for the handlers to read.
struct FlushTlbInfo {
  Mm* mm = nullptr;
  uint64_t start = 0;         // first byte
  uint64_t end = 0;           // one past the last byte
  bool freed_tables = false;  // page-table pages were freed (lazy CPUs must be told)
  uint64_t new_tlb_gen = 0;   // mm->tlb_gen this flush brings every CPU up to
  uint32_t initiating_cpu = 0;
  uint32_t stride_shift = PAGE_SHIFT;  // one INVLPG per 1 << stride_shift bytes

  // INVLPGs of a ranged flush (flush_tlb_func()'s loop: one per stride started in the range);
  // over tlb_single_page_flush_ceiling the flush is a full one.
  uint64_t nr_pages() const {
    return (end - start + (uint64_t{1} << stride_shift) - 1) >> stride_shift;
  }
};

// What one flush does on each CPU it reaches, worked out once from its FlushTlbInfo: each
// flush_tlb_func() recomputes it, which the model's 64-CPU shootdowns did several times a target.
struct FlushExtent {
  bool full = false;       // over tlb_single_page_flush_ceiling: one full flush
  uint64_t nr_pages = 0;   // FlushTlbInfo::nr_pages()
  uint64_t start_vpn = 0;  // the 4 KiB pages [start_vpn, end_vpn) a ranged flush drops
  uint64_t end_vpn = 0;
  SimTime cost;  // the flush's time on one CPU (tlb_flush_full, or nr_pages x tlb_flush_single)
};

// Models flush_tlb_mm_range(): t goes on at the end of the flush (last ack or TLBSYNC). A
// handler deferred by a target with interrupts off (kernel/smp.h) parks t spinning until its ack.
// REQUIRES: info.mm != nullptr, info.start < info.end, page aligned; t's interrupts enabled.
class FlushTlbStep final : public SharedStep {
 public:
  FlushTlbStep(Task& t, const FlushTlbInfo& info) : SharedStep(t), info_(info), wait_(t) {}
  bool run_now() override;

  // What the shootdown's handlers read (their info pointer is this step, which outlives them).
  const FlushTlbInfo& info() const { return info_; }
  // The flush on each CPU (set when the step runs).
  const FlushExtent& extent() const { return extent_; }
  Task& initiator() const { return task_; }

 private:
  FlushTlbInfo info_;
  FlushExtent extent_;
  CsdWait wait_;
};

// co_await flush_tlb_mm_range(t, info);
inline FlushTlbStep flush_tlb_mm_range(Task& t, const FlushTlbInfo& info) {
  return FlushTlbStep(t, info);
}

// Models arch_tlbbatch_flush() under tlb=ipi (4.3+): reclaim's deferred unmap flushes, one full
// flush of no mm in particular (TLB_FLUSH_ALL: each handler flushes whatever its CPU runs) on
// every CPU of `targets`, the union of the batch's mms' masks as they were when each pte was
// cleared: this CPU when it is in it, and the others by IPI but lazy ones (should_flush_tlb();
// lazy_tlb=leave_mm: they leave the mm). t goes on at the last ack.
// REQUIRES: t's interrupts enabled.
class TlbBatchFlushStep final : public SharedStep {
 public:
  TlbBatchFlushStep(Task& t, const CpuMask& targets);
  bool run_now() override;

  Task& initiator() const { return task_; }
  const FlushExtent& extent() const { return full_; }

 private:
  CpuMask targets_;
  FlushExtent full_;
  CsdWait wait_;
};

// co_await arch_tlbbatch_flush(t, targets);
inline TlbBatchFlushStep arch_tlbbatch_flush(Task& t, const CpuMask& targets) {
  return TlbBatchFlushStep(t, targets);
}

}  // namespace mmreplay::kernelsim
