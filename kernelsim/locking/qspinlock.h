// QSpinLock: a queued spinlock (kernel/locking/qspinlock.c), for zone->lock, lru_lock, the memcg
// counter lock and the like.
//
// FIFO (MCS queue): waiters are granted strictly in arrival order. Waiters burn their CPU
// (state kSpinning, preemption disabled). Each handoff to a queued waiter costs one cache-line
// transfer (the lock word and the MCS node move to the next CPU), priced by the distance from
// the releasing CPU to the waiter's (sched/topology.h). So the k-th queued waiter is
// granted at: release of the holder ahead of all + sum of the holds between + k transfers.
// An uncontended acquire is one atomic RMW on the lock word (a transfer if another CPU owned it).
//
// Policy `spinlock=ticket` (x86 before 4.2) keeps the FIFO order (tickets are served in order)
// but every waiter spins on the one lock word, so a handoff also waits for the other waiters'
// re-reads of the released line: half the sum of their transfers (ticket_readers_ahead()).
//
// spin_lock_irq()/spin_lock_irqsave() disable interrupts on the CPU before spinning
// (__raw_spin_lock_irqsave(): local_irq_save() then do_raw_spin_lock()) and the unlock re-enables
// them after the release, so IPIs aimed at a holder or a spinner run after the unlock
// (arch/x86/irqflags.h): the hold time is the critical section alone.
//
// Invariants (asserted in qspinlock.cpp):
//  (1) holder() == nullptr implies no waiters (release hands over directly).
//  (2) The holder and every waiter have preempt_count > 0.
//  (3) Grants happen in queue order.

#pragma once

#include <cstdint>
#include <deque>
#include <string_view>

#include "kernelsim/locking/cacheline.h"
#include "kernelsim/locking/lockstat.h"
#include "kernelsim/sim/shared_step.h"

namespace mmreplay::kernelsim {

class QSpinLock;
class Simulation;

class SpinLockStep final : public SharedStep {
 public:
  SpinLockStep(Task& t, QSpinLock& l, bool lock, bool irq)
      : SharedStep(t), lock_(l), acquire_(lock), irq_(irq) {}
  bool run_now() override;

 private:
  QSpinLock& lock_;
  bool acquire_;
  bool irq_;  // the _irq/_irqsave variant: interrupts off from before the spin to the unlock
};

class QSpinLock {
 public:
  QSpinLock(Simulation& sim, std::string_view class_name);

  // Models spin_lock(). Disables preemption. REQUIRES: t does not hold this lock.
  SpinLockStep lock(Task& t) { return SpinLockStep(t, *this, true, false); }
  // Models spin_unlock(). REQUIRES: t holds this lock.
  SpinLockStep unlock(Task& t) { return SpinLockStep(t, *this, false, false); }
  // Models spin_lock_irqsave() (and spin_lock_irq(): the model nests both like local_irq_save()).
  // REQUIRES: t does not hold this lock.
  SpinLockStep lock_irqsave(Task& t) { return SpinLockStep(t, *this, true, true); }
  // Models spin_unlock_irqrestore() (and spin_unlock_irq()): IPIs that arrived while interrupts
  // were off run after the release. REQUIRES: t holds this lock, taken with lock_irqsave().
  SpinLockStep unlock_irqrestore(Task& t) { return SpinLockStep(t, *this, false, true); }

  Task* holder() const { return holder_; }
  size_t nr_waiters() const { return queue_.size(); }
  const LockClassStats& stats() const { return class_; }

 private:
  friend class SpinLockStep;
  struct Waiter {
    Task* task;
    SimTime since;
  };

  bool lock_now(Task& t, bool irq);
  void unlock_now(Task& t, bool irq);
  // Hands the lock from `from_cpu` (the releaser's) to the first queued waiter.
  void grant_next(SimTime at, uint32_t from_cpu);
  // spin_lock=ticket: what the re-reads of the waiters left in the queue add to a handoff.
  SimTime ticket_readers_ahead(uint32_t from_cpu) const;

  Simulation& sim_;
  LockClassStats& class_;
  std::string_view name_;  // the lock_stat class name, for tracepoints
  CacheLine word_;
  Task* holder_ = nullptr;
  SimTime acquired_at_;
  std::deque<Waiter> queue_;
};

}  // namespace mmreplay::kernelsim
