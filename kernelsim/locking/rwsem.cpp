#include "kernelsim/locking/rwsem.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "kernelsim/constants.h"
#include "kernelsim/locking/lock_classes.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models kernel/locking/rwsem.c: rwsem_rspin_threshold() (5.3+).
SimTime rwsem_rspin_threshold(uint32_t readers) {
  const int64_t r = std::min(readers, RWSEM_RSPIN_MAX_READERS);
  return SimTime::ns((RWSEM_RSPIN_BASE_HALF_US + r) * 1000 / 2);
}

}  // namespace

bool RwsemDownRead::run_now() {
  return sem_.down_read_now(task_);
}
bool RwsemDownWrite::run_now() {
  return sem_.down_write_now(task_, *this);
}
bool RwsemUp::run_now() {
  sem_.up_now(task_, write_);
  return true;
}

bool RwsemDowngrade::run_now() {
  sem_.downgrade_now(task_);
  return true;
}

RwSem::RwSem(Simulation& sim, std::string_view class_name)
    : sim_(sim),
      read_class_(sim.lockstat().lock_class(std::string(class_name).append(kRwSemReadSuffix))),
      write_class_(sim.lockstat().lock_class(std::string(class_name).append(kRwSemWriteSuffix))),
      read_name_(sim.lockstat().stored_name(std::string(class_name).append(kRwSemReadSuffix))),
      write_name_(sim.lockstat().stored_name(std::string(class_name).append(kRwSemWriteSuffix))) {}

// Inline: every down and up starts with it (the read fast path above all).
[[gnu::always_inline]] inline SimTime RwSem::count_rmw(Task& t) {
  const SimTime done = count_.atomic_rmw(t.cpu().id, sim_.now(), sim_.topology(), nullptr);
  t.advance_to(done);
  return done;
}

void RwSem::grant(Task& t, bool write, SimTime at, SimTime since, bool contended) {
  assert(owner_ == nullptr && "invariant (1)");
  if (write) {
    assert(readers_ == 0 && "invariant (1)");
    owner_ = &t;
    // rwsem_set_owner() writes the owner field, flags and all.
    nonspinnable_ = false;
    rd_nonspinnable_ = false;
  } else {
    ++readers_;
  }
  t.held_rwsems.push_back(HeldRwsem{this, at, write});
  LockClassStats& cls = write ? write_class_ : read_class_;
  cls.record_acquire(t.cpu().id, static_cast<uint64_t>((at - since).count_ns()), contended);
  if (TraceSink* ts = sim_.trace()) trace_grant(*ts, t, write, at, since, contended);
}

void RwSem::trace_grant(TraceSink& ts, const Task& t, bool write, SimTime at, SimTime since,
                        bool contended) const {
  const std::string_view name = write ? write_name_ : read_name_;
  if (contended) {
    trace_contended_acquire(ts, t.id(), name, since, at);
  } else {
    ts.begin(Track::task(t.id()), name, TraceCat::kLockHold, at);
  }
}

// Models rwsem_read_trylock() + rwsem_down_read_slowpath().
bool RwSem::down_read_now(Task& t) {
  const SimTime at = sim_.now();
  count_rmw(t);
  if (owner_ == nullptr && wait_list_.empty()) {
    grant(t, false, t.clock(), at, false);
    return true;
  }
  if (reader_may_steal(at)) {
    ++counters_.reader_steals;
    ++sim_.vm().rwsem_rlock_steal;
    grant(t, false, t.clock(), at, true);
    return true;
  }
  if (sim_.config().rwsem_reader_spin == RwsemReaderSpin::kOn) {
    if (reader_may_spin(at)) return reader_optimistic_spin(t, at);
    // rwsem_can_spin_on_owner() counts its refusal as a failed spin
    // (lockevent_cond_inc(rwsem_opt_fail, !ret)).
    ++sim_.vm().rwsem_opt_fail;
  }
  queue_reader(t, at);
  return false;
}

