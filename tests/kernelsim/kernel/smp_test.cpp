// Cross-CPU calls (kernel/smp.c): one interrupt runs every csd queued on its CPU when it takes the
// queue, and IPIs arriving while a handler runs make one more interrupt, not one each. So a CPU
// flooded with shootdowns pays the interrupt's entry once a batch.

#include "kernelsim/kernel/smp.h"

#include <gtest/gtest.h>

#include <string>

#include "kernelsim/locking/lock_classes.h"
#include "kernelsim/locking/qspinlock.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::make_sim;

const SimTime kWork = SimTime::us(3);  // what the test's IPI function does
constexpr uint32_t kTarget = 3;

using Sender = testing::IpiSender;

// At `send_at`, smp_call_function_many() to kTarget with a kWork handler.
Co<void> sender_body(Task& t, SimTime send_at, Sender* s) {
  return testing::send_ipi_at(t, send_at, kTarget, kWork, s);
}

// Three CPUs send one IPI each to kTarget, which runs nothing. The first interrupts it; the
// second arrives while that handler runs, after it took the queue, so it waits in IRR for a
// second interrupt; the third is queued before the second interrupt takes the queue and runs in
// it. Since 4.15 its sender sends no IPI (the queue held the second's csd); before, its IPI lands
// before that interrupt starts and is the same pending IRR bit.
class SmpCsdIpiTest : public ::testing::TestWithParam<const char*> {
 protected:
  // Before 4.15: an IPI to every target, its queue empty or not.
  static bool every_target() { return std::string(GetParam()) == "csd_ipi=always"; }
};

TEST_P(SmpCsdIpiTest, IpisArrivingDuringAHandlerShareOneMoreInterrupt) {
  auto sim = make_sim(4, GetParam());
  const CostProfile& c = sim->costs();
  const SimTime entry = c.ipi_handler_entry;
  const SimTime line = c.cacheline_transfer;
  const SimTime to_arrive = c.ipi_send + c.ipi_delivery;
  ASSERT_GT(kWork, SimTime::us(2)) << "the second and third arrive inside the first handler";
  const SimTime first = SimTime::us(20) + to_arrive;
  const SimTime second = first + entry + SimTime::us(1);
  const SimTime third = first + entry + SimTime::us(2);
  Sender a, b, d;
  Task& ta = sim->create_task(0, nullptr);
  sim->start_task(ta, sender_body(ta, first - to_arrive, &a));
  Task& tb = sim->create_task(1, nullptr);
  sim->start_task(tb, sender_body(tb, second - to_arrive, &b));
  Task& td = sim->create_task(2, nullptr);
  sim->start_task(td, sender_body(td, third - to_arrive, &d));
  sim->run();
  EXPECT_EQ(a.nr + b.nr, 2u);
  EXPECT_EQ(d.nr, every_target() ? 1u : 0u);
  EXPECT_EQ(a.done, first + entry + kWork + line);
  const SimTime second_irq = first + entry + kWork;  // right after the first returns
  EXPECT_EQ(b.done, second_irq + entry + kWork + line);
  // The third reads its csd (a line from its sender) and runs after the second's function.
  EXPECT_EQ(d.done, second_irq + entry + kWork + line + kWork + line);
  const CpuCounters& target = sim->cpu(kTarget).counters;
  EXPECT_EQ(target.irq_ns, static_cast<uint64_t>((2 * entry + 3 * kWork + line).count_ns()));
  EXPECT_EQ(target.call_function_irqs, 2u);
}

