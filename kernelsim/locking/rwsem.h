// RwSem: the kernel's read-write semaphore (kernel/locking/rwsem.c), as used for mmap_sem.
//
// Semantics modelled (5.3+ rwsem, with the 3.x behaviours as policies):
//  - Readers take the fast path only when no writer holds the lock and nobody waits: a reader
//    arriving while a writer waits queues behind it (rwsem_read_trylock() fails on WAITERS).
//    In 5.3-5.10 (policy rwsem_reader_spin) a reader spins first, unless the handoff is due or
//    the lock is reader-non-spinnable: on a running writer owner until it releases, and a lock no
//    writer holds it takes at once, past waiting writers (rwsem_try_read_lock_unqueued()), then
//    wakes the readers queued at the head. A writer that waited on the lock after seeing it
//    non-spinnable makes it reader-non-spinnable when it gets it (RWSEM_RD_NONSPINNABLE, until a
//    writer takes it without having waited so). Simplification: the model's handoff is due
//    RWSEM_WAIT_TIMEOUT after the head queued; in 5.3-5.10 the head set the bit only when woken,
//    so readers that kept the count above 0 could starve it longer (2f06f702925b).
//    Since 5.11 (policy rwsem_reader_steal) a reader takes a free lock past its waiters unless
//    the head is due a handoff: the woken writer at the head finds it reader-owned when it runs.
//  - A writer takes the lock whenever it is free, unless the head waiter is due a handoff: with
//    waiters queued that is a steal past them (rwsem_try_write_lock_unqueued()). Otherwise it
//    spins optimistically (rwsem_optimistic_spin()) while the owning writer runs on a CPU; it
//    stops spinning when the owner leaves its CPU and then sleeps in the FIFO wait list. Spinning
//    burns the spinner's CPU. Policy rwsem_spin: before 5.3 a reader-owned lock is no owner to
//    spin on (the writer sleeps at once, and a downgrade ends a spin); since 5.3 writers spin on
//    readers too, for at most rwsem_rspin_threshold(), and a spin that runs out makes the lock
//    non-spinnable (rwsem_set_nonspinnable(): every spinner leaves and nobody starts) until a
//    writer takes it (rwsem_set_owner()) or the last reader leaves it to waiters
//    (clear_nonspinnable() in __up_read()); since 5.4 the head writer that has set the HANDOFF
//    bit and still finds the lock taken spins on a running writer owner instead of sleeping, and
//    takes the lock at its release with no wake-up (rwsem_down_write_slowpath()).
//  - On release a spinning writer takes the lock first (it steals from sleepers), unless the head
//    waiter is due a handoff.
//  - rwsem_mark_wake(): a writer at the head is woken alone; a reader at the head wakes a batch of
//    readers (policy rwsem_wake: up to MAX_READERS_WAKEUP past writers, or the contiguous ones),
//    granted the lock at the wake-up. What the woken writer gets is policy rwsem_writer_wake:
//    the lock itself (grant, before 3.10), or only the wake-up (steal, 3.10+): it tries again
//    when it runs (rwsem_try_write_lock() in rwsem_down_write_slowpath()'s loop) and sleeps
//    again if a writer took the lock meanwhile; with handoff (5.3+) a head that has waited
//    RWSEM_WAIT_TIMEOUT keeps the lock for itself (the HANDOFF bit): nobody spins or steals past
//    it. A woken task runs after the scheduler's wake-up latency.
//  - Every count update is an atomic RMW on the count's cache line (locking/cacheline.h).
//
// Invariants (asserted in rwsem.cpp):
//  (1) owner() != nullptr implies readers() == 0.
//  (2) A free lock (no owner, no readers) has no spinners, and waiters only behind a woken writer
//      at the head that has yet to run (rwsem_writer_wake=steal or handoff).
//  (3) A task is at most once in the wait list or the spinner list, and never in both.
//  (4) Spinners are on their CPU (state kSpinning): writers, and readers (5.3-5.10) only while a
//      writer owns the lock; waiters are sleeping, but for a woken writer at the head, or a head
//      writer spinning on a running writer owner (handoff spin).
//  (5) The lock is non-spinnable only while readers hold it or after they left it with nobody
//      waiting (no writer has taken it since).

