// Interrupt-disabled sections: an IPI aimed at a CPU holding (or spinning for) a
// spin_lock_irqsave() lock runs after the unlock, its initiator waits, and the hold is the
// critical section alone.

#include "kernelsim/arch/x86/irqflags.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernelsim/kernel/smp.h"
#include "kernelsim/locking/lock_classes.h"
#include "kernelsim/locking/qspinlock.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

const SimTime kHandlerWork = SimTime::us(3);  // what the test's IPI function does

// CPU 1: at `lock_at` takes `lock` (irqsave or plain), holds it for `hold`, unlocks, then reaches
// a sync point (where handler time is charged).
struct Holder {
  SimTime locked;
  SimTime unlocked;
  SimTime after_sync;
};

Co<void> holder_body(Task& t, QSpinLock& lock, bool irq, SimTime lock_at, SimTime hold, Holder* h) {
  t.work(lock_at - t.clock());
  co_await (irq ? lock.lock_irqsave(t) : lock.lock(t));
  h->locked = t.clock();
  t.work(hold);
  co_await (irq ? lock.unlock_irqrestore(t) : lock.unlock(t));
  h->unlocked = t.clock();
  co_await sync_point(t);
  h->after_sync = t.clock();
}

using Initiator = testing::IpiSender;

// CPU 0: at `send_at`, smp_call_function_many() to CPU 1 with a kHandlerWork handler.
Co<void> initiator_body(Task& t, SimTime send_at, Initiator* i) {
  return testing::send_ipi_at(t, send_at, 1, kHandlerWork, i);
}

struct PairRun {
  Holder holder;
  Initiator initiator;
  LockClassStats stats;
  CpuCounters target;
};

PairRun run_pair(bool irq) {
  auto sim = make_sim(2);
  QSpinLock lock(*sim, kLruvecLruLockClass);
  PairRun r;
  Task& h = sim->create_task(1, nullptr);
  sim->start_task(h, holder_body(h, lock, irq, SimTime::us(10), SimTime::us(50), &r.holder));
  Task& i = sim->create_task(0, nullptr);
  sim->start_task(i, initiator_body(i, SimTime::us(20), &r.initiator));
  sim->run();
  r.stats = lock.stats();
  r.target = sim->cpu(1).counters;
  return r;
}

TEST(IrqOffTest, IpiToAnIrqOffHolderRunsAfterTheUnlock) {
  const PairRun r = run_pair(true);
  const CostProfile& c = cost_profile_default();
  const SimTime handler = c.ipi_handler_entry + kHandlerWork;
  ASSERT_EQ(r.initiator.nr, 1u);
  // The hold is the critical section alone.
  EXPECT_EQ(r.holder.unlocked - r.holder.locked, SimTime::us(50));
  EXPECT_EQ(r.stats.hold_time.max(), static_cast<uint64_t>(SimTime::us(50).count_ns()));
  // The handler runs at the unlock; the initiator waits at least the rest of the hold.
  EXPECT_EQ(r.initiator.done, r.holder.unlocked + handler + c.cacheline_transfer);
  EXPECT_GE(r.initiator.done - r.initiator.sent, r.holder.unlocked - r.initiator.sent);
  // The holder pays for the handler after the hold.
  EXPECT_EQ(r.holder.after_sync, r.holder.unlocked + handler);
  const SimTime arrival = r.initiator.sent + c.ipi_send + c.ipi_delivery;
  EXPECT_EQ(r.target.ipis_deferred, 1u);
  EXPECT_EQ(r.target.ipi_deferred_ns,
            static_cast<uint64_t>((r.holder.unlocked - arrival).count_ns()));
  EXPECT_EQ(r.target.irq_ns, static_cast<uint64_t>(handler.count_ns()));
}

TEST(IrqOffTest, IpiToACpuWithInterruptsOnRunsAtOnce) {
  // spin_lock() leaves interrupts on: the handler lands inside the hold and stretches it.
  const PairRun r = run_pair(false);
  const CostProfile& c = cost_profile_default();
  const SimTime handler = c.ipi_handler_entry + kHandlerWork;
  const SimTime arrival = r.initiator.sent + c.ipi_send + c.ipi_delivery;
  EXPECT_EQ(r.initiator.done, arrival + handler + c.cacheline_transfer);
  EXPECT_LT(r.initiator.done, r.holder.unlocked);
  EXPECT_EQ(r.holder.unlocked - r.holder.locked, SimTime::us(50) + handler);
  EXPECT_EQ(r.target.ipis_deferred, 0u);
  EXPECT_EQ(r.target.ipi_deferred_ns, 0u);
}