void RwSem::queue_reader(Task& t, SimTime since) {
  wait_list_.push_back(Waiter{&t, false, since});
  ++counters_.sleeps;
  ++sim_.vm().rwsem_sleep_reader;
  sim_.sched().sleep(t);
}

// When a spinner takes the lock at a release `at`: it pulls the count's line from the releaser,
// who wrote it last (up_now()).
SimTime RwSem::spinner_takes_at(SimTime at, const Task& spinner) const {
  assert(count_.owner() != CacheLine::kNoOwner);
  return at +
         sim_.topology().line_transfer(static_cast<uint32_t>(count_.owner()), spinner.cpu().id);
}

// rwsem_can_spin_on_owner(sem, RWSEM_RD_NONSPINNABLE) for a reader (5.3-5.10): no handoff
// due, not reader-non-spinnable, and no writer owner off its CPU.
bool RwSem::reader_may_spin(SimTime at) const {
  return !handoff_due(at) && !rd_nonspinnable_ && (owner_ == nullptr || owner_->on_cpu());
}

// Models rwsem_optimistic_spin(sem, false) (5.3-5.10). On a lock no writer holds, the first pass
// of the spin loop takes it (rwsem_try_read_lock_unqueued(): no writer, no HANDOFF bit), past any
// waiting writer, and with waiters queued wakes the readers at the head (rwsem_mark_wake(
// RWSEM_WAKE_READ_OWNED) in rwsem_down_read_slowpath()). On a running writer it spins until the
// release (rwsem_wake()) or the owner's leaving its CPU (owner_off_cpu()). Out of line: the
// read fast path stays small for the releases without it.
[[gnu::noinline]] bool RwSem::reader_optimistic_spin(Task& t, SimTime at) {
  if (owner_ == nullptr) {
    ++counters_.reader_opt_locks;
    ++sim_.vm().rwsem_opt_rlock;
    grant(t, false, t.clock(), at, true);
    if (!wait_list_.empty() && !wait_list_.front().write) rwsem_mark_wake(t, at);
    return true;
  }
  spinners_.push_back(Spinner{&t, at, next_ticket_++, nullptr, /*write=*/false});
  ++counters_.reader_spins;
  t.set_state(TaskState::kSpinning);
  return false;
}

// Models rwsem_write_trylock() + rwsem_down_write_slowpath() with rwsem_optimistic_spin().
bool RwSem::down_write_now(Task& t, SharedStep& step) {
  // A woken writer the lock was handed to while it was on its way (rwsem_mark_wake()).
  if (owner_ == &t) return true;
  const SimTime at = sim_.now();
  count_rmw(t);
  if (!wait_list_.empty() && wait_list_.front().task == &t) return woken_writer_retry(t);
  if (owner_ == nullptr && readers_ == 0) {
    assert(spinners_.empty() && "invariant (2)");
    if (wait_list_.empty()) {
      grant(t, true, t.clock(), at, false);
      return true;
    }
    // The head writer is woken and has yet to run: the fast path fails on WAITERS, and
    // rwsem_try_write_lock_unqueued() takes the lock past it unless the HANDOFF bit is set.
    assert(wait_list_.front().woken && "invariant (2)");
    if (!handoff_due(at)) {
      ++counters_.steals;
      ++sim_.vm().rwsem_opt_lock;
      grant(t, true, t.clock(), at, true);
      return true;
    }
    queue_writer(t, step, at);
    return false;
  }
  if (rwsem_can_spin_on_owner(at)) {
    const uint64_t ticket = next_ticket_++;
    spinners_.push_back(Spinner{&t, at, ticket, &step});
    ++counters_.spins;
    t.set_state(TaskState::kSpinning);
    if (owner_ == nullptr)
      sim_.events().schedule(at + rwsem_rspin_threshold(readers_), this, ticket);
    return false;
  }
  // rwsem_can_spin_on_owner() said no (the owner off its CPU, readers it may not spin on, a
  // handoff due): the kernel counts that as a failed spin too (its lockevent_cond_inc(
  // rwsem_opt_fail, !ret); in its first form, called from rwsem_optimistic_spin(), that
  // function's exit counted it).
  ++sim_.vm().rwsem_opt_fail;
  queue_writer(t, step, at);
  return false;
}

