// MADV_COLD, MADV_PAGEOUT (mm/madvise_cold.h) and MADV_POPULATE_READ/WRITE
// (mm/madvise_populate.h): the page states and counters a kernel engineer would look at after each.

#include <gtest/gtest.h>

#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/sim/task.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::expect_swap_accounted;
using testing::kBase;
using testing::kMiB;
using testing::kPage;
using testing::make_sim;
using testing::make_sim_with_swap;
using testing::mm1;
using testing::pte_at;
using testing::run_then_look;

constexpr uint64_t kPages = 64;

std::vector<Op> written_then(int advice) {
  return {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, kPages * kPage, true), Op::madvise(kBase, kPages * kPage, advice)};
}

int64_t last_result(const Simulation& sim) {
  return sim.tasks().front()->last_result;
}

TEST(MadvisePopulateTest, WriteMapsEveryPageByGupAndLaterWritesTakeNoFault) {
  auto sim = make_sim(1);
  run_then_look(*sim, {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE),
                       Op::madvise(kBase, kPages * kPage, MADV_POPULATE_WRITE),
                       Op::touch(kBase, kPages * kPage, true)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(last_result(*sim), 0);
  EXPECT_EQ(vm.madv_populate_faults, kPages);
  EXPECT_EQ(vm.pgfault, kPages) << "handle_mm_fault() counts PGFAULT; the writes take none";
  EXPECT_EQ(vm.fault_anon, kPages);
  EXPECT_EQ(mm1(*sim).rss_anon, kPages);
  for (uint64_t i = 0; i < kPages; ++i)
    EXPECT_TRUE(pte_at(*sim, kBase + i * kPage) & pte::kOwnPage) << i;
}

TEST(MadvisePopulateTest, ReadMapsTheZeroPageAndWriteThenBreaksItOnce) {
  auto sim = make_sim(1);
  run_then_look(*sim, {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE),
                       Op::madvise(kBase, kPages * kPage, MADV_POPULATE_READ),
                       Op::madvise(kBase, kPages * kPage, MADV_POPULATE_READ),
                       Op::madvise(kBase, kPages * kPage, MADV_POPULATE_WRITE)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.fault_zero_page, kPages) << "a second read populate finds every page present";
  EXPECT_EQ(vm.madv_populate_faults, 2 * kPages) << "the write populate copies each zero page";
  EXPECT_EQ(mm1(*sim).rss_anon, kPages);
}

TEST(MadvisePopulateTest, StopsAtAHoleWithEnomemAndRefusesAWriteToAReadOnlyMapping) {
  auto sim = make_sim(1);
  run_then_look(*sim, {Op::mmap_anon(kBase, 4 * kPage, PROT_READ | PROT_WRITE),
                       Op::mmap_anon(kBase + 8 * kPage, 4 * kPage, PROT_READ | PROT_WRITE),
                       Op::madvise(kBase, 12 * kPage, MADV_POPULATE_WRITE)});
  EXPECT_EQ(last_result(*sim), -ERRNO_ENOMEM);
  EXPECT_EQ(sim->stats().vm.madv_populate_faults, 4u) << "the pages before the hole only";
  EXPECT_EQ(pte_at(*sim, kBase + 8 * kPage), pte::kNone);

  auto ro = make_sim(1);
  run_then_look(*ro, {Op::mmap_anon(kBase, 4 * kPage, PROT_READ),
                      Op::madvise(kBase, 4 * kPage, MADV_POPULATE_WRITE)});
  EXPECT_EQ(last_result(*ro), -ERRNO_EINVAL);
  EXPECT_EQ(ro->stats().vm.madv_populate_faults, 0u);
}

TEST(MadviseColdTest, DeactivatesTheMappedPagesAndMakesTheirPtesOld) {
  // 5.4-5.8: new anon pages start on the active list (5.9+ puts them on the inactive one, where
  // MADV_COLD finds nothing to deactivate).
  auto sim = make_sim(1, "anon_lru=active-first");
  std::vector<Op> ops = written_then(MADV_COLD);
  // The second call's lru_add_drain() drains the last pages the first one left in this CPU's
  // lru_deactivate batch; it finds every page inactive.
  ops.push_back(Op::madvise(kBase, kPages * kPage, MADV_COLD));
  run_then_look(*sim, ops);
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(last_result(*sim), 0);
  EXPECT_EQ(vm.madv_cold_pages, 2 * kPages);
  EXPECT_EQ(vm.pgdeactivate, kPages);
  EXPECT_EQ(sim->lruvec().size(LruList::kActiveAnon), 0u);
  EXPECT_EQ(sim->lruvec().size(LruList::kInactiveAnon), kPages);
  for (uint64_t i = 0; i < kPages; ++i) {
    const uint8_t p = pte_at(*sim, kBase + i * kPage);
    EXPECT_TRUE(pte::is_mapped(p)) << i;
    EXPECT_FALSE(p & pte::kYoung) << i;
  }
  EXPECT_EQ(mm1(*sim).rss_anon, kPages) << "cold pages stay mapped";
  EXPECT_GT(vm.nr_tlb_flush_calls, 0u) << "the ptes made old are flushed";
}

TEST(MadviseColdTest, SkipsPagesAForkPeerMapsToo) {
  auto sim = make_sim(2, "anon_lru=active-first");
  testing::thread(*sim, 1, 0,
                  {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE),
                   Op::touch(kBase, kPages * kPage, true), Op::sleep(SimTime::ms(1)),
                   Op::madvise(kBase, kPages * kPage, MADV_COLD), Op::sleep(SimTime::ms(10))});
  testing::thread(*sim, 2, 1, {Op::mm_create(2, 1), Op::sleep(SimTime::ms(10))}, SimTime::us(100));
  sim->run_until(SimTime::ms(5));
  ASSERT_TRUE(pte_at(*sim, kBase) & pte::kCowShared);
  EXPECT_EQ(sim->stats().vm.madv_cold_pages, 0u) << "page_mapcount() is 2 for each";
  EXPECT_EQ(sim->stats().vm.pgdeactivate, 0u);
}

