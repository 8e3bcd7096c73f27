#include "kernelsim/kernel/smp.h"

#include <algorithm>
#include <cassert>
#include <utility>
#include <vector>

#include "kernelsim/kernel/smp_ipi.h"
#include "kernelsim/sched/cpu.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

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

void smp_detail::trace_csd_overhead(TraceSink& ts, uint32_t cpu, CsdOverhead what, SimTime start,
                                    SimTime overhead) {
  const char* name = what == CsdOverhead::kCsdRead ? "csd read"
                     : what == CsdOverhead::kEntry ? "call_function entry"
                                                   : "call_function entry (csd already run)";
  ts.complete(Track::irq(cpu), name, TraceCat::kIpi, start, overhead, {});
}

void fire_needless_irq(Simulation& sim, Cpu& cpu) {
  assert(cpu.irr_pending_at != SimTime::infinite());
  const SimTime entry = sim.costs().ipi_handler_entry;
  const SimTime at = cpu.irr_fires_at();
  cpu.irr_pending_at = SimTime::infinite();
  begin_call_function_irq(cpu, at, entry);
  if (TraceSink* ts = sim.trace()) {
    smp_detail::trace_csd_overhead(*ts, cpu.id, smp_detail::CsdOverhead::kNeedlessEntry, at, entry);
  }
  steal_irq_time(cpu, at, entry);
}

// Models flush_smp_call_function_queue(), run from the IPI vector that fires once the CPU
// executes sti (local_irq_enable()/local_irq_restore()).
void flush_smp_call_function_queue(Simulation& sim, Cpu& cpu, SimTime at) {
  assert(cpu.irqs_disabled == 0);
  std::vector<CallSingleData> queue = std::move(cpu.call_single_queue);
  cpu.call_single_queue.clear();
  // An IPI that landed while interrupts were off is pending: its interrupt fires at `at` and takes
  // every csd queued by then, those whose IPI lands later too (that IPI then finds its csd run: a
  // needless interrupt when one was sent, kernel/smp_ipi.h). With no IPI landed yet, nothing fires
  // at `at` (but an interrupt pending in IRR from before the section: local_irq_restore()): the
  // first IPI to land interrupts the CPU then. So the csds run in the order their
  // interrupt comes: those with an IPI by when it is there (an IPI sent while interrupts were off
  // may land after they come back on, and a nearer sender's may overtake a farther one's), those
  // without one (csd_ipi=if-empty: queued behind another) in the interrupt that takes them.
  // A stable insertion sort: the queue is short and nearly in order, and std::stable_sort takes
  // a temporary buffer from the heap on every call (7% of a 64-CPU 1-page madvise run's host
  // instructions).
  const auto due = [at](const CallSingleData& csd) {
    return csd.ipi_sent ? max(csd.arrival, at) : SimTime::infinite();
  };
  const auto earlier = [&due](const CallSingleData& a, const CallSingleData& b) {
    return due(a) < due(b);
  };
  for (auto it = queue.begin(); it != queue.end(); ++it)
    std::rotate(std::upper_bound(queue.begin(), it, *it, earlier), it, it + 1);
  for (const CallSingleData& csd : queue) {
    // There since its IPI landed, or, with none sent, since it was queued (only IPIs count as
    // deferred: a csd without one waits for another's, deferred or not).
    const SimTime there = csd.ipi_sent ? csd.arrival : csd.sent;
    if (csd.ipi_sent) count_deferred_ipi(cpu, there, at);
    // A csd with no IPI of its own waits for an interrupt another IPI makes; should none take it
    // (a sender's loop ran past the interrupt that fired at `at`), the earliest is the restore's.
    run_call_function(sim, cpu, max(csd.sent, at), max(there, at), csd.ipi_sent, *csd.wait,
                      csd.wait->initiator_cpu(), [&cpu, &csd](SimTime start) {
                        return csd.func(csd.info, cpu, start, csd.sent);
                      });
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
    if (send_call_function_ipi<&call_function>(task_, sim.cpu(id), now + sent,
                                               now + sent + sim.topology().ipi_delivery(self, id),
                                               this, wait_)) {
      ++nr;
    }
  });
  if (nr_sent_ != nullptr) *nr_sent_ = nr;
  return wait_.wait(now + sent, nullptr);
}

}  // namespace mmreplay::kernelsim
