// Zone watermarks against the kernel formulas (mm/page_alloc.c: init_per_zone_wmark_min(),
// __setup_per_zone_wmarks()), and the lru_lock rate of the lru_add batch.

#include "kernelsim/mm/page_alloc.h"

#include <gtest/gtest.h>

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
