// Wake-affine placement of sync wake-ups (kernelsim/sched/wake_affine.h).

#include "kernelsim/sched/wake_affine.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::make_sim;
using testing::thread;

constexpr uint32_t kWriterMm = 1;
constexpr uint32_t kReaderMm = 2;
constexpr uint64_t kFirstId = 1;
constexpr int kRounds = 10;

// A pipe ping-pong between two processes: the writer (CPU 0) wakes the reader (CPU 1), which
// works and wakes the writer back, `kRounds` times. Each wake carries `flags`.
struct PingPong {
  std::unique_ptr<Simulation> sim;
  Task* writer = nullptr;
  Task* reader = nullptr;
};

PingPong ping_pong(const std::string& policy, uint32_t flags) {
  PingPong p;
  p.sim = make_sim(2, policy);
  std::vector<Op> w;
  std::vector<Op> r;
  for (int i = 0; i < kRounds; ++i) {
    const uint64_t to_reader = kFirstId + 2 * static_cast<uint64_t>(i);
    w.push_back(Op::think(SimTime::us(10)));
    w.push_back(Op::futex_wake(to_reader, flags));
    w.push_back(Op::futex_wait(to_reader + 1, SimTime::zero()));
    r.push_back(Op::futex_wait(to_reader, SimTime::zero()));
    r.push_back(Op::think(SimTime::us(10)));
    r.push_back(Op::futex_wake(to_reader + 1, flags));
  }
  p.writer = &thread(*p.sim, kWriterMm, 0, std::move(w));
  p.reader = &thread(*p.sim, kReaderMm, 1, std::move(r));
  p.sim->run();
  EXPECT_TRUE(p.writer->finished() && p.reader->finished());
  return p;
}

TEST(WakeAffineTest, ASyncWakeUpPullsThePipeReaderToTheWritersCpu) {
  const PingPong p = ping_pong("wake_affine=sync", WF_SYNC);
  EXPECT_EQ(p.reader->cpu().id, 0u);
  EXPECT_EQ(p.writer->cpu().id, 0u);
  // After the first wake-up CPU 1 runs nothing: it only held the reader's first wait.
  EXPECT_LT(p.sim->cpu(1).counters.busy_ns, static_cast<uint64_t>(SimTime::us(10).count_ns()));
}

TEST(WakeAffineTest, TheWakeeStaysWhereItWasWithoutSyncOrWithTheKnobOff) {
  EXPECT_EQ(ping_pong("wake_affine=sync", 0).reader->cpu().id, 1u);  // futex_wake: wake_up_q()
  EXPECT_EQ(ping_pong("wake_affine=off", WF_SYNC).reader->cpu().id, 1u);
  // Bare metal: the reader's own CPU is idle and shares the cache, select_idle_sibling() keeps it.
  EXPECT_EQ(ping_pong("wake_affine=sync-idle-prev", WF_SYNC).reader->cpu().id, 1u);
}

TEST(WakeAffineTest, OneCpuSavesTheCrossCpuWakeUpOfEachRound) {
  // Between two CPUs every wake-up finds the wakee's CPU idle and pays wakeup_latency; on one CPU
  // the wakee takes over when the waker sleeps, for a context switch (and switch_mm).
  const PingPong apart = ping_pong("wake_affine=off", WF_SYNC);
  const PingPong together = ping_pong("wake_affine=sync", WF_SYNC);
  EXPECT_LT(together.sim->now(), apart.sim->now());
  EXPECT_GT(apart.sim->now(), SimTime::us(10) * (2 * kRounds));
}

TEST(WakeAffineTest, AWakerThatSharesItsCpuDoesNotPullTheWakee) {
  // wake_affine_idle(): nr_running == 1 only. Another task queued behind the waker keeps the
  // wakee on its own CPU.
  auto sim = make_sim(2, "wake_affine=sync");
  Task& reader = thread(*sim, kReaderMm, 1, {Op::futex_wait(kFirstId, SimTime::zero())});
  thread(*sim, kWriterMm, 0, {Op::think(SimTime::us(10)), Op::futex_wake(kFirstId, WF_SYNC)});
  thread(*sim, kWriterMm, 0, {Op::think(SimTime::ms(5))});
  sim->run();
  EXPECT_TRUE(reader.finished());
  EXPECT_EQ(reader.cpu().id, 1u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