// The csd is queued (llist_add()) when sent, a delivery before its IPI lands. One queued just
// before the running interrupt takes the queue runs in it, before its own IPI lands. Before 4.15
// that IPI went anyway: landing after the handler returned, it interrupts the CPU for nothing.
TEST_P(SmpCsdIpiTest, ACsdQueuedBeforeTheQueueIsTakenRunsBeforeItsIpiLands) {
  auto sim = make_sim(4, GetParam());
  const CostProfile& c = sim->costs();
  const SimTime entry = c.ipi_handler_entry;
  const SimTime line = c.cacheline_transfer;
  const SimTime work = SimTime::ns(100);  // short: the handler returns before the IPI lands
  const SimTime first = SimTime::us(20) + c.ipi_send + c.ipi_delivery;
  // b's csd is queued 100 ns before the first interrupt's entry ends (it takes the queue then).
  const SimTime b_queued = first + entry - SimTime::ns(100);
  const SimTime b_lands = b_queued + c.ipi_delivery;
  const SimTime first_returns = first + entry + work;
  ASSERT_GT(b_lands, first_returns + line + work) << "its IPI lands after the handler returned";
  Sender a, b;
  Task& ta = sim->create_task(0, nullptr);
  sim->start_task(ta,
                  testing::send_ipi_at(ta, first - c.ipi_send - c.ipi_delivery, kTarget, work, &a));
  Task& tb = sim->create_task(1, nullptr);
  sim->start_task(tb, testing::send_ipi_at(tb, b_queued - c.ipi_send, kTarget, work, &b));
  sim->run();
  EXPECT_EQ(a.done, first_returns + line);
  // Run after a's function, reading its csd: acked before its IPI lands.
  EXPECT_EQ(b.done, first_returns + line + work + line);
  EXPECT_LT(b.done, b_lands);
  EXPECT_EQ(b.nr, every_target() ? 1u : 0u);
  const CpuCounters& target = sim->cpu(kTarget).counters;
  EXPECT_EQ(target.call_function_irqs, every_target() ? 2u : 1u);
  const SimTime needless = every_target() ? entry : SimTime::zero();
  EXPECT_EQ(target.irq_ns, static_cast<uint64_t>((entry + 2 * work + line + needless).count_ns()));
}

// An IPI that arrives after the handler returned takes an interrupt of its own.
TEST(SmpBatchingTest, AnIpiAfterTheHandlerReturnedPaysItsOwnEntry) {
  auto sim = make_sim(4);
  const CostProfile& c = sim->costs();
  const SimTime to_arrive = c.ipi_send + c.ipi_delivery;
  const SimTime handler = c.ipi_handler_entry + kWork;
  const SimTime first = SimTime::us(20) + to_arrive;
  const SimTime second = first + handler;  // the instant it returns
  Sender a, b;
  Task& ta = sim->create_task(0, nullptr);
  sim->start_task(ta, sender_body(ta, first - to_arrive, &a));
  Task& tb = sim->create_task(1, nullptr);
  sim->start_task(tb, sender_body(tb, second - to_arrive, &b));
  sim->run();
  EXPECT_EQ(b.done, second + handler + c.cacheline_transfer);
  EXPECT_EQ(sim->cpu(kTarget).counters.irq_ns, static_cast<uint64_t>((2 * handler).count_ns()));
}

struct Holder {
  SimTime locked;
  SimTime unlocked;
  SimTime after_sync;
};

// kTarget takes an irqsave lock at 10 us, holds it 50 us, then reaches a sync point.
Co<void> holder_body(Task& t, QSpinLock& lock, Holder* h) {
  t.work(SimTime::us(10));
  co_await lock.lock_irqsave(t);
  h->locked = t.clock();
  t.work(SimTime::us(50));
  co_await lock.unlock_irqrestore(t);
  h->unlocked = t.clock();
  co_await sync_point(t);
  h->after_sync = t.clock();
}