// Models the loop of rwsem_down_write_slowpath() after a wake-up: rwsem_try_write_lock() by the
// woken head, which takes the free lock or goes back to sleep (schedule()) where it waited.
bool RwSem::woken_writer_retry(Task& t) {
  Waiter& head = wait_list_.front();
  assert(head.write && head.woken && "only a woken writer runs while it waits");
  if (owner_ == nullptr && readers_ == 0) {
    const Waiter w = head;
    wait_list_.pop_front();
    grant_waiting_writer(w, t.clock());
    return true;
  }
  head.woken = false;
  ++counters_.wakeups_lost;
  ++sim_.vm().rwsem_wake_lost;
  if (handoff_head_may_spin(sim_.now())) {
    // 5.4+: having set the HANDOFF bit, it spins on the running owner (rwsem_spin_on_owner())
    // and takes the lock when that returns OWNER_NULL, without sleeping.
    head.spinning = true;
    ++counters_.handoff_spins;
    t.set_state(TaskState::kSpinning);
    return false;
  }
  ++counters_.sleeps;
  ++sim_.vm().rwsem_sleep_writer;
  sim_.sched().sleep(t);
  return false;
}

// The slowpath's `if (waiter.handoff_set)` branch (5.4+, 91d2a812dfb9): the head that is due a
// handoff spins while a writer owns the lock and runs; on readers, or an owner off its CPU,
// rwsem_spin_on_owner() returns at once and it sleeps.
bool RwSem::handoff_head_may_spin(SimTime at) const {
  return sim_.config().rwsem_spin == RwsemSpin::kHandoff && handoff_due(at) && owner_ != nullptr &&
         owner_->on_cpu();
}

// The spinning head's owner left its CPU or became a reader: rwsem_spin_on_owner() returns
// OWNER_NONSPINNABLE or OWNER_READER and the head sleeps (schedule()) until the release hands
// the lock to it.
void RwSem::stop_handoff_spin(SimTime at) {
  Waiter& head = wait_list_.front();
  assert(head.spinning);
  head.spinning = false;
  ++counters_.sleeps;
  ++sim_.vm().rwsem_sleep_writer;
  head.task->advance_to(at);
  sim_.sched().sleep(*head.task);
}

// A writer from the wait list gets the lock: rwsem_set_owner(), then, in 5.3-5.10, the reader
// spinning it turns off when it queued after seeing the lock non-spinnable
// (rwsem_disable_reader_optspin()).
void RwSem::grant_waiting_writer(const Waiter& w, SimTime at) {
  grant(*w.task, true, at, w.since, true);
  rd_nonspinnable_ = w.disable_rspin;
}

void RwSem::queue_writer(Task& t, SharedStep& step, SimTime since) {
  Waiter w{&t, true, since, &step};
  w.disable_rspin = nonspinnable_ || rd_nonspinnable_;
  wait_list_.push_back(w);
  ++counters_.sleeps;
  ++sim_.vm().rwsem_sleep_writer;
  sim_.sched().sleep(t);
}

// Models up_read() / up_write() and rwsem_wake().
void RwSem::up_now(Task& t, bool write) {
  count_rmw(t);
  const SimTime at = t.clock();
  auto it =
      std::find_if(t.held_rwsems.begin(), t.held_rwsems.end(),
                   [this, write](const HeldRwsem& h) { return h.sem == this && h.write == write; });
  assert(it != t.held_rwsems.end() && "release of an rwsem the task does not hold");
  (write ? write_class_ : read_class_)
      .hold_time.record(static_cast<uint64_t>((at - it->since).count_ns()));
  t.held_rwsems.erase(it);
  if (TraceSink* ts = sim_.trace())
    ts->end(Track::task(t.id()), write ? write_name_ : read_name_, TraceCat::kLockHold, at);
  if (write) {
    assert(owner_ == &t);
    owner_ = nullptr;
  } else {
    assert(readers_ > 0);
    --readers_;
  }
  if (owner_ == nullptr && readers_ == 0) {
    // __up_read(): the last reader leaving the lock to waiters clears RWSEM_NONSPINNABLE.
    if (!write && !wait_list_.empty()) nonspinnable_ = false;
    rwsem_wake(t, at);
  }
}

