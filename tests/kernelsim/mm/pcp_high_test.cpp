// The pcp list's high mark, refills and drains by era (kernelsim/mm/pcp_high.h): the sizes
// zone_highsize() gives, 5.14's drains that double while frees run on, 6.7's refills that double
// while allocations do, its high raised by frees and refills and lowered under pressure and by
// the second's decay, and what a run of faults and an unmap leave on the list in each era.

#include "kernelsim/mm/pcp_high.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernelsim/mm/page_alloc.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::thread;

std::unique_ptr<Simulation> sim_of(const std::string& policy, uint64_t mem_mib,
                                   uint32_t nr_cpus = 1) {
  std::string error;
  MachineConfig m;
  m.nr_cpus = nr_cpus;
  m.memory_bytes = mem_mib << 20;
  auto sim = Simulation::create(m, cost_profile_default(), policy, &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

TEST(PcpHighTest, ZoneHighsizeSplitsOverTheCpusAndKeepsFourBatches) {
  EXPECT_EQ(zone_highsize(10'000, 4, 63), 2'500u);
  EXPECT_EQ(zone_highsize(100, 4, 63), 252u);  // batch << 2
  EXPECT_EQ(zone_highsize(10'000, 0, 63), 10'000u);
}

// 4 GiB, 4 CPUs: batch 63 in every era; 6 x batch before 5.14; the low watermark over the CPUs
// from 5.14; and up to an eighth of the zone over the CPUs from 6.7.
TEST(PcpHighTest, HighBoundsByEra) {
  auto batch = sim_of("pcp_high=batch", 4096, 4);
  const PerCpuPages& b = batch->page_alloc().zone().pcp[2];
  EXPECT_EQ(b.batch, 63u);
  EXPECT_EQ(b.high, 378u);
  EXPECT_EQ(b.high_max, 378u);

  auto wmark = sim_of("pcp_high=wmark", 4096, 4);
  const Zone& zw = wmark->page_alloc().zone();
  const uint32_t low_share = static_cast<uint32_t>(zw.wmark_low / 4);
  EXPECT_EQ(zw.pcp[2].high_min, std::max(low_share, 252u));
  EXPECT_EQ(zw.pcp[2].high_max, zw.pcp[2].high_min);
  EXPECT_EQ(zw.pcp[2].high, zw.pcp[2].high_min);

  auto autotuned = sim_of("pcp_high=auto", 4096, 4);
  const Zone& za = autotuned->page_alloc().zone();
  EXPECT_EQ(za.pcp[2].high_min, zw.pcp[2].high_min);
  EXPECT_EQ(za.pcp[2].high_max, za.managed_pages / 8 / 4);
  EXPECT_EQ(za.pcp[2].high, za.pcp[2].high_min);
}

// 5.14-6.6 nr_pcp_free(): each drain with no allocation between doubles, from a batch up to
// high - batch; an allocation halves the factor.
TEST(PcpHighTest, WatermarkEraDrainsDoubleWhileFreesRunOn) {
  const ZoneFlags z;
  PerCpuPages p;
  p.batch = 63;
  p.high = p.high_min = p.high_max = 2'000;
  p.count = 2'000;
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kWatermark, z), 63u);
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kWatermark, z), 126u);
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kWatermark, z), 252u);
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kWatermark, z), 504u);
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kWatermark, z), 1'008u);
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kWatermark, z), 1'937u);  // high - batch
  pcp_note_alloc(p, PcpHighMode::kWatermark);
  EXPECT_EQ(p.free_factor, 2u);
  p.count = 100;
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kWatermark, z), 0u);  // below high: no drain
}

TEST(PcpHighTest, WhileKswapdReclaimsAListKeepsFourBatches) {
  ZoneFlags z;
  PerCpuPages p;
  p.batch = 63;
  p.high = p.high_min = p.high_max = 2'000;
  p.count = 300;
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kWatermark, z), 0u);
  z.reclaim_active = true;
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kWatermark, z), 63u);  // 300 >= 4 x 63
  // 6.7+: the same bound, and high itself comes down by the frees in a row.
  PerCpuPages a;
  a.batch = 63;
  a.high_min = 300;
  a.high_max = 5'000;
  a.high = 3'000;
  a.count = 260;
  EXPECT_GT(pcp_note_free(a, PcpHighMode::kAuto, z), 0u);
  EXPECT_EQ(a.high, 3'000u - 63u);
}