// Two IPIs deferred by an irqsave hold run in the one interrupt that fires at the restore.
TEST(SmpBatchingTest, TheDeferredQueueRunsInOneInterrupt) {
  auto sim = make_sim(4);
  const CostProfile& c = sim->costs();
  QSpinLock lock(*sim, kLruvecLruLockClass);
  Holder h;
  Sender a, b;
  Task& th = sim->create_task(kTarget, nullptr);
  sim->start_task(th, holder_body(th, lock, &h));
  Task& ta = sim->create_task(0, nullptr);
  sim->start_task(ta, sender_body(ta, SimTime::us(20), &a));
  Task& tb = sim->create_task(1, nullptr);
  sim->start_task(tb, sender_body(tb, SimTime::us(30), &b));
  sim->run();
  const SimTime entry = c.ipi_handler_entry;
  const SimTime line = c.cacheline_transfer;
  EXPECT_EQ(a.done, h.unlocked + entry + kWork + line);
  EXPECT_EQ(b.done, h.unlocked + entry + kWork + line + kWork + line);
  EXPECT_EQ(h.after_sync, h.unlocked + entry + 2 * kWork + line);
  const CpuCounters& target = sim->cpu(kTarget).counters;
  EXPECT_EQ(target.ipis_deferred, 1u) << "one IPI sent (4.15+), deferred by the hold";
  EXPECT_EQ(target.irq_ns, static_cast<uint64_t>((entry + 2 * kWork + line).count_ns()));
  EXPECT_EQ(target.call_function_irqs, 1u);
  EXPECT_EQ(a.nr, 1u);
  EXPECT_EQ(b.nr, 0u) << "4.15+: a's csd was still queued, so b's sender sent no IPI";
  EXPECT_TRUE(sim->cpu(kTarget).call_single_queue.empty());
}

// An IPI sent while kTarget's interrupts are off but landing after it re-enables them runs when
// it lands, in an interrupt of its own: it was never deferred.
TEST(SmpBatchingTest, AnIpiSentDuringAnIrqOffHoldThatLandsAfterItRunsWhenItLands) {
  // The holder alone first: when its hold ends.
  Holder alone;
  {
    auto sim = make_sim(4);
    QSpinLock lock(*sim, kLruvecLruLockClass);
    Task& th = sim->create_task(kTarget, nullptr);
    sim->start_task(th, holder_body(th, lock, &alone));
    sim->run();
  }
  auto sim = make_sim(4);
  const CostProfile& c = sim->costs();
  QSpinLock lock(*sim, kLruvecLruLockClass);
  Holder h;
  Sender a;
  Task& th = sim->create_task(kTarget, nullptr);
  sim->start_task(th, holder_body(th, lock, &h));
  const SimTime to_arrive = c.ipi_send + c.ipi_delivery;
  // Sent half a delivery before the restore, landing half a delivery after it.
  const SimTime send_at = alone.unlocked - SimTime::ns(to_arrive.count_ns() / 2);
  Task& ta = sim->create_task(0, nullptr);
  sim->start_task(ta, sender_body(ta, send_at, &a));
  sim->run();
  ASSERT_EQ(h.unlocked, alone.unlocked);
  ASSERT_LT(a.sent, h.unlocked) << "sent while interrupts were off";
  const SimTime arrival = a.sent + to_arrive;
  ASSERT_GT(arrival, h.unlocked) << "landing after the restore";
  EXPECT_EQ(a.done, arrival + c.ipi_handler_entry + kWork + c.cacheline_transfer);
  const CpuCounters& target = sim->cpu(kTarget).counters;
  EXPECT_EQ(target.ipis_deferred, 0u);
  EXPECT_EQ(target.irq_ns, static_cast<uint64_t>((c.ipi_handler_entry + kWork).count_ns()));
}