// CPU 1: reaches a sync point at `step_at`, works `then`, reaches another.
struct Stepper {
  SimTime step;
  SimTime after;
};

Co<void> stepper_body(Task& t, SimTime step_at, SimTime then, Stepper* s) {
  t.work(step_at - t.clock());
  co_await sync_point(t);
  s->step = t.clock();
  t.work(then);
  co_await sync_point(t);
  s->after = t.clock();
}

// A handler delays what its target does from the handler's start: the target's step at
// kStepAt is late by the handler only when the IPI reached its CPU before then.
TEST(IrqStealTest, AHandlerDelaysTheWorkAfterItsStartNotAStepBeforeIt) {
  const CostProfile& c = cost_profile_default();
  const SimTime kStepAt = SimTime::us(10);
  const SimTime kThen = SimTime::us(5);
  const SimTime handler = c.ipi_handler_entry + kHandlerWork;
  const SimTime to_arrive = c.ipi_send + c.ipi_delivery;  // sent to arrived
  ASSERT_GT(to_arrive, SimTime::zero());
  for (const bool before : {true, false}) {
    // Sent while the target still works towards its step; it arrives just before or just after.
    const SimTime half = SimTime::ns(to_arrive.count_ns() / 2);
    const SimTime arrival = before ? kStepAt - half : kStepAt + half;
    auto sim = make_sim(2);
    Stepper s;
    Initiator i;
    Task& target = sim->create_task(1, nullptr);
    sim->start_task(target, stepper_body(target, kStepAt, kThen, &s));
    Task& initiator = sim->create_task(0, nullptr);
    sim->start_task(initiator, initiator_body(initiator, arrival - to_arrive, &i));
    sim->run();
    ASSERT_EQ(i.nr, 1u);
    ASSERT_EQ(i.sent + to_arrive, arrival);
    EXPECT_EQ(s.step, before ? kStepAt + handler : kStepAt) << (before ? "before" : "after");
    EXPECT_EQ(s.after, kStepAt + handler + kThen) << "the handler is charged once either way";
    EXPECT_EQ(sim->cpu(1).counters.irq_ns, static_cast<uint64_t>(handler.count_ns()));
  }
}

// CPU 1 nests two irqsave locks: interrupts come back only at the outer unlock.
struct Nested {
  int depth_inner = 0;
  int depth_between = 0;
  int depth_after = 0;
  SimTime inner_unlocked;
  SimTime outer_unlocked;
};

Co<void> nested_body(Task& t, QSpinLock& outer, QSpinLock& inner, Nested* n) {
  t.work(SimTime::us(10));
  co_await outer.lock_irqsave(t);
  t.work(SimTime::us(5));
  co_await inner.lock_irqsave(t);
  n->depth_inner = t.cpu().irqs_disabled;
  t.work(SimTime::us(20));
  co_await inner.unlock_irqrestore(t);
  n->inner_unlocked = t.clock();
  n->depth_between = t.cpu().irqs_disabled;
  t.work(SimTime::us(30));
  co_await outer.unlock_irqrestore(t);
  n->outer_unlocked = t.clock();
  n->depth_after = t.cpu().irqs_disabled;
}

TEST(IrqOffTest, NestedIrqsaveReenablesAtTheOutermostRestore) {
  auto sim = make_sim(2);
  QSpinLock outer(*sim, kLruvecLruLockClass);
  QSpinLock inner(*sim, kCounterLockClass);
  Nested n;
  Initiator i;
  Task& h = sim->create_task(1, nullptr);
  sim->start_task(h, nested_body(h, outer, inner, &n));
  Task& s = sim->create_task(0, nullptr);
  sim->start_task(s, initiator_body(s, SimTime::us(20), &i));  // inside both locks
  sim->run();
  const CostProfile& c = sim->costs();
  EXPECT_EQ(n.depth_inner, 2);
  EXPECT_EQ(n.depth_between, 1);
  EXPECT_EQ(n.depth_after, 0);
  EXPECT_GT(i.done, n.inner_unlocked);
  EXPECT_EQ(i.done, n.outer_unlocked + c.ipi_handler_entry + kHandlerWork + c.cacheline_transfer);
  // 5 + 20 + 30 us of section and the inner lock's uncontended acquire: no handler.
  EXPECT_EQ(outer.stats().hold_time.max(),
            static_cast<uint64_t>((SimTime::us(55) + c.atomic_local).count_ns()));
  EXPECT_EQ(inner.stats().hold_time.max(), static_cast<uint64_t>(SimTime::us(20).count_ns()));
  EXPECT_TRUE(sim->cpu(1).call_single_queue.empty());
}