// Models __downgrade_write(): one atomic turns the writer's count into a reader's, then
// rwsem_downgrade_wake() -> rwsem_mark_wake(RWSEM_WAKE_READ_OWNED), which wakes readers only: a
// writer at the head keeps waiting. Writers spinning on the owner go on spinning on a
// reader-owned lock, for the rspin threshold, since 5.3; before, a reader-owned lock ends their
// spin (rwsem_spin_on_owner()), and a head spinning for a handoff sleeps.
void RwSem::downgrade_now(Task& t) {
  count_rmw(t);
  const SimTime at = t.clock();
  auto it = std::find_if(t.held_rwsems.begin(), t.held_rwsems.end(),
                         [this](const HeldRwsem& h) { return h.sem == this && h.write; });
  assert(it != t.held_rwsems.end() && owner_ == &t && "downgrade of an rwsem not held for write");
  write_class_.hold_time.record(static_cast<uint64_t>((at - it->since).count_ns()));
  *it = HeldRwsem{this, at, false};
  if (TraceSink* ts = sim_.trace()) {
    ts->end(Track::task(t.id()), write_name_, TraceCat::kLockHold, at);
    ts->begin(Track::task(t.id()), read_name_, TraceCat::kLockHold, at);
  }
  owner_ = nullptr;
  readers_ = 1;
  readers_took_the_lock(at);
  if (!wait_list_.empty() && wait_list_.front().spinning) stop_handoff_spin(at);
  if (!wait_list_.empty() && !wait_list_.front().write) rwsem_mark_wake(t, at);
}

// Models rwsem_can_spin_on_owner(): spin on a running writer owner, or (5.3+, bounded by the
// rspin threshold) on readers unless the lock is non-spinnable; never once the head waiter is
// due a handoff. Before 5.3 readers are no owner to spin on (3.x: sem->owner is NULL; 4.9+:
// is_rwsem_owner_spinnable() refuses RWSEM_READER_OWNED).
bool RwSem::rwsem_can_spin_on_owner(SimTime at) const {
  assert((!nonspinnable_ || owner_ == nullptr) && "invariant (5): a writer cleared the bit");
  if (handoff_due(at)) return false;
  if (owner_ != nullptr) return owner_->on_cpu();
  return readers_ > 0 && sim_.config().rwsem_spin != RwsemSpin::kWriter && !nonspinnable_;
}

// Reader optimistic lock stealing (5.11+): the fast path failed on WAITERS, and
// rwsem_down_read_slowpath() keeps the reader's bias when no writer holds the lock and the
// HANDOFF bit is clear, but queues when other readers hold it (rcnt > 1 on a reader-owned lock:
// a stream of readers must not starve a sleeping writer). Here a free lock with waiters has a
// woken writer at the head yet to run (invariant (2)), which then finds it reader-owned and
// sleeps again until the last reader's release wakes it. The slowpath's wake-up of the readers
// queued at the head (rcnt == 1) has nothing to do here: readers at the head of a free lock's
// list are granted when woken.
bool RwSem::reader_may_steal(SimTime at) const {
  return sim_.config().rwsem_reader_steal == RwsemReaderSteal::kOn && owner_ == nullptr &&
         readers_ == 0 && !handoff_due(at);
}

