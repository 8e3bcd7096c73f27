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

// What a slice of interrupt overhead on a CPU's IRQ track is.
enum class CsdOverhead : uint8_t { kEntry, kCsdRead, kNeedlessEntry };

// The interrupt's entry, a joined csd's read, or the entry of an interrupt whose csd had run
// already, on the CPU's IRQ track (smp.cpp). Out of line: the tracing-off path stays small.
[[gnu::noinline]] void trace_csd_overhead(TraceSink& ts, uint32_t cpu, CsdOverhead what,
                                          SimTime start, SimTime overhead);

}  // namespace smp_detail

// Starts a CALL_FUNCTION interrupt on `cpu` at `start`: it acks the APIC there and takes the
// queue at the end of its entry.
inline void begin_call_function_irq(Cpu& cpu, SimTime start, SimTime entry) {
  cpu.irq_started_at = start;
  cpu.irq_collected_at = start + entry;
  ++cpu.counters.call_function_irqs;
}

// An interrupt on `cpu` from `start` for `duration`: the next one waits for its end, and the CPU's
// interrupt time counts it. Who pays for it is the caller's (steal_irq_time(), or a cut user run:
// Task::cut_user_run()).
inline void account_irq_time(Cpu& cpu, SimTime start, SimTime duration) {
  cpu.irq_busy_until = start + duration;
  cpu.counters.irq_ns += static_cast<uint64_t>(duration.count_ns());
}

// An IPI that landed on `cpu` at `landed` while it had interrupts off and is taken at `at`, when
// they are on again: counted as deferred, with its wait (none when it landed after `at`).
inline void count_deferred_ipi(Cpu& cpu, SimTime landed, SimTime at) {
  if (at <= landed) return;
  ++cpu.counters.ipis_deferred;
  cpu.counters.ipi_deferred_ns += static_cast<uint64_t>((at - landed).count_ns());
}

// Charges interrupt time on `cpu` to the task running there (sched/cpu.h pending_steal): none
// while idle, nor to a task that got the CPU after the interrupt started (a pending interrupt
// fired late, fire_needless_irq()).
inline void steal_irq_time(Cpu& cpu, SimTime start, SimTime duration) {
  if (cpu.curr != nullptr && start >= cpu.busy_since) {
    cpu.pending_steal.push_back(IrqSteal{start, duration});
  }
  account_irq_time(cpu, start, duration);
}

// fire_needless_irq() (sim/task.h): the interrupt pending in IRR fires and finds the queue empty.

