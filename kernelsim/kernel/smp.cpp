#include "kernelsim/kernel/smp.h"

#include <algorithm>
#include <cassert>
#include <utility>
#include <vector>

#include "kernelsim/sched/cpu.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

void CsdWait::ack(SimTime ack_at) {
  assert(pending_ > 0 && "invariant (2): an ack nobody waits for");
  last_ack_ = max(last_ack_, ack_at);
  --pending_;
  if (pending_ == 0 && parked_) finish();
}

uint32_t CsdWait::initiator_cpu() const {
  return task_.cpu().id;
}

bool CsdWait::wait(SimTime not_before, std::function<void(SimTime)> on_done) {
  assert(!parked_);
  if (pending_ == 0) {
    task_.advance_to(max(not_before, last_ack_));
    if (on_done) on_done(task_.clock());
    return true;
  }
  // csd_lock_wait() spins on the csd flags: the CPU stays busy, interrupts enabled.
  parked_ = true;
  not_before_ = not_before;
  on_done_ = std::move(on_done);
  task_.set_state(TaskState::kSpinning);
  return false;
}

void CsdWait::finish() {
  parked_ = false;
  const SimTime at = max(not_before_, last_ack_);
  if (on_done_) on_done_(at);
  task_.sim().sched().resume_spinner(task_, at);
}

namespace {

// The interrupt's entry, or a joined csd's read, on the CPU's IRQ track. Out of line: the
// tracing-off path through run_call_function() stays small enough to inline into the sender's
// per-target loop.
[[gnu::noinline]] void trace_csd_overhead(TraceSink& ts, uint32_t cpu, bool joined, SimTime start,
                                          SimTime overhead) {
  ts.complete(Track::irq(cpu), joined ? "csd read" : "call_function entry", TraceCat::kIpi, start,
              overhead, {});
}

// Runs csd's handler on `cpu`, there from `arrival`: its time is stolen from the task there, and
// it acks.
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
// Inlined into both callers: out of line, the call and the csd passed through memory were 6% of
// a 64-CPU 1-page madvise run's host instructions (a shootdown calls it once a target).
[[gnu::always_inline]] inline void run_call_function(Simulation& sim, Cpu& cpu, SimTime arrival,
                                                     const CallSingleData& csd) {
  const SimTime entry = sim.costs().ipi_handler_entry;
  const SimTime line = sim.topology().line_transfer(cpu.id, csd.wait->initiator_cpu());
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
  if (TraceSink* ts = sim.trace()) trace_csd_overhead(*ts, cpu.id, joined, start, overhead);
  const SimTime work = csd.func(csd.info, cpu, start + overhead, csd.sent);
  const SimTime handler = overhead + work;
  cpu.irq_busy_until = start + handler;
  if (cpu.curr != nullptr) cpu.pending_steal.push_back(IrqSteal{start, handler});
  cpu.counters.irq_ns += static_cast<uint64_t>(handler.count_ns());
  // The ack clears the csd flag the initiator spins on: that line goes back to its CPU.
  csd.wait->ack(cpu.irq_busy_until + line);
}

}  // namespace

// Models smp_call_function_many_cond()'s per-CPU part: __smp_call_single_queue() and the IPI.
void send_call_function_ipi(Task& t, Cpu& target, SimTime sent, SimTime arrival, IpiHandler func,
                            const void* info, CsdWait& wait) {
  assert(t.cpu().irqs_disabled == 0 && "invariant (1): IPI sent with interrupts off");
  assert(&target != &t.cpu());
  ++wait.pending_;
  const CallSingleData csd{sent, arrival, func, info, &wait};
  if (target.irqs_disabled > 0) {
    target.call_single_queue.push_back(csd);
    return;
  }
  run_call_function(t.sim(), target, arrival, csd);
}

// Models flush_smp_call_function_queue(), run from the IPI vector that fires once the CPU
// executes sti (local_irq_enable()/local_irq_restore()).
void flush_smp_call_function_queue(Simulation& sim, Cpu& cpu, SimTime at) {
  assert(cpu.irqs_disabled == 0);
  std::vector<CallSingleData> queue = std::move(cpu.call_single_queue);
  cpu.call_single_queue.clear();
  // Queued in send order; an IPI sent while interrupts were off may land after they come back on,
  // and a nearer sender's may overtake a farther one's. Each runs from when it is there: those
  // that arrived by `at` in the interrupt pending since the first of them, which fires at `at`.
  // A stable insertion sort: the queue is short and nearly in order, and std::stable_sort takes
  // a temporary buffer from the heap on every call (7% of a 64-CPU 1-page madvise run's host
  // instructions).
  const auto earlier = [at](const CallSingleData& a, const CallSingleData& b) {
    return max(a.arrival, at) < max(b.arrival, at);
  };
  for (auto it = queue.begin(); it != queue.end(); ++it)
    std::rotate(std::upper_bound(queue.begin(), it, *it, earlier), it, it + 1);
  for (const CallSingleData& csd : queue) {
    if (at > csd.arrival) {
      ++cpu.counters.ipis_deferred;
      cpu.counters.ipi_deferred_ns += static_cast<uint64_t>((at - csd.arrival).count_ns());
    }
    run_call_function(sim, cpu, max(csd.arrival, at), csd);
  }
}

SimTime SmpCallFunctionManyStep::call_function(const void* step, Cpu& target, SimTime, SimTime) {
  const auto& self = *static_cast<const SmpCallFunctionManyStep*>(step);
  return self.func_(target);
}

// Models kernel/smp.c: smp_call_function_many() (wait=1).
bool SmpCallFunctionManyStep::run_now() {
  Simulation& sim = task_.sim();
  const CostProfile& c = sim.costs();
  assert(sim.now() == task_.clock());
  const SimTime now = sim.now();
  const uint32_t self = task_.cpu().id;
  SimTime sent = SimTime::zero();
  uint32_t nr = 0;
  targets_.for_each([&](uint32_t id) {
    if (id == self) return;
    sent += c.ipi_send;
    send_call_function_ipi(task_, sim.cpu(id), now + sent,
                           now + sent + sim.topology().ipi_delivery(self, id), &call_function, this,
                           wait_);
    ++nr;
  });
  if (nr_sent_ != nullptr) *nr_sent_ = nr;
  return wait_.wait(now + sent, nullptr);
}

}  // namespace mmreplay::kernelsim
