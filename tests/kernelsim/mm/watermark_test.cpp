// Zone watermarks and per-CPU list sizes against the kernel formulas (mm/page_alloc.c:
// init_per_zone_wmark_min(), __setup_per_zone_wmarks(), zone_batchsize()), and the lru_lock rate
// of the lru_add batch.

#include "kernelsim/mm/page_alloc.h"

#include <gtest/gtest.h>

#include <tuple>

#include "kernelsim/simulation.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::thread;

struct Expected {
  uint64_t mem_mib;
  uint64_t min_free_kbytes;
  uint64_t min, low, high;
};

const Zone& zone_of(const std::string& policy, uint64_t mem_mib,
                    std::unique_ptr<Simulation>* keep) {
  std::string error;
  MachineConfig m;
  m.nr_cpus = 1;
  m.memory_bytes = mem_mib << 20;
  *keep = Simulation::create(m, cost_profile_default(), policy, &error);
  EXPECT_NE(*keep, nullptr) << error;
  return (*keep)->page_alloc().zone();
}

TEST(WatermarkTest, MinFreeKbytesIsIntSqrtOfLowmemTimes16Clamped) {
  EXPECT_EQ(calculate_min_free_kbytes(262144, MIN_FREE_KBYTES_CEIL_3X), 4096u);  // 1 GiB
  EXPECT_EQ(calculate_min_free_kbytes(786432, MIN_FREE_KBYTES_CEIL_3X),
            7094u);  // 3 GiB: sqrt(50331648)
  EXPECT_EQ(calculate_min_free_kbytes(4194304, MIN_FREE_KBYTES_CEIL_3X), 16384u);  // 16 GiB
  EXPECT_EQ(calculate_min_free_kbytes(256, MIN_FREE_KBYTES_CEIL_3X), 128u);        // 1 MiB: floor
  EXPECT_EQ(calculate_min_free_kbytes(uint64_t{1} << 27, MIN_FREE_KBYTES_CEIL_3X),
            65536u);  // 512 GiB
  EXPECT_EQ(calculate_min_free_kbytes(uint64_t{1} << 27, MIN_FREE_KBYTES_CEIL),
            92681u);  // not clamped
}

TEST(WatermarkTest, ThreeXFormula) {
  // low = min + min/4, high = min + min/2 (3.x __setup_per_zone_wmarks()).
  for (const Expected& e :
       {Expected{1024, 4096, 1024, 1280, 1536}, Expected{3072, 7094, 1773, 2216, 2659},
        Expected{16384, 16384, 4096, 5120, 6144}, Expected{524288, 65536, 16384, 20480, 24576}}) {
    std::unique_ptr<Simulation> sim;
    const Zone& z = zone_of("watermarks=3.x", e.mem_mib, &sim);
    EXPECT_EQ(z.min_free_kbytes, e.min_free_kbytes) << e.mem_mib << " MiB";
    EXPECT_EQ(z.wmark_min, e.min) << e.mem_mib << " MiB";
    EXPECT_EQ(z.wmark_low, e.low) << e.mem_mib << " MiB";
    EXPECT_EQ(z.wmark_high, e.high) << e.mem_mib << " MiB";
  }
}

TEST(WatermarkTest, ScaleFactorFormula) {
  // gap = max(min/4, managed * 10 / 10000); low = min + gap, high = min + 2 gap (4.6+).
  for (const Expected& e :
       {Expected{1024, 4096, 1024, 1286, 1548}, Expected{3072, 7094, 1773, 2559, 3345},
        Expected{16384, 16384, 4096, 8290, 12484}, Expected{64, 1024, 256, 320, 384}}) {
    std::unique_ptr<Simulation> sim;
    const Zone& z = zone_of("watermarks=scale-factor", e.mem_mib, &sim);
    EXPECT_EQ(z.min_free_kbytes, e.min_free_kbytes) << e.mem_mib << " MiB";
    EXPECT_EQ(z.wmark_min, e.min) << e.mem_mib << " MiB";
    EXPECT_EQ(z.wmark_low, e.low) << e.mem_mib << " MiB";
    EXPECT_EQ(z.wmark_high, e.high) << e.mem_mib << " MiB";
  }
}