// A tlb_flush2-style loop: every thread of one mm dirties a page and DONTNEEDs it, so each
// madvise sends shootdowns while the others free pages under lruvec->lru_lock (memcg on).
std::unique_ptr<Simulation> run_tlb_flush2(const std::string& policy) {
  constexpr uint32_t kThreads = 8;
  constexpr int kLoops = 64;
  auto sim = make_sim(kThreads, policy);
  for (uint32_t cpu = 0; cpu < kThreads; ++cpu) {
    const uint64_t base = kBase + cpu * 64 * kPage;
    std::vector<Op> ops = {Op::mmap_anon(base, kPage, PROT_READ | PROT_WRITE)};
    for (int l = 0; l < kLoops; ++l) {
      ops.push_back(Op::touch(base, kPage, true));
      ops.push_back(Op::madvise(base, kPage, MADV_DONTNEED));
    }
    thread(*sim, 1, cpu, ops);
  }
  sim->run();
  return sim;
}

TEST(IrqOffTest, ShootdownsNeverStretchLruLockHolds) {
  auto ipi = run_tlb_flush2("tlb=ipi,memcg=page_counter");
  auto broadcast = run_tlb_flush2("tlb=broadcast,memcg=page_counter");
  const LockClassStats* a = ipi->lockstat().find(kLruvecLruLockClass);
  const LockClassStats* b = broadcast->lockstat().find(kLruvecLruLockClass);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_GT(ipi->cpu_totals().ipis_sent, 0u);
  EXPECT_EQ(a->hold_time.max(), b->hold_time.max());
  EXPECT_EQ(a->hold_time.min(), b->hold_time.min());
}

TEST(IrqOffTest, DeferralIsDeterministic) {
  auto first = run_tlb_flush2("tlb=ipi,memcg=page_counter");
  auto second = run_tlb_flush2("tlb=ipi,memcg=page_counter");
  EXPECT_GT(first->cpu_totals().ipis_deferred, 0u) << "the loop must exercise deferral";
  EXPECT_EQ(first->cpu_totals(), second->cpu_totals());
  EXPECT_EQ(first->lockstat(), second->lockstat());
  EXPECT_EQ(first->now(), second->now());
}

// A wake-up on CPU 1 from CPU 0 whose wakee preempts CPU 1's task while that task holds an
// irqsave lock: the reschedule IPI waits in IRR, its entry is charged after the unlock (the hold
// stays the critical section alone), and it counts as a deferred IPI. The wakee runs after it.
TEST(IrqOffTest, ARescheduleIpiToAnIrqOffHolderIsTakenAtTheUnlock) {
  const CostProfile& c = cost_profile_default();
  constexpr uint64_t kWakeId = 1;
  const SimTime kLockAt = SimTime::ms(3);  // the sleeper has slept past CFS's wake-up granularity
  const SimTime kHold = SimTime::us(50);
  for (const char* sched : {"sched=cfs", "sched=eevdf"}) {
    SCOPED_TRACE(sched);
    auto sim = make_sim(2, std::string(sched) + ",wake_affine=off");
    QSpinLock lock(*sim, kLruvecLruLockClass);
    // The sleeper first, so that it is asleep when the holder starts on its CPU.
    Task& sleeper =
        thread(*sim, 2, 1, {Op::futex_wait(kWakeId, SimTime::zero()), Op::think(SimTime::us(10))});
    Holder h;
    Task& holder = sim->create_task(1, nullptr);
    sim->start_task(holder, holder_body(holder, lock, true, kLockAt, kHold, &h));
    thread(*sim, 3, 0, {Op::think(kLockAt + SimTime::us(10)), Op::futex_wake(kWakeId)});
    sim->run();
    ASSERT_TRUE(sleeper.finished() && holder.finished());
    const CpuCounters& target = sim->cpu(1).counters;
    EXPECT_EQ(sim->cpu(0).counters.resched_ipis, 1u);
    EXPECT_EQ(h.unlocked - h.locked, kHold);
    EXPECT_EQ(target.irq_ns, static_cast<uint64_t>(c.ipi_handler_entry.count_ns()));
    EXPECT_EQ(target.ipis_deferred, 1u);
    EXPECT_GT(target.ipi_deferred_ns, 0u);
    EXPECT_LT(target.ipi_deferred_ns, static_cast<uint64_t>(kHold.count_ns()));
    EXPECT_GE(h.after_sync, h.unlocked + c.ipi_handler_entry);
    EXPECT_GT(sleeper.clock(), h.unlocked + c.ipi_handler_entry);
    EXPECT_EQ(target.involuntary_switches, 1u);
  }
}

}  // namespace
}  // namespace mmreplay::kernelsim