TEST(MadvisePageoutTest, WritesAnonPagesToSwapAndKeepsThemInTheSwapCacheUnmapped) {
  auto sim = make_sim_with_swap(1, 256 * kMiB, 64 * kMiB);
  std::vector<Op> ops = written_then(MADV_PAGEOUT);
  ops.push_back(Op::touch(kBase, kPages * kPage, false));
  run_then_look(*sim, ops);
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.madv_pageout_pages, kPages);
  EXPECT_EQ(vm.madv_pageout_reclaimed, kPages);
  EXPECT_EQ(vm.pswpout, kPages);
  EXPECT_EQ(vm.pswpin, 0u) << "the pages were still in the swap cache";
  EXPECT_EQ(vm.fault_swapcache, kPages) << "each read back takes a minor fault";
  EXPECT_EQ(vm.pgmajfault, 0u);
  EXPECT_EQ(sim->swap().swap_cache_pages(), kPages) << "a read fault keeps the slot";
  expect_swap_accounted(*sim);
}

TEST(MadvisePageoutTest, ThePagesLeftInTheSwapCacheAreFreedUnwrittenByReclaim) {
  auto sim = make_sim_with_swap(1, 256 * kMiB, 64 * kMiB);
  run_then_look(*sim, written_then(MADV_PAGEOUT));
  for (uint64_t i = 0; i < kPages; ++i)
    EXPECT_EQ(pte_at(*sim, kBase + i * kPage), pte::kPresent | pte::kOwnPage | pte::kSwapCache)
        << i;
  // A second MADV_PAGEOUT skips them (their ptes are swap entries); reclaim would free them
  // without a write, as it frees any clean swap-cache page (ReclaimTest covers that path).
  auto again = make_sim_with_swap(1, 256 * kMiB, 64 * kMiB);
  std::vector<Op> ops = written_then(MADV_PAGEOUT);
  ops.push_back(Op::madvise(kBase, kPages * kPage, MADV_PAGEOUT));
  run_then_look(*again, ops);
  EXPECT_EQ(again->stats().vm.madv_pageout_pages, kPages);
  EXPECT_EQ(again->stats().vm.pswpout, kPages);
  expect_swap_accounted(*again);
}

