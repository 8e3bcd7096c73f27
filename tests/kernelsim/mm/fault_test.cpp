// The fault path: anonymous, zero page, COW, file, and which lock it takes.

#include "kernelsim/mm/memory.h"

#include <gtest/gtest.h>

#include "kernelsim/mm/mm_types.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

TEST(FaultTest, ReadThenWriteGoesZeroPageThenCow) {
  auto sim = make_sim(1);
  thread(
      *sim, 1, 0,
      {Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE), Op::touch(kBase, 4 * kPage, false),
       Op::touch(kBase, 4 * kPage, true), Op::think(SimTime::ms(1))});
  sim->run_until(SimTime::us(500));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.fault_zero_page, 4u);
  EXPECT_EQ(vm.fault_cow, 4u);
  EXPECT_EQ(vm.pages_alloc, 4u);
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 4u);
}

TEST(FaultTest, FileMappingsMapPageCacheOrCopy) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0,
         {Op::mmap_file(kBase, 4 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, 3, 0),
          Op::mmap_file(kBase + 16 * kPage, 4 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE, 3, 0),
          Op::touch(kBase, 4 * kPage, true), Op::touch(kBase + 16 * kPage, 2 * kPage, false),
          Op::touch(kBase + 18 * kPage, 2 * kPage, true), Op::think(SimTime::ms(100))});
  sim->run_until(SimTime::ms(50));
  const VmCounters& vm = sim->stats().vm;
  // 4 shared writes (no fault-around for writes) + 1 private read, whose fault-around maps pages
  // 16-19 read-only; the writes to 18-19 then copy them.
  EXPECT_EQ(vm.fault_file, 5u);
  EXPECT_EQ(vm.fault_cow, 2u);  // private writes copy
  EXPECT_EQ(sim->find_mm(1)->rss_file, 6u);
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 2u);
  // The file (cold) is read once: the first fault misses and reads the window around page 0
  // (read_ahead_kb 128: 32 pages); every later fault, of either mapping, finds its page there.
  EXPECT_EQ(vm.pgmajfault, 1u);
  EXPECT_EQ(vm.fault_file_major, 1u);
  EXPECT_EQ(vm.pgcache_miss, 32u);
  EXPECT_EQ(sim->page_cache().nr_pages(), 32u);
  // Pages 0-3 mapped shared, 0-1 also mapped private; 2-3 were only copied from.
  EXPECT_EQ(sim->page_cache().nr_mapped(), 4u);
  EXPECT_EQ(sim->page_cache().nr_dirty(), 4u) << "the shared writes dirty their pages";
}

TEST(FaultTest, FaultOnUnmappedAddressIsSegv) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0, {Op::page_fault(kBase, false)});
  sim->run();
  EXPECT_EQ(sim->stats().vm.fault_segv, 1u);
  EXPECT_EQ(sim->tasks()[0]->last_result, -ERRNO_EFAULT);
}

TEST(FaultTest, FaultPathTakesMmapSemOrTheVmaLockPerPolicy) {
  for (const char* policy : {"fault_lock=mmap_sem", "fault_lock=per-vma"}) {
    auto sim = make_sim(1, policy);
    thread(*sim, 1, 0,
           {Op::mmap_anon(kBase, 16 * kPage, PROT_READ | PROT_WRITE),
            Op::touch(kBase, 16 * kPage, true), Op::think(SimTime::ms(1))});
    sim->run_until(SimTime::us(500));
    const LockClassStats* r = sim->lockstat().find("&mm->mmap_sem-R");
    ASSERT_NE(r, nullptr);
    if (std::string(policy) == "fault_lock=per-vma") {
      EXPECT_EQ(r->acquisitions, 0u);
      EXPECT_EQ(sim->stats().vm.fault_vma_lock, 16u);
    } else {
      EXPECT_EQ(r->acquisitions, 16u);
      EXPECT_EQ(sim->stats().vm.fault_vma_lock, 0u);
    }
  }
}

// Before 6.7 every refill takes a batch (pcp_high_test.cpp has 6.7's growing refills).
TEST(FaultTest, ZoneLockIsTakenOncePerPcpBatch) {
  auto sim = make_sim(1, "pcp_high=wmark");
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 1000 * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, 1000 * kPage, true), Op::think(SimTime::ms(10))});
  sim->run_until(SimTime::ms(5));
  const uint64_t pages = 1000 + sim->find_mm(1)->pte_tables.size();
  EXPECT_EQ(sim->stats().vm.zone_lock_batches, (pages + PCP_BATCH - 1) / PCP_BATCH);
  EXPECT_EQ(sim->lockstat().find("&zone->lock")->acquisitions, sim->stats().vm.zone_lock_batches);
}

}  // namespace
}  // namespace mmreplay::kernelsim
