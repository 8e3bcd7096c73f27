#include "kernelsim/mm/vma_lock.h"

#include <cassert>

#include "kernelsim/mm/mm_types.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

bool VmaLock::vma_start_read_now(Task& t, uint64_t mm_lock_seq) {
  Simulation& sim = t.sim();
  assert(sim.now() == t.clock());
  if (lock_seq_ == mm_lock_seq) return false;
  t.advance_to(line_.atomic_rmw(t.cpu().id, sim.now(), sim.topology(), nullptr));
  ++readers_;
  t.mm()->vma_lock_read.record_acquire(t.cpu().id, 0, false);
  return true;
}

void VmaLock::vma_end_read_now(Task& t) {
  Simulation& sim = t.sim();
  assert(readers_ > 0);
  t.advance_to(line_.atomic_rmw(t.cpu().id, sim.now(), sim.topology(), nullptr));
  --readers_;
  if (readers_ == 0 && waiting_writer_ != nullptr) {
    Task* w = waiting_writer_;
    waiting_writer_ = nullptr;
    sim.sched().try_to_wake_up(t, *w);
  }
}

bool VmaLock::vma_start_write_now(Task& t, uint64_t mm_lock_seq) {
  Simulation& sim = t.sim();
  lock_seq_ = mm_lock_seq;
  LockClassStats& cls = t.mm()->vma_lock_write;
  if (readers_ == 0) {
    cls.record_acquire(t.cpu().id, 0, false);
    return true;
  }
  assert(waiting_writer_ == nullptr && "invariant (2)");
  cls.record_acquire(t.cpu().id, 0, true);
  waiting_writer_ = &t;
  sim.sched().sleep(t);
  return false;
}

bool VmaLockStep::run_now() {
  if (kind_ == Kind::kEndRead) {
    lock_.vma_end_read_now(task_);
    return true;
  }
  return lock_.vma_start_write_now(task_, seq_);
}

}  // namespace mmreplay::kernelsim