// Three csds queued on kTarget while its interrupts are off, their IPIs all landing after it
// re-enables them: nothing is pending at the restore, so all three run when the first IPI lands,
// in one interrupt. Since 4.15 the later senders found a csd queued and sent no IPI; before, their
// IPIs land after that interrupt started and set IRR, one bit for both: one more interrupt,
// after the third has run in the first, for nothing.
TEST_P(SmpCsdIpiTest, CsdsQueuedDuringAnIrqOffHoldRunWhenTheFirstIpiLands) {
  Holder alone;
  {
    auto sim = make_sim(4, GetParam());
    QSpinLock lock(*sim, kLruvecLruLockClass);
    Task& th = sim->create_task(kTarget, nullptr);
    sim->start_task(th, holder_body(th, lock, &alone));
    sim->run();
  }
  auto sim = make_sim(5, GetParam());
  const CostProfile& c = sim->costs();
  const SimTime entry = c.ipi_handler_entry;
  const SimTime line = c.cacheline_transfer;
  QSpinLock lock(*sim, kLruvecLruLockClass);
  Holder h;
  Sender a, b, d;
  Task& th = sim->create_task(kTarget, nullptr);
  sim->start_task(th, holder_body(th, lock, &h));
  // Queued 400, 200 and 100 ns before the restore; their IPIs land 300, 500 and 600 ns after it.
  const SimTime a_queued = alone.unlocked - SimTime::ns(400);
  const SimTime b_queued = alone.unlocked - SimTime::ns(200);
  const SimTime d_queued = alone.unlocked - SimTime::ns(100);
  ASSERT_GT(c.ipi_delivery, SimTime::ns(400));
  Task& ta = sim->create_task(0, nullptr);
  sim->start_task(ta, sender_body(ta, a_queued - c.ipi_send, &a));
  Task& tb = sim->create_task(1, nullptr);
  sim->start_task(tb, sender_body(tb, b_queued - c.ipi_send, &b));
  Task& td = sim->create_task(4, nullptr);
  sim->start_task(td, sender_body(td, d_queued - c.ipi_send, &d));
  sim->run();
  ASSERT_EQ(h.unlocked, alone.unlocked);
  const SimTime a_lands = a_queued + c.ipi_delivery;
  const SimTime first_returns = a_lands + entry + 3 * kWork + 2 * line;
  EXPECT_EQ(a.done, a_lands + entry + kWork + line);
  EXPECT_EQ(b.done, a_lands + entry + kWork + line + kWork + line);
  EXPECT_EQ(d.done, first_returns + line) << "in the first interrupt, not after a pending one";
  EXPECT_EQ(a.nr, 1u);
  EXPECT_EQ(b.nr + d.nr, every_target() ? 2u : 0u);
  const CpuCounters& target = sim->cpu(kTarget).counters;
  EXPECT_EQ(target.ipis_deferred, 0u) << "no IPI landed while interrupts were off";
  EXPECT_EQ(target.call_function_irqs, every_target() ? 2u : 1u);
  ASSERT_LT(d_queued + c.ipi_delivery, first_returns) << "b's and d's IPIs land in that handler";
  const SimTime needless = every_target() ? entry : SimTime::zero();
  EXPECT_EQ(target.irq_ns,
            static_cast<uint64_t>((entry + 3 * kWork + 2 * line + needless).count_ns()));
}

// Before 4.15 the pending interrupt a late IPI makes takes a csd queued by its entry's end: one
// queued after the running interrupt took the queue runs in it, not in an interrupt of its own
// IPI (whose own late landing then sets IRR again). Since 4.15 that csd's IPI interrupts the CPU
// when it lands.
TEST_P(SmpCsdIpiTest, ThePendingInterruptTakesACsdQueuedByItsEntrysEnd) {
  auto sim = make_sim(4, GetParam());
  const CostProfile& c = sim->costs();
  const SimTime entry = c.ipi_handler_entry;
  const SimTime line = c.cacheline_transfer;
  const SimTime work = SimTime::ns(100);
  const SimTime first = SimTime::us(20) + c.ipi_send + c.ipi_delivery;
  const SimTime b_queued = first + entry - SimTime::ns(100);  // joins the first interrupt
  const SimTime d_queued = first + entry + SimTime::ns(200);  // after it took the queue
  const SimTime b_lands = b_queued + c.ipi_delivery;
  const SimTime d_lands = d_queued + c.ipi_delivery;
  ASSERT_GT(b_lands, first + entry + 2 * work + line) << "b's IPI lands after the handler";
  Sender a, b, d;
  Task& ta = sim->create_task(0, nullptr);
  sim->start_task(ta,
                  testing::send_ipi_at(ta, first - c.ipi_send - c.ipi_delivery, kTarget, work, &a));
  Task& tb = sim->create_task(1, nullptr);
  sim->start_task(tb, testing::send_ipi_at(tb, b_queued - c.ipi_send, kTarget, work, &b));
  Task& td = sim->create_task(2, nullptr);
  sim->start_task(td, testing::send_ipi_at(td, d_queued - c.ipi_send, kTarget, work, &d));
  sim->run();
  const CpuCounters& target = sim->cpu(kTarget).counters;
  if (every_target()) {
    // b's IPI landing at b_lands fires an interrupt there, which takes d's csd; d's own IPI
    // lands after that one's ack: one more interrupt, for nothing (fired at the end).
    EXPECT_EQ(d.done, b_lands + entry + work + line);
    EXPECT_EQ(target.call_function_irqs, 3u);
    EXPECT_EQ(target.irq_ns, static_cast<uint64_t>((3 * entry + 3 * work + line).count_ns()));
  } else {
    EXPECT_EQ(d.done, d_lands + entry + work + line);
    EXPECT_EQ(target.call_function_irqs, 2u);
    EXPECT_EQ(target.irq_ns, static_cast<uint64_t>((2 * entry + 3 * work + line).count_ns()));
  }
}

