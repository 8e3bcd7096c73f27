// Interrupt enable state of a CPU (include/linux/irqflags.h, arch/x86/include/asm/irqflags.h).
//
// Cpu::irqs_disabled counts nested local_irq_save() sections (spin_lock_irqsave() inside
// spin_lock_irq() and the like); interrupts are enabled again when the outermost section ends. A
// csd queued on a CPU with interrupts off waits in its call_single_queue (kernel/smp.h) and runs
// after the section, when they are re-enabled if an IPI landed meanwhile, else when the first IPI
// lands: a spin_lock_irq*() hold is never stretched by a handler, the IPI's initiator waits
// instead. A reschedule IPI landing in the section stays pending in IRR (Cpu::resched_pending_at)
// and its entry is charged after it, before the csds (its vector has the higher priority).
//
// The model marks the sections that run at global time (spin_lock_irq*() holders and spinners,
// locking/qspinlock.h). Sections done as private work of a task (bh_lru_lock() in fs/buffer.cpp,
// tens of ns) sit ahead of global time, where no IPI can see them; their handlers are charged at
// the task's next sync point, which is after the section, but the initiator does not wait for
// the section's remaining time.

#pragma once

#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Simulation;
struct Cpu;

// Models local_irq_save() / local_irq_disable() on `cpu`.
void local_irq_save(Cpu& cpu);

// Models local_irq_restore() / local_irq_enable() on `cpu` at `at` (now()): when this ends the
// outermost section, the IPIs queued meanwhile run (flush_smp_call_function_queue()).
// REQUIRES: cpu.irqs_disabled > 0.
void local_irq_restore(Simulation& sim, Cpu& cpu, SimTime at);

// irqs_disabled()
bool irqs_disabled(const Cpu& cpu);

}  // namespace mmreplay::kernelsim
