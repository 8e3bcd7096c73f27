// User and system time as getrusage() reports them under tick-based accounting
// (account_process_tick()): think time and user accesses are user time; an interrupt that lands in
// them is user time too (the tick it held off fires as it returns to user mode), one that lands in
// kernel work is system time; kernel threads' time is no process's.

#include <gtest/gtest.h>

#include "kernelsim/kernel/thread.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::IpiSender;
using testing::make_sim;

constexpr uint32_t kTarget = 1;
const SimTime kRun = SimTime::us(100);    // the target task's think or kernel work
const SimTime kHandler = SimTime::us(3);  // the IPI's function

Co<void> think_body(Task& t) {
  co_await do_think(t, kRun);
}

// Kernel work (what a syscall or fault charges with Task::work()), then a sync point.
Co<void> kernel_body(Task& t) {
  t.work(kRun);
  co_await sync_point(t);
}

// Kernel work, then think time with no sync point between (a syscall's tail, then the gap to the
// next call): an interrupt in the kernel part pushes the think later.
Co<void> kernel_then_think_body(Task& t) {
  t.work(kRun);
  co_await do_think(t, kRun);
}

// Runs `body` on kTarget from time 0 and IPIs to it landing at each of `lands`, each with a
// handler of `handler`.
template <typename Body>
CpuCounters run_with_ipis(Body body, std::initializer_list<SimTime> lands,
                          SimTime handler = kHandler) {
  auto sim = make_sim(4);
  const CostProfile& c = sim->costs();
  const SimTime to_arrive = c.ipi_send + c.ipi_delivery;
  Task& target = sim->create_task(kTarget, nullptr);
  sim->start_task(target, body(target));
  std::vector<IpiSender> senders(lands.size());
  uint32_t cpu = 2;
  size_t i = 0;
  for (SimTime land : lands) {
    Task& s = sim->create_task(cpu++, nullptr);
    sim->start_task(s, testing::send_ipi_at(s, land - to_arrive, kTarget, handler, &senders[i++]));
  }
  sim->run();
  return sim->cpu(kTarget).counters;
}

TEST(CpuTime, AnInterruptInThinkTimeIsUserTime) {
  const CpuCounters c = run_with_ipis(think_body, {SimTime::us(20)});
  EXPECT_EQ(c.user_ns, static_cast<uint64_t>(kRun.count_ns()));
  ASSERT_GT(c.irq_ns, 0u);
  EXPECT_EQ(c.irq_user_ns, c.irq_ns);
  EXPECT_GE(c.busy_ns, c.user_ns + c.irq_user_ns);
  EXPECT_EQ(c.kthread_ns, 0u);
}

TEST(CpuTime, AnInterruptInKernelWorkIsSystemTime) {
  const CpuCounters c = run_with_ipis(kernel_body, {SimTime::us(20)});
  EXPECT_EQ(c.user_ns, 0u);
  ASSERT_GT(c.irq_ns, 0u);
  EXPECT_EQ(c.irq_user_ns, 0u);
  EXPECT_GE(c.busy_ns, static_cast<uint64_t>((kRun).count_ns()) + c.irq_ns);
}

// The first handler pushes the rest of the think later: a second IPI landing after the think's
// unshifted end, but before its shifted one, still interrupts user mode. The think starts once
// the task is set up (within the few microseconds its busy time has beyond the think), so a long
// first handler makes the window wide enough not to depend on when exactly.
TEST(CpuTime, TheRestOfAUserRunComesAfterItsHandler) {
  const SimTime long_handler = SimTime::us(50);
  const CpuCounters alone = run_with_ipis(think_body, {});
  const SimTime setup = SimTime::ns(static_cast<int64_t>(alone.busy_ns)) - kRun;
  ASSERT_LT(setup, SimTime::us(20));
  const SimTime second = kRun + setup + SimTime::us(15);  // unshifted end + 15 .. 35 us
  const CpuCounters c = run_with_ipis(think_body, {SimTime::us(20), second}, long_handler);
  EXPECT_EQ(c.user_ns, static_cast<uint64_t>(kRun.count_ns()));
  const CpuCounters one = run_with_ipis(think_body, {SimTime::us(20)}, long_handler);
  ASSERT_GT(one.irq_ns, 0u);
  EXPECT_EQ(c.irq_ns, 2 * one.irq_ns) << "the second IPI interrupted the task";
  EXPECT_EQ(c.irq_user_ns, c.irq_ns);
}

// A handler that lands in the kernel work before a user run pushes the run later: a second one
// landing in the run's pushed tail (after its unpushed end) still interrupts user mode.
TEST(CpuTime, AnInterruptInKernelWorkPushesTheUserRunAfterIt) {
  const SimTime long_handler = SimTime::us(50);
  const CpuCounters alone = run_with_ipis(kernel_then_think_body, {});
  const SimTime setup = SimTime::ns(static_cast<int64_t>(alone.busy_ns)) - 2 * kRun;
  ASSERT_LT(setup, SimTime::us(20));
  const SimTime second = 2 * kRun + setup + SimTime::us(15);  // after the unpushed end
  const CpuCounters one = run_with_ipis(kernel_then_think_body, {SimTime::us(20)}, long_handler);
  ASSERT_GT(one.irq_ns, 0u);
  EXPECT_EQ(one.irq_user_ns, 0u) << "it landed in kernel work";
  const CpuCounters c =
      run_with_ipis(kernel_then_think_body, {SimTime::us(20), second}, long_handler);
  EXPECT_EQ(c.user_ns, static_cast<uint64_t>(kRun.count_ns()));
  EXPECT_EQ(c.irq_ns, 2 * one.irq_ns);
  EXPECT_EQ(c.irq_user_ns, one.irq_ns) << "the second landed in the pushed think";
}

}  // namespace
}  // namespace mmreplay::kernelsim