#pragma once

#include <cstdint>
#include <deque>
#include <string_view>

#include "kernelsim/locking/cacheline.h"
#include "kernelsim/locking/lockstat.h"
#include "kernelsim/sim/event_queue.h"
#include "kernelsim/sim/shared_step.h"

namespace mmreplay::kernelsim {

class RwSem;
class Simulation;
class TraceSink;

// The awaitables. Each is a SharedStep: co_await sem.down_read(t).
class RwsemDownRead final : public SharedStep {
 public:
  RwsemDownRead(Task& t, RwSem& s) : SharedStep(t), sem_(s) {}
  bool run_now() override;

 private:
  RwSem& sem_;
};
class RwsemDownWrite final : public SharedStep {
 public:
  RwsemDownWrite(Task& t, RwSem& s) : SharedStep(t), sem_(s) {}
  bool run_now() override;

 private:
  RwSem& sem_;
};
class RwsemUp final : public SharedStep {
 public:
  RwsemUp(Task& t, RwSem& s, bool write) : SharedStep(t), sem_(s), write_(write) {}
  bool run_now() override;

 private:
  RwSem& sem_;
  bool write_;
};

class RwsemDowngrade final : public SharedStep {
 public:
  RwsemDowngrade(Task& t, RwSem& s) : SharedStep(t), sem_(s) {}
  bool run_now() override;

 private:
  RwSem& sem_;
};

class RwSem final : public EventTarget {
 public:
  // Lock classes are "<class_name>-R" and "<class_name>-W".
  RwSem(Simulation& sim, std::string_view class_name);

  // Models down_read() / mmap_read_lock(). REQUIRES: t does not hold this rwsem.
  RwsemDownRead down_read(Task& t) { return RwsemDownRead(t, *this); }
  // Models down_write() / mmap_write_lock(). REQUIRES: t does not hold this rwsem.
  RwsemDownWrite down_write(Task& t) { return RwsemDownWrite(t, *this); }
  // Models up_read(). REQUIRES: t holds this rwsem for read.
  RwsemUp up_read(Task& t) { return RwsemUp(t, *this, false); }
  // Models up_write(). REQUIRES: t holds this rwsem for write.
  RwsemUp up_write(Task& t) { return RwsemUp(t, *this, true); }
  // Models downgrade_write(): the writer becomes a reader and the readers queued at the head of
  // the wait list are woken. lock_stat counts no new acquisition. REQUIRES: t holds it for write.
  RwsemDowngrade downgrade_write(Task& t) { return RwsemDowngrade(t, *this); }

  // Scheduler hook: `owner` is leaving its CPU (sleep or preemption); spinners stop spinning.
  void owner_off_cpu(Task& owner);

  bool is_write_locked() const { return owner_ != nullptr; }
  Task* owner() const { return owner_; }
  uint32_t readers() const { return readers_; }
  size_t nr_waiters() const { return wait_list_.size(); }
  size_t nr_spinners() const { return spinners_.size(); }
  // RWSEM_NONSPINNABLE: no writer starts spinning on the readers that hold it.
  bool nonspinnable() const { return nonspinnable_; }
  // RWSEM_RD_NONSPINNABLE (5.3-5.10): no reader spins on it.
  bool reader_nonspinnable() const { return rd_nonspinnable_; }

