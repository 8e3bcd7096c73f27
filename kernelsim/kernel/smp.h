// Cross-CPU function calls (kernel/smp.c): the delivery every IPI of the model shares (TLB
// shootdowns from arch/x86/tlb.cpp, smp_call_function_many() as the bh_lru invalidation of
// fs/bh_invalidate.h sends it), and the initiator's wait for the handlers (csd_lock_wait()).
//
// Delivery (native_flush_tlb_multi() / smp_call_function_many_cond()): the sender pays ipi_send
// per target; the IPI reaches the target ipi_delivery later. A target with interrupts enabled runs
// the handler in the first interrupt that takes its queue after the csd was queued (see
// Batching: the one running there, or the one its IPI makes when it lands or the running handler
// returns), stolen from the task running there from the handler's start (sched/cpu.h
// pending_steal: a step the task reached before is not late). A target with interrupts off
// (arch/x86/irqflags.h: a spin_lock_irq*() holder or spinner) keeps it in call_single_queue and
// runs it when it re-enables them (flush_smp_call_function_queue()), so a handler never lands
// inside an IRQ-off lock hold. Each
// ack is one line transfer back to the initiator's CPU after its handler ends; the initiator
// spins until the last one. Delivery and acks cost by distance (sched/topology.h): another
// socket's CPU takes ipi_delivery_remote and cacheline_transfer_remote.
//
// Batching: the sender queues the csd (llist_add() to the target's call_single_queue) when it
// sends; the CALL_FUNCTION handler (smp_call_function_interrupt() ->
// flush_smp_call_function_queue()) runs every csd queued on its CPU when it takes the queue, and
// the vector's IRR bit holds one pending interrupt however many IPIs arrive while a handler runs.
// So ipi_handler_entry is paid once a batch: a csd queued before the queue is taken pays only
// the read of its csd (a line transfer from the initiator), and re-enabling interrupts runs the
// deferred queue in one interrupt. Which targets get an IPI is the csd_ipi knob: all of them
// before 4.15, so the IPI of a csd an earlier interrupt ran makes a needless interrupt of its
// own when it lands after that interrupt's APIC ack; since 4.15 only those whose queue was empty
// (smp_call_function_many_cond(): llist_add() returned true). The sender pays ipi_send per
// target either way: the model does not split the csd's setup and llist_add() from the ICR write
// a skipped IPI saves. ipis_sent counts the IPIs sent; the TLB counters count each csd, as
// /proc/interrupts' TLB line counts each flush_tlb_func() call; call_function_irqs counts the
// interrupts, as its CAL line (irq_call_count).
// Simplifications of the order: senders are simulated one after another, each queuing on its
// targets at now + k x ipi_send, so a csd queued earlier by a sender simulated later can join an
// interrupt another's IPI started after its own IPI landed: it runs up to one sender's loop (63 x
// ipi_send, about 6 us) late, and under csd_ipi=always the interrupt its own IPI made is not
// counted (the other's is, as if needless). An interrupt left pending in IRR fires when a later csd
// reaches its CPU, when global time passes it (Task::due(), at an event of its task), or after the
// last event of the run (counted, charged to no task); one that should have fired before an IRQ-off
// section the model learns of later comes at that section's end.
//
// Invariants (asserted in smp.cpp):
//  (1) an initiator sends with interrupts enabled (smp_call_function_many_cond()'s
//      WARN_ON_ONCE(irqs_disabled()): with them off two CPUs could wait for each other);
//  (2) every IPI sent is acked exactly once, and the initiator goes on only after the last ack.

#pragma once

#include <cassert>
#include <cstdint>
#include <functional>

#include "kernelsim/sched/cpu.h"
#include "kernelsim/sched/cpumask.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Simulation;
class Task;

// csd_lock_wait() for one multi-CPU call: counts the acks still due and the latest one. The
// initiator that must wait for a deferred handler parks spinning and is resumed by the last ack.
class CsdWait {
 public:
  explicit CsdWait(Task& initiator) : task_(initiator) {}
  CsdWait(const CsdWait&) = delete;
  CsdWait& operator=(const CsdWait&) = delete;

