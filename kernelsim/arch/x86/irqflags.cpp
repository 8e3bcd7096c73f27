#include "kernelsim/arch/x86/irqflags.h"

#include <cassert>

#include "kernelsim/kernel/smp.h"
#include "kernelsim/sched/cpu.h"

namespace mmreplay::kernelsim {

void local_irq_save(Cpu& cpu) {
  ++cpu.irqs_disabled;
}

void local_irq_restore(Simulation& sim, Cpu& cpu, SimTime at) {
  assert(cpu.irqs_disabled > 0 && "local_irq_restore() without local_irq_save()");
  if (--cpu.irqs_disabled > 0) return;
  // sti: the pending CALL_FUNCTION vector fires now. An interrupt pending in IRR from before
  // (kernel/smp_ipi.h) could not fire inside the section: it comes at the sti at the earliest.
  // (The model does not know when the section began: one that should have fired before it is
  // late by the section.)
  if (cpu.irr_pending_at != SimTime::infinite()) cpu.irr_pending_at = max(cpu.irr_pending_at, at);
  if (!cpu.call_single_queue.empty()) flush_smp_call_function_queue(sim, cpu, at);
}

bool irqs_disabled(const Cpu& cpu) {
  return cpu.irqs_disabled > 0;
}

}  // namespace mmreplay::kernelsim
