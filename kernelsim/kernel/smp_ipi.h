// The inline half of kernel/smp.h: an IPI's delivery to one target and its handler's run there.
// A header because a 64-CPU shootdown is the hot path of a madvise-heavy run: the sender's loop
// (arch/x86/tlb.cpp flush_tlb_multi()) takes the handler as a template argument, so delivery and
// handler inline into it with no call a target (out of line, the two calls' register saves and
// the csd passed through memory were a fifth of the host instructions a target cost).
// Included by .cpp files only: it needs the whole Simulation.

#pragma once

#include <cassert>
#include <cstdint>

#include "kernelsim/kernel/smp.h"
#include "kernelsim/sched/cpu.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

namespace smp_detail {

// The interrupt's entry, or a joined csd's read, on the CPU's IRQ track (smp.cpp). Out of line:
// the tracing-off path stays small.
[[gnu::noinline]] void trace_csd_overhead(TraceSink& ts, uint32_t cpu, bool joined, SimTime start,
                                          SimTime overhead);

}  // namespace smp_detail

// Runs a csd's handler on `cpu`, there from `arrival`: its time is stolen from the task there, and
// it acks into `wait`, whose initiator spins on CPU `initiator_cpu`. handler(start) does the
// handler's state change and returns its duration.
//
// Which interrupt runs it (the CALL_FUNCTION vector): the handler (smp_call_function_interrupt())
// acks the APIC on entry and then takes the whole call_single_queue at once
// (flush_smp_call_function_queue(): llist_del_all()), so a csd queued before that point runs in
// that interrupt without an entry of its own; one queued later while the handler runs sets the
// vector's IRR bit, which holds one pending interrupt however many IPIs arrive, taken right after
// the running one returns. Under a flood of shootdowns a CPU thus pays ipi_handler_entry once a
// batch, not once an IPI. A csd that joins a batch still reads its csd and flush_tlb_info,
// written by the initiator: one line transfer from the initiator's CPU, as its ack is one back
// (the first csd of an interrupt has that read inside ipi_handler_entry).
template <typename Handler>
[[gnu::always_inline]] inline void run_call_function(Simulation& sim, Cpu& cpu, SimTime arrival,
                                                     CsdWait& wait, uint32_t initiator_cpu,
                                                     Handler&& handler) {
  const SimTime entry = sim.costs().ipi_handler_entry;
  const SimTime line = sim.topology().line_transfer(cpu.id, initiator_cpu);
  SimTime start = cpu.irq_busy_until;
  SimTime overhead = entry;
  bool joined = false;
  if (arrival >= cpu.irq_busy_until) {
    // The CPU is not in a handler: the IPI interrupts it now.
    start = arrival;
    cpu.irq_collected_at = arrival + entry;
  } else if (arrival <= cpu.irq_collected_at) {
    // In the queue the last interrupt takes: runs after what that interrupt runs before it.
    overhead = line;
    joined = true;
  } else {
    // Pending in IRR while a handler runs: one more interrupt once it returns.
    cpu.irq_collected_at = start + entry;
  }
  if (TraceSink* ts = sim.trace()) {
    smp_detail::trace_csd_overhead(*ts, cpu.id, joined, start, overhead);
  }
  const SimTime work = handler(start + overhead);
  const SimTime duration = overhead + work;
  cpu.irq_busy_until = start + duration;
  if (cpu.curr != nullptr) cpu.pending_steal.push_back(IrqSteal{start, duration});
  cpu.counters.irq_ns += static_cast<uint64_t>(duration.count_ns());
  // The ack clears the csd flag the initiator spins on: that line goes back to its CPU.
  wait.ack(cpu.irq_busy_until + line);
}

// Models smp_call_function_many_cond()'s per-CPU part: __smp_call_single_queue() and the IPI.
template <IpiHandler Handler>
[[gnu::always_inline]] inline void send_call_function_ipi(Task& t, Cpu& target, SimTime sent,
                                                          SimTime arrival, const void* info,
                                                          CsdWait& wait) {
  assert(t.cpu().irqs_disabled == 0 && "invariant (1): IPI sent with interrupts off");
  assert(&target != &t.cpu());
  wait.expect_ack();
  if (target.irqs_disabled > 0) {
    target.call_single_queue.push_back(CallSingleData{sent, arrival, Handler, info, &wait});
    return;
  }
  run_call_function(
      t.sim(), target, arrival, wait, t.cpu().id,
      [info, &target, sent](SimTime start) { return Handler(info, target, start, sent); });
}

}  // namespace mmreplay::kernelsim