// 6.7 nr_pcp_alloc(): each refill of the empty list with no free between takes twice the last,
// up to batch << PCP_BATCH_SCALE_MAX, and raises high by what it takes.
TEST(PcpHighTest, AutoEraRefillsDoubleAndRaiseHigh) {
  const ZoneFlags z;
  PerCpuPages p;
  p.batch = 63;
  p.high_min = 300;
  p.high_max = 100'000;
  p.high = 300;
  uint32_t high = p.high;
  for (const uint32_t expected : {63u, 126u, 252u, 504u, 1'008u, 2'016u, 2'016u}) {
    EXPECT_EQ(nr_pcp_alloc(p, PcpHighMode::kAuto, z), expected);
    EXPECT_EQ(p.high, high + expected);
    high = p.high;
  }
  // A free halves the factor (5 -> 2): the next refill is a quarter of the last.
  p.count = 1;
  (void)pcp_note_free(p, PcpHighMode::kAuto, z);
  p.count = 0;
  EXPECT_EQ(nr_pcp_alloc(p, PcpHighMode::kAuto, z), 252u);
}

// 6.7 nr_pcp_high(): a free that finds the list full raises high to hold the frees in a row
// plus a batch; below the high watermark each free lowers it by them instead.
TEST(PcpHighTest, AutoEraFreesRaiseHighUnlessTheZoneIsBelowItsHighWatermark) {
  ZoneFlags z;
  PerCpuPages p;
  p.batch = 63;
  p.high_min = 300;
  p.high_max = 100'000;
  p.high = 300;
  p.count = 300;  // with the page just freed: the list reached high
  p.free_count = 1'000;
  // high goes to the frees in a row (1,001 with this one) plus a batch; this free still drains
  // at the old high, clamp(1,001, 63, 300 - 63) pages.
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kAuto, z), 237u);
  EXPECT_EQ(p.high, 1'001u + 63u);
  // Below the high watermark high comes down by the frees in a row, and the list drains at its
  // own count (every free drains).
  z.below_high = true;
  p.count = 500;
  p.free_count = 100;
  EXPECT_EQ(pcp_note_free(p, PcpHighMode::kAuto, z), 101u);
  EXPECT_EQ(p.high, 1'064u - 101u);
}

// decay_pcp_high(): each second high loses an eighth (not below high_min) and the list drains
// to it; an idle stretch of many seconds reaches high_min and no further.
TEST(PcpHighTest, DecayTakesAnEighthASecondDownToHighMin) {
  PerCpuPages p;
  p.batch = 63;
  p.high_min = 300;
  p.high_max = 100'000;
  p.high = 8'000;
  p.count = 8'000;
  EXPECT_EQ(decay_pcp_high(p, SimTime::ms(999)), 0u);
  EXPECT_EQ(decay_pcp_high(p, SimTime::ms(1'000)), 1'000u);
  EXPECT_EQ(p.high, 7'000u);
  EXPECT_EQ(p.count, 7'000u);
  EXPECT_EQ(decay_pcp_high(p, SimTime::ms(100'000)), 6'700u);
  EXPECT_EQ(p.high, 300u);
  EXPECT_EQ(p.next_decay, SimTime::ms(101'000));
}

// What 2,048 pages faulted and unmapped on a 32 MiB machine leave on the CPU's list: before 5.14
// a list of 6 pages; 6.7+ raises high as the faults refill it and as the unmap frees into it,
// so nearly all of them stay on the list (high_max: an eighth of the zone).
TEST(PcpHighTest, AnUnmapStaysOnTheListFrom67) {
  for (const char* policy : {"pcp_high=batch", "pcp_high=auto"}) {
    auto sim = sim_of(policy, 32);
    const uint64_t pages = 512;
    thread(*sim, 1, 0,
           {Op::mmap_anon(kBase, pages * kPage, PROT_READ | PROT_WRITE),
            Op::touch(kBase, pages * kPage, true), Op::munmap(kBase, pages * kPage),
            Op::think(SimTime::ms(1))});
    sim->run_until(SimTime::us(900));
    const PerCpuPages& p = sim->page_alloc().zone().pcp[0];
    if (std::string(policy) == "pcp_high=batch") {
      EXPECT_LE(p.count, 6u) << policy;
    } else {
      EXPECT_GE(p.count, pages) << policy;
      EXPECT_LE(p.high, p.high_max) << policy;
    }
  }
}

// will-it-scale's page_fault1 on 16 CPUs (a 4 MiB mapping each, written and unmapped three
// times): before 5.14 every 63 pages cost a round trip to zone->lock; 6.7's refills grow to 32
// batches and its lists keep what the unmaps free, so the lock is taken a few times a CPU.
TEST(PcpHighTest, AutoTuningTakesZoneLockOffTheFaultPath) {
  constexpr uint32_t kCpus = 16;
  constexpr uint64_t kPages = 1024;
  auto acquisitions = [&](const char* policy) {
    auto sim = sim_of(policy, 4096, kCpus);
    for (uint32_t cpu = 0; cpu < kCpus; ++cpu) {
      const uint64_t base = kBase + cpu * (uint64_t{1} << 30);
      std::vector<Op> ops;
      for (int loop = 0; loop < 3; ++loop) {
        ops.push_back(Op::mmap_anon(base, kPages * kPage, PROT_READ | PROT_WRITE));
        ops.push_back(Op::touch(base, kPages * kPage, true));
        ops.push_back(Op::munmap(base, kPages * kPage));
      }
      thread(*sim, cpu + 1, cpu, ops);
    }
    sim->run();
    return sim->lockstat().find("&zone->lock")->acquisitions;
  };
  const uint64_t batch = acquisitions("pcp_high=batch");
  const uint64_t autotuned = acquisitions("pcp_high=auto");
  // Three rounds of 1,024 pages, of which the list keeps 378 between rounds: the rest refilled
  // and drained 63 at a time.
  EXPECT_GE(batch, kCpus * 3 * ((kPages - PCP_HIGH) / PCP_BATCH));
  // The first round's refills (63 .. 2,016 pages: 5 of them), then the list serves the rest.
  EXPECT_LE(autotuned, kCpus * 6) << "pcp_high=batch took it " << batch << " times";
}

}  // namespace
}  // namespace mmreplay::kernelsim