// The HANDOFF bit (5.3+): set for a head that has waited RWSEM_WAIT_TIMEOUT. Before 5.3 there is
// no such bit: nothing bounds how often others take the lock past a waiter (steal), or the woken
// writer is granted it anyway (grant).
bool RwSem::handoff_due(SimTime at) const {
  if (sim_.config().rwsem_writer_wake != RwsemWriterWake::kHandoff) return false;
  return !wait_list_.empty() && at - wait_list_.front().since >= SimTime::ns(RWSEM_WAIT_TIMEOUT_NS);
}

void RwSem::rwsem_wake(Task& waker, SimTime at) {
  if (!spinners_.empty() && !handoff_due(at)) {
    if (!spinners_.front().write) {
      // A spinning reader sees no writer and takes it (5.3-5.10), and so do the others; the
      // readers queued at the head are woken to share it.
      readers_took_the_lock(at);
      if (!wait_list_.empty() && !wait_list_.front().write) rwsem_mark_wake(waker, at);
      return;
    }
    const Spinner s = spinners_.front();
    spinners_.pop_front();
    const SimTime granted = spinner_takes_at(at, *s.task);
    grant(*s.task, true, granted, s.since, true);
    ++counters_.spin_acquired;
    ++sim_.vm().rwsem_opt_lock;
    sim_.sched().resume_spinner(*s.task, granted);
    return;
  }
  if (wait_list_.empty()) {
    assert(spinners_.empty() && "invariant (2)");
    return;
  }
  if (!spinners_.empty()) ++counters_.handoffs;
  rwsem_mark_wake(waker, at);
  // A woken writer is not running yet: spinners stop spinning on it. Readers woken past them
  // (a reader head due its handoff) leave the lock reader-owned.
  if (owner_ != nullptr && !owner_->on_cpu()) {
    while (!spinners_.empty()) stop_spinner(0, at);
  } else if (owner_ == nullptr && readers_ > 0) {
    readers_took_the_lock(at);
  }
}

// The spinning readers take a lock no writer holds, one after another as the count's line moves
// from the last writer of it to each (rwsem_try_read_lock_unqueued()).
void RwSem::grant_reader_spinners(SimTime at) {
  uint32_t from = static_cast<uint32_t>(count_.owner());
  SimTime granted = at;
  for (auto it = spinners_.begin(); it != spinners_.end();) {
    if (it->write) {
      ++it;
      continue;
    }
    const Spinner s = *it;
    it = spinners_.erase(it);
    granted = granted + sim_.topology().line_transfer(from, s.task->cpu().id);
    from = s.task->cpu().id;
    grant(*s.task, false, granted, s.since, true);
    ++counters_.reader_opt_locks;
    ++sim_.vm().rwsem_opt_rlock;
    sim_.sched().resume_spinner(*s.task, granted);
  }
}

// The lock passed to readers while tasks spin on it: spinning readers take it too, and spinning
// writers go on spinning on the readers for the rspin threshold since 5.3; before, readers are no
// owner to spin on (rwsem_spin_on_owner() ends the spin).
void RwSem::readers_took_the_lock(SimTime at) {
  if (spinners_.empty()) return;
  grant_reader_spinners(at);
  if (sim_.config().rwsem_spin == RwsemSpin::kWriter) {
    while (!spinners_.empty()) stop_spinner(0, at);
    return;
  }
  for (const Spinner& s : spinners_)
    sim_.events().schedule(at + rwsem_rspin_threshold(readers_), this, s.ticket);
}

