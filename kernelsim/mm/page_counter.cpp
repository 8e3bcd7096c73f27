#include "kernelsim/mm/page_counter.h"

#include <cassert>

#include "kernelsim/locking/lock_classes.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

// One atomic_long_add_return() on the page_counter's line (a failed charge adds its revert).
class PageCounter::AtomicStep final : public SharedStep {
 public:
  AtomicStep(Task& t, PageCounter& c, int64_t delta) : SharedStep(t), c_(c), delta_(delta) {}
  bool run_now() override {
    Simulation& sim = task_.sim();
    VmCounters& vm = sim.vm();
    const SimTime at = sim.now();
    bool bounced = false;
    SimTime own;
    SimTime done = c_.line_.atomic_rmw(task_.cpu().id, at, sim.topology(), &bounced, &own);
    vm.memcg_counter_wait_ns += static_cast<uint64_t>((done - at - own).count_ns());
    vm.memcg_counter_bounces += bounced ? 1 : 0;
    ok_ = c_.apply(delta_);
    if (!ok_)
      done = c_.line_.atomic_rmw(task_.cpu().id, done, sim.topology(), nullptr);  // the revert
    task_.advance_to(done);
    return true;
  }
  bool await_resume() const noexcept { return ok_; }

 private:
  PageCounter& c_;
  int64_t delta_;
  bool ok_ = true;
};

PageCounter::PageCounter(Simulation& sim, MemcgCounterKind kind, uint64_t limit_pages)
    : sim_(sim), kind_(kind), limit_(limit_pages) {
  assert(kind != MemcgCounterKind::kOff);
  if (kind == MemcgCounterKind::kResCounter)
    lock_ = std::make_unique<QSpinLock>(sim, kCounterLockClass);
}

bool PageCounter::apply(int64_t delta) {
  if (delta >= 0) {
    const uint64_t nr = static_cast<uint64_t>(delta);
    if (nr > margin()) {
      ++failcnt_;
      return false;
    }
    usage_ += nr;
    assert(usage_ <= limit_ && "invariant (1)");
    return true;
  }
  const uint64_t nr = static_cast<uint64_t>(-delta);
  assert(nr <= usage_ && "invariant (2)");
  usage_ -= nr;
  return true;
}

Co<bool> PageCounter::try_charge(Task& t, uint64_t nr) {
  ++sim_.vm().memcg_counter_charges;
  if (kind_ == MemcgCounterKind::kPageCounter)
    co_return co_await AtomicStep(t, *this, static_cast<int64_t>(nr));
  co_await lock_->lock_irqsave(t);  // res_counter_charge(): spin_lock_irqsave(&counter->lock)
  ++sim_.vm().memcg_counter_locks;
  t.work(sim_.costs().memcg_counter_update);
  const bool ok = apply(static_cast<int64_t>(nr));
  co_await lock_->unlock_irqrestore(t);
  co_return ok;
}

Co<void> PageCounter::uncharge(Task& t, uint64_t nr) {
  ++sim_.vm().memcg_counter_uncharges;
  if (kind_ == MemcgCounterKind::kPageCounter) {
    co_await AtomicStep(t, *this, -static_cast<int64_t>(nr));
    co_return;
  }
  co_await lock_->lock_irqsave(t);  // res_counter_uncharge()
  ++sim_.vm().memcg_counter_locks;
  t.work(sim_.costs().memcg_counter_update);
  apply(-static_cast<int64_t>(nr));
  co_await lock_->unlock_irqrestore(t);
}

}  // namespace mmreplay::kernelsim