  // One more IPI sent: its ack is due.
  void expect_ack() { ++pending_; }
  // One handler's ack arrives at `ack_at` (its end + the line transfer back).
  void ack(SimTime ack_at) {
    assert(pending_ > 0 && "invariant (2): an ack nobody waits for");
    last_ack_ = max(last_ack_, ack_at);
    --pending_;
    if (pending_ == 0 && parked_) finish();
  }
  // Models csd_lock_wait() from t at now(): returns true when every ack is in (t advanced to
  // max(not_before, last ack)); false when t parked spinning until a deferred ack resumes it.
  // `on_done` runs once, at the time t goes on (tracing).
  bool wait(SimTime not_before, std::function<void(SimTime)> on_done);

  uint32_t pending() const { return pending_; }
  // The CPU the initiator spins on (acks travel back to it).
  uint32_t initiator_cpu() const;

 private:
  void finish();

  Task& task_;
  uint32_t pending_ = 0;
  SimTime last_ack_;
  SimTime not_before_;
  bool parked_ = false;
  std::function<void(SimTime)> on_done_;
};

// Models one target of smp_call_function_many_cond(): `t` queues the csd on `target` at `sent`
// and, as the csd_ipi knob says, sends an IPI that reaches it at `arrival`; the handler
// Handler(info, ...) runs in the first interrupt that takes the queue after `sent`, or when
// `target` re-enables interrupts. Its ack goes to `wait`. Returns whether an IPI was sent. Nothing
// is allocated: a shootdown's 63 targets are the hot path of a 64-CPU madvise. Defined in
// kernel/smp_ipi.h, which its callers include: the handler, a template argument, inlines with it.
// REQUIRES: t's CPU has interrupts enabled; target is not t's CPU; *info outlives the last ack.
template <IpiHandler Handler>
bool send_call_function_ipi(Task& t, Cpu& target, SimTime sent, SimTime arrival, const void* info,
                            CsdWait& wait);

// Models flush_smp_call_function_queue() on `cpu` re-enabling interrupts at `at`: the interrupt
// pending since an IPI landed while they were off fires at `at` and runs every queued handler,
// those whose IPI lands later or who had none too; with no IPI landed yet, they run in the
// interrupt the first to land makes. Each is acked. REQUIRES: cpu.irqs_disabled == 0.
void flush_smp_call_function_queue(Simulation& sim, Cpu& cpu, SimTime at);

// Models smp_call_function_many(mask, func, NULL, wait=1) from t's CPU: runs func(target) in an
// IPI handler on every CPU of `targets` except t's own, and t goes on after the last ack. func
// does the handler's state change and returns its duration beyond ipi_handler_entry.
// `*nr_sent` gets the IPIs sent (when the step runs).
class SmpCallFunctionManyStep final : public SharedStep {
 public:
  SmpCallFunctionManyStep(Task& t, const CpuMask& targets, std::function<SimTime(Cpu&)> func,
                          uint32_t* nr_sent)
      : SharedStep(t), targets_(targets), func_(std::move(func)), nr_sent_(nr_sent), wait_(t) {}
  bool run_now() override;

 private:
  // The handler of every target: func_(target) (the interrupt's entry is the delivery's).
  static SimTime call_function(const void* step, Cpu& target, SimTime start, SimTime sent);

  CpuMask targets_;
  std::function<SimTime(Cpu&)> func_;
  uint32_t* nr_sent_;
  CsdWait wait_;
};

// co_await smp_call_function_many(t, targets, func, &nr);
inline SmpCallFunctionManyStep smp_call_function_many(Task& t, const CpuMask& targets,
                                                      std::function<SimTime(Cpu&)> func,
                                                      uint32_t* nr_sent) {
  return SmpCallFunctionManyStep(t, targets, std::move(func), nr_sent);
}

}  // namespace mmreplay::kernelsim