TEST(MadvisePageoutTest, OnZramThePagesAreFreedAtOnceAndReadBackByMajorFaults) {
  auto sim = make_sim_with_swap(1, 256 * kMiB, 64 * kMiB, SwapDevice::kSynchronous);
  std::vector<Op> ops = written_then(MADV_PAGEOUT);
  run_then_look(*sim, ops);
  for (uint64_t i = 0; i < kPages; ++i)
    EXPECT_EQ(pte_at(*sim, kBase + i * kPage), pte::kSwapped) << i;
  EXPECT_EQ(mm1(*sim).swapents, kPages);
  EXPECT_EQ(mm1(*sim).rss_anon, 0u);
  expect_swap_accounted(*sim);

  auto back = make_sim_with_swap(1, 256 * kMiB, 64 * kMiB, SwapDevice::kSynchronous);
  ops.push_back(Op::touch(kBase, kPages * kPage, false));
  run_then_look(*back, ops);
  EXPECT_EQ(back->stats().vm.pgmajfault, kPages);
  EXPECT_EQ(back->stats().vm.pswpin, kPages);
}

TEST(MadvisePageoutTest, WithoutSwapAnonPagesAreActivatedAndStayMapped) {
  auto sim = make_sim(1);
  run_then_look(*sim, written_then(MADV_PAGEOUT));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.madv_pageout_pages, kPages);
  EXPECT_EQ(vm.madv_pageout_reclaimed, 0u);
  EXPECT_EQ(vm.pgactivate, kPages) << "shrink_page_list()'s activate_locked: add_to_swap() failed";
  EXPECT_EQ(sim->lruvec().size(LruList::kActiveAnon), kPages);
  EXPECT_EQ(mm1(*sim).rss_anon, kPages);
}

TEST(MadvisePageoutTest, CleanLazyfreePagesAreDiscardedNotWritten) {
  auto sim = make_sim_with_swap(1, 256 * kMiB, 64 * kMiB);
  std::vector<Op> ops = written_then(MADV_FREE);
  ops.push_back(Op::madvise(kBase, kPages * kPage, MADV_PAGEOUT));
  run_then_look(*sim, ops);
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.madv_pageout_reclaimed, kPages);
  EXPECT_EQ(vm.pglazyfreed, kPages);
  EXPECT_EQ(vm.pswpout, 0u);
  EXPECT_EQ(mm1(*sim).rss_anon, 0u);
  EXPECT_EQ(pte_at(*sim, kBase), pte::kNone) << "the next touch zero-fills";
}

TEST(MadvisePageoutTest, AProcessMadviseCallPagesOutEachRange) {
  auto sim =
      make_sim_with_swap(1, 256 * kMiB, 64 * kMiB, SwapDevice::kBlock, "madvise=process-madvise");
  run_then_look(*sim, {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE),
                       Op::touch(kBase, kPages * kPage, true),
                       Op::madvise_vec({{kBase, 16 * kPage}, {kBase + 32 * kPage, 16 * kPage}},
                                       MADV_PAGEOUT)});
  EXPECT_EQ(last_result(*sim), 0);
  EXPECT_EQ(sim->stats().vm.madv_pageout_pages, 32u);
  EXPECT_EQ(sim->stats().vm.pswpout, 32u);
  EXPECT_TRUE(pte_at(*sim, kBase + 16 * kPage) & pte::kYoung) << "between the ranges: untouched";
}

TEST(MadvisePageoutTest, DropsCleanFilePagesOnlyThisMappingMaps) {
  auto sim = testing::sim_with_file(testing::kFile, /*warm=*/true, kPages);
  std::vector<Op> ops = {
      Op::mmap_file(kBase, kPages * kPage, PROT_READ, MAP_PRIVATE, testing::kFile, 0),
      Op::touch(kBase, kPages * kPage, false), Op::madvise(kBase, kPages * kPage, MADV_PAGEOUT)};
  run_then_look(*sim, ops);
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.madv_pageout_reclaimed, vm.madv_pageout_pages);
  EXPECT_EQ(vm.pgcache_drop, vm.madv_pageout_pages);
  EXPECT_GT(vm.madv_pageout_pages, 0u);
  EXPECT_EQ(mm1(*sim).rss_file, 0u) << "every page this mapping faulted in was its alone";
}

}  // namespace
}  // namespace mmreplay::kernelsim
