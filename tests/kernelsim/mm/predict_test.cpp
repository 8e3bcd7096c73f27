// Predictive reclaim (seed 003) and kswapd's sleep: the least-squares trend, an early kswapd
// wakeup on a steady allocator, the HZ/10 nap, and fewer allocation stalls on a dd-like stream.

#include "kernelsim/mm/vmscan_predict.h"

#include <gtest/gtest.h>

#include "kernelsim/mm/vmscan.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kPage;
using testing::thread;

using testing::kMiB;
constexpr uint64_t kA = 0x10000000;

std::unique_ptr<Simulation> predict_machine(uint64_t mem_mib, uint32_t cpus,
                                            const std::string& policy) {
  std::string error;
  MachineConfig m;
  m.nr_cpus = cpus;
  m.memory_bytes = mem_mib * kMiB;
  m.swap_bytes = 256 * kMiB;
  auto sim = Simulation::create(m, cost_profile_default(), testing::test_config(policy), &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

TEST(PredictTest, LeastSquaresLineOfAWindow) {
  FreePageTrend trend(4);
  for (int i = 0; i < 3; ++i)
    trend.add_sample(SimTime::us(10 * i), 1000 - 100 * static_cast<uint64_t>(i));
  EXPECT_FALSE(trend.fit().has_value()) << "no prediction before the window is full";
  trend.add_sample(SimTime::us(30), 700);
  const auto line = trend.fit();
  ASSERT_TRUE(line.has_value());
  EXPECT_DOUBLE_EQ(line->slope_pages_per_ns, -0.01);  // 100 pages per 10 us
  EXPECT_DOUBLE_EQ(line->pages_at_first, 1000);
  // At 30 us the line is at 700 pages: low = 500 is 20 us away.
  EXPECT_TRUE(trend.predicts_low_within(SimTime::us(30), 500, SimTime::us(20)));
  EXPECT_FALSE(trend.predicts_low_within(SimTime::us(30), 500, SimTime::us(19)));
  trend.add_sample(SimTime::us(40), 2000);  // the oldest sample leaves; the trend turns up
  EXPECT_GT(trend.fit()->slope_pages_per_ns, 0);
  EXPECT_FALSE(trend.predicts_low_within(SimTime::us(40), 500, SimTime::ms(1000)));
}

TEST(PredictTest, KnobsAndPresets) {
  EXPECT_NE(predict_machine(64, 2, "reclaim=predictive,predict_window=16"), nullptr);
  std::string error;
  EXPECT_EQ(Simulation::create(MachineConfig{}, cost_profile_default(), "predict_window=9", &error),
            nullptr);
  EXPECT_NE(error.find("predict_window"), std::string::npos) << error;
}

// A steady allocator: 256 KiB written every 200 us into 63 MiB on a 64 MiB machine.
std::vector<Op> steady_allocator() {
  std::vector<Op> ops{Op::mmap_anon(kA, 63 * kMiB, PROT_READ | PROT_WRITE)};
  for (uint64_t off = 0; off < 63 * kMiB; off += 256 * 1024) {
    ops.push_back(Op::touch(kA + off, 256 * 1024, true));
    ops.push_back(Op::think(SimTime::us(200)));
  }
  return ops;
}

struct FirstWake {
  SimTime when = SimTime::infinite();
  uint64_t free_pages = 0;
};

FirstWake first_kswapd_wake(const std::string& policy) {
  auto sim = predict_machine(64, 2, policy);
  thread(*sim, 1, 0, steady_allocator());
  FirstWake w;
  for (SimTime t = SimTime::zero(); sim->run_until(t); t += SimTime::us(100)) {
    if (sim->kswapd() != nullptr) {
      w.when = t;
      w.free_pages = sim->page_alloc().zone().free_pages;
      break;
    }
  }
  EXPECT_EQ(sim->stats().vm.allocstall, 0u) << policy << ": kswapd keeps up with this rate";
  return w;
}

TEST(PredictTest, PredictiveWakesKswapdBeforeTheLowWatermark) {
  const uint64_t low = predict_machine(64, 2, "")->page_alloc().zone().wmark_low;
  const FirstWake reactive = first_kswapd_wake("reclaim=reactive");
  const FirstWake predictive = first_kswapd_wake("reclaim=predictive");
  ASSERT_NE(reactive.when, SimTime::infinite());
  ASSERT_NE(predictive.when, SimTime::infinite());
  EXPECT_LT(predictive.when, reactive.when);
  EXPECT_GT(predictive.free_pages, low) << "woken on the trend, above low";
  EXPECT_LE(reactive.free_pages, low + 64)
      << "woken when an allocation found low (pcp batch slack)";
}

TEST(PredictTest, KswapdNapsThenSleepsWhenStillBalanced) {
  auto sim = predict_machine(64, 2, "reclaim=reactive");
  thread(*sim, 1, 0,
         {Op::mmap_anon(kA, 63 * kMiB, PROT_READ | PROT_WRITE), Op::touch(kA, 63 * kMiB, true),
          Op::think(SimTime::ms(1000))});
  sim->run_until(SimTime::ms(900));
  const VmCounters& vm = sim->stats().vm;
  ASSERT_NE(sim->kswapd(), nullptr);
  EXPECT_EQ(sim->kswapd()->state(), TaskState::kSleeping);
  EXPECT_EQ(vm.kswapd_high_wmark_hit_quickly, 1u) << "HZ/10 nap timed out, balanced: full sleep";
  EXPECT_EQ(vm.kswapd_low_wmark_hit_quickly, 0u);
  EXPECT_GT(sim->page_alloc().zone().free_pages, sim->page_alloc().zone().wmark_high);
}

TEST(PredictTest, AWakeupDuringTheNapSendsKswapdBackToWork) {
  auto sim = predict_machine(64, 2, "reclaim=reactive");
  std::vector<Op> ops{Op::mmap_anon(kA, 120 * kMiB, PROT_READ | PROT_WRITE)};
  for (uint64_t off = 0; off < 120 * kMiB; off += 4 * kMiB) {  // bursts 10 ms apart
    ops.push_back(Op::touch(kA + off, 4 * kMiB, true));
    ops.push_back(Op::think(SimTime::ms(10)));
  }
  thread(*sim, 1, 0, std::move(ops));
  sim->run();
  EXPECT_GT(sim->stats().vm.kswapd_low_wmark_hit_quickly, 0u) << "woken within HZ/10 of napping";
}

// Three dd writers on a 32 MiB machine (seed 003's "3 concurrent dd", scaled down).
uint64_t dd_allocstalls(const std::string& policy) {
  auto sim = predict_machine(32, 4, policy);
  for (uint32_t i = 0; i < 3; ++i) {
    std::vector<Op> ops;
    for (uint64_t b = 0; b < (48u << i); ++b) {
      ops.push_back(Op::think(SimTime::us(50)));
      ops.push_back(Op::file_write(i + 1, b * kMiB, kMiB));
    }
    thread(*sim, i + 1, i, std::move(ops));
  }
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_EQ(vm.oom, 0u) << "clean page cache is always reclaimable";
  EXPECT_GT(vm.pgsteal_kswapd, 0u);
  EXPECT_EQ(vm.pswpout, 0u) << "no anon memory to swap";
  return vm.allocstall;
}

TEST(PredictTest, PredictiveGivesFewerAllocationStallsOnAParallelDdStream) {
  const uint64_t reactive = dd_allocstalls("reclaim=reactive");
  const uint64_t predictive = dd_allocstalls("reclaim=predictive");
  EXPECT_GT(reactive, 0u) << "the stream makes real pressure: allocation stalls";
  EXPECT_LT(predictive, reactive);
  std::printf("allocstalls: reactive %llu, predictive %llu\n",
              static_cast<unsigned long long>(reactive),
              static_cast<unsigned long long>(predictive));
}

}  // namespace
}  // namespace mmreplay::kernelsim
