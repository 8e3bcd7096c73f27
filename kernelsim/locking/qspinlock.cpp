#include "kernelsim/locking/qspinlock.h"

#include <cassert>

#include "kernelsim/arch/x86/irqflags.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

bool SpinLockStep::run_now() {
  if (acquire_) return lock_.lock_now(task_, irq_);
  lock_.unlock_now(task_, irq_);
  return true;
}

QSpinLock::QSpinLock(Simulation& sim, std::string_view class_name)
    : sim_(sim),
      class_(sim.lockstat().lock_class(class_name)),
      name_(sim.lockstat().stored_name(class_name)) {}

// Models queued_spin_lock() and queued_spin_lock_slowpath().
bool QSpinLock::lock_now(Task& t, bool irq) {
  if (irq) local_irq_save(t.cpu());
  ++t.preempt_count;
  const SimTime at = sim_.now();
  if (holder_ == nullptr) {
    assert(queue_.empty() && "invariant (1)");
    t.advance_to(word_.atomic_rmw(t.cpu().id, at, sim_.topology(), nullptr));
    holder_ = &t;
    acquired_at_ = t.clock();
    class_.record_acquire(t.cpu().id, 0, false);
    if (TraceSink* ts = sim_.trace())
      ts->begin(Track::task(t.id()), name_, TraceCat::kLockHold, t.clock());
    return true;
  }
  queue_.push_back(Waiter{&t, at});
  t.set_state(TaskState::kSpinning);
  return false;
}

// Models arch_spin_unlock() of a 3.x ticket lock (__ticket_unlock_release(): head++): every
// waiter spins reading the lock word (arch_spin_lock(): while (tickets.head != my ticket)), so
// the release invalidates all their copies and each re-reads the line from the releaser. Those
// reads are served one after another, and the next ticket's holder finds its read behind, on
// average, half of the other waiters' (Boyd-Wickizer, Kaashoek, Morris, Zeldovich, "Non-scalable
// locks are dangerous", Linux Symposium 2012, section 3: a ticket lock's handoff time grows
// linearly with the number of waiters, the collapse qspinlock (4.2) removed). Returns what the
// other waiters' reads add to the handoff: half the sum of their transfers from `from_cpu`.
SimTime QSpinLock::ticket_readers_ahead(uint32_t from_cpu) const {
  SimTime reads = SimTime::zero();
  for (const Waiter& w : queue_) reads += sim_.topology().line_transfer(from_cpu, w.task->cpu().id);
  return SimTime::ns(reads.count_ns() / 2);
}

// Models queued_spin_unlock() and the MCS handoff to the next queued CPU.
void QSpinLock::unlock_now(Task& t, bool irq) {
  assert(holder_ == &t && "unlock by a task that does not hold the lock");
  const SimTime at = sim_.now();
  class_.hold_time.record(static_cast<uint64_t>((at - acquired_at_).count_ns()));
  if (TraceSink* ts = sim_.trace()) ts->end(Track::task(t.id()), name_, TraceCat::kLockHold, at);
  holder_ = nullptr;
  assert(t.preempt_count > 0 && "invariant (2)");
  --t.preempt_count;
  if (!queue_.empty()) grant_next(at, t.cpu().id);
  // Interrupts come back after the release: a deferred handler runs outside the hold.
  if (irq) local_irq_restore(sim_, t.cpu(), at);
}

// The MCS handoff: the first queued waiter gets the lock one line transfer after `at`, at the
// distance from the releasing CPU to the waiter's (another socket costs more: sched/topology.h).
// Under spinlock=ticket the release is also read by every other waiter spinning on the word.
void QSpinLock::grant_next(SimTime at, uint32_t from_cpu) {
  const Waiter next = queue_.front();
  queue_.pop_front();
  const Topology& topo = sim_.topology();
  SimTime handoff = topo.line_transfer(from_cpu, next.task->cpu().id);
  if (sim_.config().spinlock == SpinlockImpl::kTicket) handoff += ticket_readers_ahead(from_cpu);
  const SimTime granted = at + handoff;
  word_.hand_to(next.task->cpu().id, granted);
  holder_ = next.task;
  acquired_at_ = granted;
  class_.record_acquire(next.task->cpu().id,
                        static_cast<uint64_t>((granted - next.since).count_ns()), true);
  if (TraceSink* ts = sim_.trace())
    trace_contended_acquire(*ts, next.task->id(), name_, next.since, granted);
  // Handler time that overlapped the spin cost the waiter nothing; what runs past the grant stays
  // pending (charged after the unlock when interrupts are off, Task::absorb_steal()).
  Cpu& cpu = next.task->cpu();
  cpu.forgive_steal_before(granted);
  sim_.sched().resume_spinner(*next.task, granted);
}

}  // namespace mmreplay::kernelsim