TEST(WatermarkTest, PcpBatchIsZoneBatchsize) {
  // pages / 1024, capped at 256 (1 MiB), quartered, then rounddown_pow_of_two(b + b/2) - 1.
  EXPECT_EQ(pcp_batch_of_zone(256), 0u);                 // 1 MiB: 0 -> 1 -> 0
  EXPECT_EQ(pcp_batch_of_zone(8192), 1u);                // 32 MiB: 8 -> 2 -> 3 -> 1
  EXPECT_EQ(pcp_batch_of_zone(32768), 7u);               // 128 MiB: 32 -> 8 -> 12 -> 7
  EXPECT_EQ(pcp_batch_of_zone(131072), 31u);             // 512 MiB: 128 -> 32 -> 48 -> 31
  EXPECT_EQ(pcp_batch_of_zone(262144), PCP_BATCH);       // 1 GiB: 256 -> 64 -> 96 -> 63
  EXPECT_EQ(pcp_batch_of_zone(uint64_t{1} << 25), 63u);  // 128 GiB: capped at 1 MiB
}

// Before 5.14 (pcp_high=batch); the later eras' sizes are in pcp_high_test.cpp.
TEST(WatermarkTest, PerCpuListsAreSizedFromTheZone) {
  for (const auto& [mem_mib, batch, high] :
       {std::tuple{32u, 1u, 6u}, std::tuple{128u, 7u, 42u}, std::tuple{4096u, 63u, 378u}}) {
    std::unique_ptr<Simulation> sim;
    const Zone& z = zone_of("pcp_high=batch", mem_mib, &sim);
    EXPECT_EQ(z.pcp[0].batch, batch) << mem_mib << " MiB";
    EXPECT_EQ(z.pcp[0].high, high) << mem_mib << " MiB";
  }
  // A zone too small for a batch still moves one page at a time, and keeps none on the list
  // (pageset_set_batch(): high = 6 * 0, batch = max(1, 0)).
  std::unique_ptr<Simulation> sim;
  const Zone& tiny = zone_of("pcp_high=batch", 1, &sim);
  EXPECT_EQ(tiny.pcp[0].batch, 1u);
  EXPECT_EQ(tiny.pcp[0].high, 0u);
}

// A page freed on a small machine goes back to the buddy lists once its CPU's short list is
// full: after 1 MiB is faulted and unmapped on a 32 MiB machine, all but `high` pages are free
// (before 5.14; 6.7+ raises high to keep them, pcp_high_test.cpp).
TEST(WatermarkTest, SmallZoneGetsItsFreedPagesBackInTheBuddyLists) {
  std::string error;
  MachineConfig m;
  m.nr_cpus = 1;
  m.memory_bytes = uint64_t{32} << 20;
  auto sim = Simulation::create(m, cost_profile_default(), "pcp_high=batch", &error);
  ASSERT_NE(sim, nullptr) << error;
  const uint64_t before = sim->page_alloc().zone().free_pages;
  const uint64_t pages = 256;
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, pages * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, pages * kPage, true), Op::munmap(kBase, pages * kPage),
          Op::think(SimTime::ms(1))});
  sim->run_until(SimTime::us(900));
  const Zone& z = sim->page_alloc().zone();
  const uint64_t high_of_32_mib = 6;  // a 63-page batch would hold all 256 (high 378)
  EXPECT_LE(z.pcp[0].count, high_of_32_mib);
  EXPECT_GE(z.free_pages + high_of_32_mib, before) << "at most `high` pages held on the list";
}

TEST(WatermarkTest, LruLockTakenOncePerPagevecOfFaultedPages) {
  for (const uint32_t n : {14u, 15u, 31u}) {
    // release_pages=off: the exit's zap would add its own rounds (memcontrol_test.cpp).
    std::unique_ptr<Simulation> sim =
        testing::make_sim(1, "release_pages=off,pagevec_size=" + std::to_string(n));
    const uint64_t pages = uint64_t{n} * 100;
    thread(*sim, 1, 0,
           {Op::mmap_anon(kBase, pages * kPage, PROT_READ | PROT_WRITE),
            Op::touch(kBase, pages * kPage, true), Op::think(SimTime::ms(1))});
    sim->run();
    const LockClassStats* lru_lock = sim->lockstat().find("&pgdat->lru_lock");
    ASSERT_NE(lru_lock, nullptr);
    EXPECT_EQ(lru_lock->acquisitions, 100u) << "pagevec_size=" << n;
    EXPECT_EQ(sim->stats().vm.allocstall, 0u);
    EXPECT_EQ(sim->stats().vm.kswapd_wakeups, 0u);
  }
}

}  // namespace
}  // namespace mmreplay::kernelsim