INSTANTIATE_TEST_SUITE_P(BeforeAndSince415, SmpCsdIpiTest,
                         ::testing::Values("csd_ipi=always", "csd_ipi=if-empty"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param) == "csd_ipi=always" ? "Always"
                                                                              : "IfEmpty";
                         });

// Before 4.15, b's csd joins the interrupt a's IPI made and b's own IPI, landing after it, sets
// IRR: the interrupt it makes fires once the handler has returned and global time passes its
// start (Task::due() on kTarget, whose task reaches its irqsave lock then), for nothing,
// and its entry delays the lock by that much against the run since 4.15, where b sent no IPI.
TEST(SmpBatchingTest, AnInterruptPendingInIrrFiresOnceGlobalTimePassesIt) {
  Holder since_415;
  Holder before_415;
  SimTime b_lands;
  uint64_t irqs[2] = {0, 0};
  SimTime last_irq_start;
  for (const char* policy : {"csd_ipi=if-empty", "csd_ipi=always"}) {
    const bool every_target = std::string(policy) == "csd_ipi=always";
    auto sim = make_sim(4, policy);
    const CostProfile& c = sim->costs();
    const SimTime work = SimTime::ns(100);
    QSpinLock lock(*sim, kLruvecLruLockClass);
    Holder& h = every_target ? before_415 : since_415;
    Sender a, b;
    Task& th = sim->create_task(kTarget, nullptr);
    sim->start_task(th, holder_body(th, lock, &h));  // reaches its lock at 10 us
    const SimTime a_lands = SimTime::ns(9'900);
    const SimTime b_queued = a_lands + c.ipi_handler_entry - SimTime::ns(50);  // joins a's
    b_lands = b_queued + c.ipi_delivery;
    Task& ta = sim->create_task(0, nullptr);
    sim->start_task(
        ta, testing::send_ipi_at(ta, a_lands - c.ipi_send - c.ipi_delivery, kTarget, work, &a));
    Task& tb = sim->create_task(1, nullptr);
    sim->start_task(tb, testing::send_ipi_at(tb, b_queued - c.ipi_send, kTarget, work, &b));
    sim->run();
    irqs[every_target ? 1 : 0] = sim->cpu(kTarget).counters.call_function_irqs;
    if (every_target) last_irq_start = sim->cpu(kTarget).irq_started_at;
  }
  EXPECT_EQ(irqs[0], 1u);
  EXPECT_EQ(irqs[1], 2u);
  EXPECT_EQ(last_irq_start, b_lands) << "as b's IPI lands, a's handler having returned";
  ASSERT_LT(b_lands, since_415.locked) << "b's IPI lands before the lock is taken";
  EXPECT_EQ(before_415.locked, since_415.locked + make_sim(1)->costs().ipi_handler_entry);
}

}  // namespace
}  // namespace mmreplay::kernelsim
