// munmap racing with page faults on other CPUs: faults wait for the writer, and no page leaks.

#include <gtest/gtest.h>

#include "kernelsim/mm/mm_types.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr uint64_t kMunmapPages = 8192;  // 32 MiB

void check_balance(const Simulation& sim) {
  uint64_t mapped = 0;
  for (uint32_t id : {1u}) {
    if (const Mm* mm = sim.find_mm(id)) mapped += mm->rss_anon;
  }
  const VmCounters& vm = sim.stats().vm;
  EXPECT_EQ(vm.pages_alloc, vm.pages_free + mapped) << "a user page leaked or was freed twice";
  EXPECT_EQ(sim.page_alloc().allocated(), mapped + sim.find_mm(1)->pte_tables.size());
}

std::unique_ptr<Simulation> run_race(const std::string& policy) {
  auto sim = make_sim(4, policy);
  // CPU 0 maps and populates, then unmaps the whole range while CPUs 1-3 keep faulting in it.
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, kMunmapPages * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, kMunmapPages * kPage / 2, true), Op::munmap(kBase, kMunmapPages * kPage),
          Op::think(SimTime::ms(100))});
  for (uint32_t cpu = 1; cpu < 4; ++cpu) {
    std::vector<Op> ops = {Op::think(SimTime::ms(2))};  // let the mapping appear
    for (uint64_t i = 0; i < 400; ++i) {  // ~8 ms of faults, across the munmap at ~5.5 ms
      ops.push_back(Op::page_fault(kBase + (kMunmapPages / 2 + cpu * 1024 + i) * kPage, true));
      ops.push_back(Op::think(SimTime::us(20)));
    }
    ops.push_back(Op::think(SimTime::ms(100)));
    thread(*sim, 1, cpu, std::move(ops));
  }
  sim->run_until(SimTime::ms(50));
  const LockClassStats* r = sim->lockstat().find("&mm->mmap_sem-R");
  EXPECT_NE(r, nullptr);
  EXPECT_GT(r == nullptr ? 0u : r->contentions, 0u) << "faults must wait for the munmap writer";
  EXPECT_GT(sim->stats().vm.fault_segv, 0u) << "faults after the munmap find no VMA";
  EXPECT_GT(sim->stats().vm.fault_anon, kMunmapPages / 2 + 3)
      << "faults before the munmap mapped pages";
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 0u);
  check_balance(*sim);
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_TRUE(sim->find_mm(1)->dead);
  EXPECT_EQ(sim->page_alloc().allocated(), 0u);
  EXPECT_EQ(sim->stats().vm.pgtable_alloc, sim->stats().vm.pgtable_free);
  return sim;
}

TEST(MunmapTest, ConcurrentFaultsWaitForTheWriterAndNothingLeaks) {
  run_race("");
}

TEST(MunmapTest, PerVmaLockFaultsFallBackWhileTheVmaIsWriteLocked) {
  auto sim = run_race("fault_lock=per-vma");
  EXPECT_GT(sim->stats().vm.fault_vma_lock, 0u);
  EXPECT_GT(sim->stats().vm.fault_vma_lock_retry, 0u)
      << "write-locked VMA must send faults to mmap_sem";
}

TEST(MunmapTest, CountsBalanceWhilePagesAreStillMapped) {
  auto sim = make_sim(2);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 1024 * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, 1024 * kPage, true), Op::munmap(kBase + 100 * kPage, 300 * kPage),
          Op::think(SimTime::ms(10))});
  thread(*sim, 1, 1,
         {Op::think(SimTime::us(50)), Op::touch(kBase + 600 * kPage, 100 * kPage, true)});
  sim->run_until(SimTime::ms(5));
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 724u);
  check_balance(*sim);
}

}  // namespace
}  // namespace mmreplay::kernelsim
