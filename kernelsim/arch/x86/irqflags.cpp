#include "kernelsim/arch/x86/irqflags.h"

#include <cassert>

#include "kernelsim/kernel/smp.h"
#include "kernelsim/kernel/smp_ipi.h"
#include "kernelsim/sched/cpu.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

void local_irq_save(Cpu& cpu) {
  ++cpu.irqs_disabled;
}

namespace {

// The reschedule interrupt pending since the section (Cpu::resched_pending_at) fires once
// interrupts are on (`at`), the IPI has landed and any handler before it has returned:
// scheduler_ipi() is its entry alone (need_resched was set by the waker), the running task's
// cost. Counted as a deferred IPI when it had landed before `at`.
void take_pending_resched(Simulation& sim, Cpu& cpu, SimTime at) {
  const SimTime landed = cpu.resched_pending_at;
  cpu.resched_pending_at = SimTime::infinite();
  count_deferred_ipi(cpu, landed, at);
  steal_irq_time(cpu, max(max(landed, at), cpu.irq_busy_until), sim.costs().ipi_handler_entry);
}

}  // namespace

void local_irq_restore(Simulation& sim, Cpu& cpu, SimTime at) {
  assert(cpu.irqs_disabled > 0 && "local_irq_restore() without local_irq_save()");
  if (--cpu.irqs_disabled > 0) return;
  // sti: the pending CALL_FUNCTION vector fires now. An interrupt pending in IRR from before
  // (kernel/smp_ipi.h) could not fire inside the section: it comes at the sti at the earliest.
  // (The model does not know when the section began: one that should have fired before it is
  // late by the section.)
  if (cpu.irr_pending_at != SimTime::infinite()) cpu.irr_pending_at = max(cpu.irr_pending_at, at);
  // A reschedule IPI that landed in the section fires first: RESCHEDULE_VECTOR (0xfd) outranks
  // CALL_FUNCTION_VECTOR (0xfc) among the vectors pending in IRR. One still in flight comes
  // after the CALL_FUNCTION interrupt that is already there.
  if (cpu.resched_pending_at <= at) take_pending_resched(sim, cpu, at);
  if (!cpu.call_single_queue.empty()) flush_smp_call_function_queue(sim, cpu, at);
  if (cpu.resched_pending_at != SimTime::infinite()) take_pending_resched(sim, cpu, at);
}

bool irqs_disabled(const Cpu& cpu) {
  return cpu.irqs_disabled > 0;
}

}  // namespace mmreplay::kernelsim
