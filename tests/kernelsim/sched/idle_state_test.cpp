// Idle depth on wake-up (sched/core.h, CostProfile::deep_idle_after and deep_idle_exit): a CPU
// idle past the step is slower to wake, as a KVM vCPU past its host's halt polling or a CPU in a
// deeper C-state.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::make_sim;
using testing::thread;

constexpr uint32_t kWakerMm = 1;
constexpr uint32_t kSleeperMm = 2;
constexpr int kIdleRounds = 10;
constexpr SimTime kStep = SimTime::us(100);
constexpr SimTime kExit = SimTime::us(50);
constexpr SimTime kSleeperWork = SimTime::us(10);

CostProfile with_step(SimTime exit) {
  CostProfile c = cost_profile_default();
  c.deep_idle_after = kStep;
  c.deep_idle_exit = exit;
  return c;
}

// The waker (CPU 0) works `waker_work`, then wakes the sleeper (CPU 1), which works kSleeperWork
// and wakes it back: the sleeper's CPU idles about waker_work each round, the waker's about
// kSleeperWork. wake_affine=off keeps them apart.
struct PingPongRun {
  std::unique_ptr<Simulation> sim;
  uint64_t deep_wakeups_sleeper_cpu = 0;
  uint64_t deep_wakeups_waker_cpu = 0;
};

PingPongRun ping_pong(SimTime waker_work, const CostProfile& costs) {
  PingPongRun r;
  r.sim = make_sim(2, "wake_affine=off", costs);
  std::vector<Op> w;
  std::vector<Op> s;
  for (int i = 0; i < kIdleRounds; ++i) {
    const uint64_t to_sleeper = 1 + 2 * static_cast<uint64_t>(i);
    w.push_back(Op::think(waker_work));
    w.push_back(Op::futex_wake(to_sleeper));
    w.push_back(Op::futex_wait(to_sleeper + 1, SimTime::zero()));
    s.push_back(Op::futex_wait(to_sleeper, SimTime::zero()));
    s.push_back(Op::think(kSleeperWork));
    s.push_back(Op::futex_wake(to_sleeper + 1));
  }
  Task& waker = thread(*r.sim, kWakerMm, 0, std::move(w));
  Task& sleeper = thread(*r.sim, kSleeperMm, 1, std::move(s));
  r.sim->run();
  EXPECT_TRUE(waker.finished() && sleeper.finished());
  r.deep_wakeups_waker_cpu = r.sim->cpu(0).counters.deep_idle_wakeups;
  r.deep_wakeups_sleeper_cpu = r.sim->cpu(1).counters.deep_idle_wakeups;
  return r;
}

TEST(IdleStateTest, ACpuIdlePastTheStepPaysTheDeepExitOnEachWakeUp) {
  const PingPongRun deep = ping_pong(2 * kStep, with_step(kExit));
  EXPECT_EQ(deep.deep_wakeups_sleeper_cpu, static_cast<uint64_t>(kIdleRounds));
  EXPECT_EQ(deep.deep_wakeups_waker_cpu, 0u);  // idle kSleeperWork and a wake-up: shallow
  // The exit is on the round trip's path: the same run without it is kIdleRounds exits shorter.
  const PingPongRun flat = ping_pong(2 * kStep, with_step(SimTime::zero()));
  EXPECT_EQ(flat.deep_wakeups_sleeper_cpu, 0u);
  EXPECT_EQ(deep.sim->now() - flat.sim->now(), kExit * kIdleRounds);
}

// A guest's IPI to a vCPU past its host's halt polling: the waker pays deep_idle_ipi_send more
// for each wake-up of the CPU idle past the step, and nothing more for one idle a moment. The
// wake-up is on the waker's path: each round's send delays the round trip by it.
TEST(IdleStateTest, TheWakerPaysTheDeepIpiSendOnlyToACpuPastTheStep) {
  constexpr SimTime kDeepSend = SimTime::us(8);
  CostProfile dear_send = with_step(SimTime::zero());
  dear_send.deep_idle_ipi_send = kDeepSend;
  const PingPongRun deep = ping_pong(2 * kStep, dear_send);
  const PingPongRun flat = ping_pong(2 * kStep, with_step(SimTime::zero()));
  EXPECT_EQ(deep.sim->now() - flat.sim->now(), kDeepSend * kIdleRounds);
  EXPECT_EQ(deep.sim->cpu(0).counters.wakeup_ipis, flat.sim->cpu(0).counters.wakeup_ipis);
  EXPECT_EQ(deep.deep_wakeups_sleeper_cpu, 0u);  // no deep exit in this profile: sends only

  const PingPongRun shallow = ping_pong(SimTime::us(25), dear_send);
  const PingPongRun shallow_flat = ping_pong(SimTime::us(25), with_step(SimTime::zero()));
  EXPECT_EQ(shallow.sim->now(), shallow_flat.sim->now());
}

TEST(IdleStateTest, ShortIdlesStayShallow) {
  const PingPongRun shallow = ping_pong(SimTime::us(25), with_step(kExit));
  EXPECT_EQ(shallow.deep_wakeups_sleeper_cpu + shallow.deep_wakeups_waker_cpu, 0u);
  const PingPongRun flat = ping_pong(SimTime::us(25), with_step(SimTime::zero()));
  EXPECT_EQ(shallow.sim->now(), flat.sim->now());
}

// A recorded wait's length was measured up to the task running again: the recording machine's
// wake-up, its deep exit included, is in it. A sleep of a given length (a generator's) is not.
TEST(IdleStateTest, ARecordedWaitHasItsDeepExitAlreadyAndASleepPaysIt) {
  auto wait_on_idle_cpu = [](Op op) {
    auto sim = make_sim(1, "", with_step(kExit));
    thread(*sim, kWakerMm, 0, {std::move(op)});
    sim->run();
    return std::pair{sim->now(), sim->cpu(0).counters.deep_idle_wakeups};
  };
  const auto [recorded_end, recorded_deep] = wait_on_idle_cpu(Op::block(2 * kStep));
  const auto [sleep_end, sleep_deep] = wait_on_idle_cpu(Op::sleep(2 * kStep));
  EXPECT_EQ(recorded_deep, 0u);
  EXPECT_EQ(sleep_deep, 1u);
  EXPECT_EQ(sleep_end - recorded_end, kExit);
}

TEST(IdleStateTest, TheBuiltInProfilesHaveOneIdleState) {
  for (const char* name : {"default", "xeon-2014", "zram"}) {
    const CostProfile c = *find_cost_profile(name);
    EXPECT_EQ(c.deep_idle_exit, SimTime::zero()) << name;
    EXPECT_EQ(c.deep_idle_ipi_send, SimTime::zero()) << name;
  }
  EXPECT_EQ(ping_pong(2 * kStep, cost_profile_default()).deep_wakeups_sleeper_cpu, 0u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