// Models rwsem_mark_wake() and the wake_up_q() after it: a writer at the head alone, else a batch
// of readers, each woken by try_to_wake_up() (the IPI its CPU needs, sched/core.h).
void RwSem::rwsem_mark_wake(Task& waker, SimTime at) {
  Waiter& first = wait_list_.front();
  if (first.write) {
    // The lock itself before 3.10, and since 6.3 to a head due a handoff (direct handoff); a
    // wake-up to try again otherwise. A woken head that has yet to run is not woken twice.
    const bool handoff = handoff_due(at);
    if (first.spinning) {
      // The head spinning for its handoff sees the owner go (OWNER_NULL) and takes the lock:
      // the count's line from the releaser, no wake-up.
      assert(handoff && "invariant (4): only a head due a handoff spins in the wait list");
      const Waiter head = first;
      wait_list_.pop_front();
      const SimTime granted = spinner_takes_at(at, *head.task);
      grant_waiting_writer(head, granted);
      ++sim_.vm().rwsem_wlock_handoff;
      sim_.sched().resume_spinner(*head.task, granted);
      return;
    }
    if (sim_.config().rwsem_writer_wake == RwsemWriterWake::kGrant || handoff) {
      const Waiter head = first;
      wait_list_.pop_front();
      grant_waiting_writer(head, at);
      if (handoff) ++sim_.vm().rwsem_wlock_handoff;
      if (!head.woken) {
        ++sim_.vm().rwsem_wake_writer;
        sim_.sched().try_to_wake_up(waker, *head.task);
      }
      return;
    }
    if (first.woken) return;
    first.woken = true;
    ++counters_.writer_wakeups;
    ++sim_.vm().rwsem_wake_writer;
    first.task->rerun_step_when_woken(first.step);
    sim_.sched().try_to_wake_up(waker, *first.task);
    return;
  }
  const bool past_writers = sim_.config().rwsem_wake == RwsemWakeMode::kPhaseFair;
  uint32_t woken = 0;
  for (auto it = wait_list_.begin(); it != wait_list_.end() && woken < MAX_READERS_WAKEUP;) {
    if (it->write) {
      if (!past_writers) break;
      ++it;
      continue;
    }
    const Waiter w = *it;
    it = wait_list_.erase(it);
    grant(*w.task, false, at, w.since, true);
    sim_.sched().try_to_wake_up(waker, *w.task);
    ++woken;
  }
  ++counters_.reader_batches;
  counters_.readers_woken += woken;
  sim_.vm().rwsem_wake_reader += woken;
}

void RwSem::stop_spinner(size_t index, SimTime at) {
  const Spinner s = spinners_[index];
  spinners_.erase(spinners_.begin() + static_cast<std::ptrdiff_t>(index));
  ++counters_.spin_aborted;
  ++sim_.vm().rwsem_opt_fail;
  if (TraceSink* ts = sim_.trace())
    ts->complete(Track::task(s.task->id()), s.write ? write_name_ : read_name_, TraceCat::kLockWait,
                 s.since, at - s.since);
  s.task->advance_to(at);
  if (s.write) {
    queue_writer(*s.task, *s.step, at);
    return;
  }
  // A reader whose spin failed on a writer queues (rwsem_reader_phase_trylock() finds no
  // reader phase to join).
  queue_reader(*s.task, at);
}

void RwSem::owner_off_cpu(Task& owner) {
  if (owner_ != &owner) return;
  const SimTime at = sim_.now();
  while (!spinners_.empty()) stop_spinner(0, at);
  if (!wait_list_.empty() && wait_list_.front().spinning) stop_handoff_spin(at);
}

// A spinner's rspin threshold ran out on a reader-owned lock: rwsem_set_nonspinnable(), so the
// other spinners leave as they next look at the owner (OWNER_NONSPINNABLE), and no writer starts
// spinning until the bit is cleared.
void RwSem::fire(uint64_t spinner_ticket) {
  for (size_t i = 0; i < spinners_.size(); ++i) {
    if (spinners_[i].ticket != spinner_ticket) continue;
    if (owner_ == nullptr && readers_ > 0) {
      assert(std::all_of(spinners_.begin(), spinners_.end(),
                         [](const Spinner& sp) { return sp.write; }) &&
             "invariant (4): readers spin only on a writer");
      nonspinnable_ = true;
      ++counters_.nospin;
      ++sim_.vm().rwsem_opt_nospin;
      while (!spinners_.empty()) stop_spinner(0, sim_.now());
    }
    return;
  }
}

}  // namespace mmreplay::kernelsim