  struct Counters {
    uint64_t spins = 0;             // writers that started spinning
    uint64_t spin_acquired = 0;     // ... and got the lock while spinning
    uint64_t spin_aborted = 0;      // ... and gave up (owner off CPU, rspin threshold)
    uint64_t sleeps = 0;            // acquirers that slept in the wait list
    uint64_t handoffs = 0;          // grants to a waiter past spinners after RWSEM_WAIT_TIMEOUT
    uint64_t steals = 0;            // free locks a writer took past queued waiters
    uint64_t writer_wakeups = 0;    // writers woken to try again (rwsem_writer_wake=steal/handoff)
    uint64_t wakeups_lost = 0;      // ... that found the lock taken and slept again
    uint64_t reader_steals = 0;     // free locks a reader took past queued waiters (5.11+)
    uint64_t nospin = 0;            // spins on readers that ran out: the lock made non-spinnable
    uint64_t handoff_spins = 0;     // head writers due a handoff that spun on the owner (5.4+)
    uint64_t reader_spins = 0;      // readers that started spinning on a writer (5.3-5.10)
    uint64_t reader_opt_locks = 0;  // read locks taken by a reader's spin (5.3-5.10)
    uint64_t reader_batches = 0;    // rwsem_mark_wake() calls that woke readers
    uint64_t readers_woken = 0;
    friend bool operator==(const Counters&, const Counters&) = default;
  };
  const Counters& counters() const { return counters_; }

  void fire(uint64_t spinner_ticket) override;  // rspin threshold expiry

 private:
  friend class RwsemDownRead;
  friend class RwsemDownWrite;
  friend class RwsemUp;
  friend class RwsemDowngrade;

  struct Waiter {
    Task* task;
    bool write;
    SimTime since;
    SharedStep* step = nullptr;  // a writer's down_write step, run again when it is woken
    bool woken = false;          // a writer at the head, woken and yet to try again
    bool spinning = false;       // a head writer due a handoff, spinning on the owner (5.4+)
    bool disable_rspin = false;  // a writer that queued after seeing the lock non-spinnable
  };
  struct Spinner {
    Task* task;
    SimTime since;
    uint64_t ticket;
    SharedStep* step;  // a writer's down_write step (null for a reader)
    bool write = true;
  };

  bool down_read_now(Task& t);
  bool down_write_now(Task& t, SharedStep& step);
  bool woken_writer_retry(Task& t);
  void queue_writer(Task& t, SharedStep& step, SimTime since);
  void queue_reader(Task& t, SimTime since);
  SimTime spinner_takes_at(SimTime at, const Task& spinner) const;
  void up_now(Task& t, bool write);
  void downgrade_now(Task& t);
  bool rwsem_can_spin_on_owner(SimTime at) const;
  bool handoff_head_may_spin(SimTime at) const;
  void stop_handoff_spin(SimTime at);
  bool reader_may_spin(SimTime at) const;
  bool reader_optimistic_spin(Task& t, SimTime at);
  void grant_reader_spinners(SimTime at);
  void readers_took_the_lock(SimTime at);
  void grant_waiting_writer(const Waiter& w, SimTime at);
  bool reader_may_steal(SimTime at) const;
  bool handoff_due(SimTime at) const;
  void rwsem_wake(Task& waker, SimTime at);
  void rwsem_mark_wake(Task& waker, SimTime at);
  void grant(Task& t, bool write, SimTime at, SimTime since, bool contended);
  void trace_grant(TraceSink& ts, const Task& t, bool write, SimTime at, SimTime since,
                   bool contended) const;
  void stop_spinner(size_t index, SimTime at);
  SimTime count_rmw(Task& t);

  Simulation& sim_;
  LockClassStats& read_class_;
  LockClassStats& write_class_;
  std::string_view read_name_;  // lock_stat class names, for tracepoints
  std::string_view write_name_;
  CacheLine count_;
  Task* owner_ = nullptr;
  uint32_t readers_ = 0;
  bool nonspinnable_ = false;     // RWSEM_NONSPINNABLE (5.3+; RWSEM_WR_NONSPINNABLE before 5.11)
  bool rd_nonspinnable_ = false;  // RWSEM_RD_NONSPINNABLE (5.3-5.10)
  std::deque<Waiter> wait_list_;
  std::deque<Spinner> spinners_;
  uint64_t next_ticket_ = 1;
  Counters counters_;
};

}  // namespace mmreplay::kernelsim