// Runs a csd's handler on `cpu`: queued there (llist_add()) at `queued`, its IPI (if one was sent)
// landing at `arrival`. The handler's time is stolen from the task there, and it acks into
// `wait`, whose initiator spins on CPU `initiator_cpu`. handler(start) does the handler's state
// change and returns its duration. Returns true when the csd found the queue not yet taken by the
// last interrupt (so, under csd_ipi=if-empty, its sender sent no IPI).
//
// Which interrupt runs it (the CALL_FUNCTION vector): the handler (smp_call_function_interrupt())
// acks the APIC on entry and then takes the whole call_single_queue at once
// (flush_smp_call_function_queue(): llist_del_all()), so a csd queued before that point runs in
// that interrupt without an entry of its own, after what it runs before it, even if its own IPI
// has not landed yet. A csd queued after it waits for its IPI: landing while a handler runs, the
// IPI sets the vector's IRR bit, which holds one pending interrupt however many IPIs arrive, taken
// right after the running one returns. Under a flood of shootdowns a CPU thus pays
// ipi_handler_entry once a batch, not once an IPI. A csd that joins a batch still reads its csd
// and flush_tlb_info, written by the initiator: one line transfer from the initiator's CPU, as its
// ack is one back (the first csd of an interrupt has that read inside ipi_handler_entry).
//
// Before 4.15 (csd_ipi=always) a csd that joined an earlier interrupt still had its IPI sent;
// landing after that interrupt acked the APIC, the IPI sets IRR (cpu.irr_pending_at): the
// interrupt it makes takes any csd queued by its own entry's end, or finds the queue empty and
// pays its entry for nothing ("needless IPI"). Which of the two shows only when a later csd comes,
// so that interrupt is left pending until then (or until global time passes it: Task::due()),
// and csds still queued in time for the running interrupt run in it first.
template <typename Handler>
[[gnu::always_inline]] inline bool run_call_function(Simulation& sim, Cpu& cpu, SimTime queued,
                                                     SimTime arrival, bool ipi_sent, CsdWait& wait,
                                                     uint32_t initiator_cpu, Handler&& handler) {
  const SimTime entry = sim.costs().ipi_handler_entry;
  const SimTime line = sim.topology().line_transfer(cpu.id, initiator_cpu);
  const bool joined = queued <= cpu.irq_collected_at;
  SimTime start = cpu.irq_busy_until;
  SimTime overhead = line;
  if (!joined) {
    overhead = entry;
    // Its IPI interrupts the CPU when it lands, or once the running handler returns (IRR).
    start = max(arrival, cpu.irq_busy_until);
    if (cpu.irr_pending_at != SimTime::infinite()) [[unlikely]] {
      const SimTime pending = cpu.irr_fires_at();
      if (pending > start) {
        // Its own IPI lands first (senders are simulated one after another): its interrupt
        // comes first, and the IPI pending in IRR, landing after that one's ack, stays pending.
      } else if (queued <= pending + entry) {
        // The pending interrupt takes it: its IPI was not needless after all.
        cpu.irr_pending_at = SimTime::infinite();
        start = pending;
      } else {
        fire_needless_irq(sim, cpu);
        start = max(arrival, cpu.irq_busy_until);
      }
    }
    begin_call_function_irq(cpu, start, entry);
  }
  if (TraceSink* ts = sim.trace()) {
    smp_detail::trace_csd_overhead(
        *ts, cpu.id, joined ? smp_detail::CsdOverhead::kCsdRead : smp_detail::CsdOverhead::kEntry,
        start, overhead);
  }
  const SimTime work = handler(start + overhead);
  steal_irq_time(cpu, start, overhead + work);
  // The ack clears the csd flag the initiator spins on: that line goes back to its CPU.
  wait.ack(cpu.irq_busy_until + line);
  // Its IPI, landing after the interrupt that ran it acked the APIC, sets IRR: one bit, set by
  // the first IPI to land (senders simulated later may have landed earlier).
  if (ipi_sent && arrival > cpu.irq_started_at) {
    cpu.irr_pending_at = min(cpu.irr_pending_at, arrival);
  }
  return joined;
}

// Models smp_call_function_many_cond()'s per-CPU part: llist_add() to the target's
// call_single_queue and, unless csd_ipi=if-empty and the queue held a csd already, the IPI.
// Returns whether an IPI was sent.
template <IpiHandler Handler>
[[gnu::always_inline]] inline bool send_call_function_ipi(Task& t, Cpu& target, SimTime sent,
                                                          SimTime arrival, const void* info,
                                                          CsdWait& wait) {
  assert(t.cpu().irqs_disabled == 0 && "invariant (1): IPI sent with interrupts off");
  assert(&target != &t.cpu());
  wait.expect_ack();
  const bool every_target = t.sim().config().csd_ipi == CsdIpiMode::kAlways;
  if (target.irqs_disabled > 0) {
    const bool ipi =
        every_target || (target.call_single_queue.empty() && sent > target.irq_collected_at);
    target.call_single_queue.push_back(CallSingleData{sent, arrival, ipi, Handler, info, &wait});
    return ipi;
  }
  const bool joined = run_call_function(
      t.sim(), target, sent, arrival, every_target, wait, t.cpu().id,
      [info, &target, sent](SimTime start) { return Handler(info, target, start, sent); });
  return every_target || !joined;
}

}  // namespace mmreplay::kernelsim
