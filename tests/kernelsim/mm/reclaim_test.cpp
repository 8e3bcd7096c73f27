// Memory pressure: direct reclaim, kswapd, lazyfree discard vs swap-out, swap-in major faults,
// seed 000's MADV_FREE policies, swap full. Machines are small (64 MiB) so that a few tens of
// thousands of faults make pressure; every figure checked is a count or a page state.

#include "kernelsim/mm/vmscan.h"

#include <gtest/gtest.h>

#include "kernelsim/constants.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/page_alloc.h"
#include "kernelsim/mm/pgtable.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kPage;
using testing::thread;

using testing::expect_swap_accounted;
using testing::kMiB;
using testing::kPagesPerMiB;
using testing::pte_at;
using testing::run_then_look;
using testing::swap_cache_pages_in;
using testing::write_anon;
constexpr uint64_t kA = 0x10000000;  // the MADV_FREE'd buffer
constexpr uint64_t kB = 0x40000000;  // pressure
constexpr uint64_t kC = 0x80000000;  // more pressure

// The LRU placement before 5.9 (anon_lru=active-first), for the tests below whose MADV_FREE'd
// buffer must age out: its first 4 MiB, written again, go back to the active list, and only
// while new pages start active too does the pressure push them to the inactive list and swap.
// From 5.9 (b518154e59aa) the pressure's own pages start inactive and go first, and those 4 MiB
// stay in memory (ReclaimTest.RedirtiedLazyfreeStaysActiveFrom59).
constexpr const char* kAgesTheActiveList = "anon_lru=active-first";

// The machine of these tests. Unless `policy` names a preset or sets swap_readahead, a swap-in
// reads the whole page-cluster window around the page (swap_readahead=cluster-fixed, before
// 3.15): the windows the tests check are that window's eight pages; ReclaimTest.*Readahead*
// check the sizing of later kernels.
std::unique_ptr<Simulation> reclaim_machine(uint64_t mem_mib, uint64_t swap_mib,
                                            std::string policy = "",
                                            const CostProfile& costs = cost_profile_default(),
                                            SwapDevice device = SwapDevice::kBlock) {
  const bool names_preset =
      !policy.empty() &&
      policy.substr(0, policy.find_first_of("+,")).find('=') == std::string::npos;
  if (!names_preset && policy.find("swap_readahead") == std::string::npos)
    policy += std::string(policy.empty() ? "" : ",") + "swap_readahead=cluster-fixed";
  std::string error;
  MachineConfig m;
  m.nr_cpus = 2;  // the trace thread on CPU 0, kswapd on CPU 1
  m.memory_bytes = mem_mib * kMiB;
  m.swap_bytes = swap_mib * kMiB;
  m.swap_device = device;
  auto sim = Simulation::create(m, costs, testing::test_config(policy), &error);
  EXPECT_NE(sim, nullptr) << error;
  return sim;
}

std::vector<Op> concat(std::initializer_list<std::vector<Op>> parts) {
  std::vector<Op> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(ReclaimTest, AllocationBelowMinEntersDirectReclaimAndSwaps) {
  auto sim = reclaim_machine(64, 64);
  run_then_look(*sim, write_anon(kB, 80));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_GT(vm.allocstall, 0u);
  EXPECT_GT(sim->stats().direct_reclaim.count(), 0u)
      << "each stalled allocation records its latency";
  EXPECT_GE(vm.kswapd_wakeups, 1u);
  EXPECT_GT(vm.pgsteal_kswapd, 0u);
  EXPECT_GT(vm.pgsteal_direct, 0u);
  // Anon only, nothing read back: every page written is freed by a later scan once its write is
  // done, but for the last ones written, still in the swap cache.
  EXPECT_EQ(vm.pswpout, vm.pgsteal_kswapd + vm.pgsteal_direct + sim->swap().swap_cache_pages());
  EXPECT_GT(vm.pgrotated + vm.pgretry_written, 0u) << "written pages came back to be freed";
  EXPECT_EQ(vm.fault_oom, 0u);
  EXPECT_EQ(sim->swap().inuse(), sim->find_mm(1)->swapents + sim->swap().swap_cache_pages());
  EXPECT_EQ(sim->find_mm(1)->rss_anon + sim->find_mm(1)->swapents, 80 * kPagesPerMiB);
  EXPECT_GT(sim->lockstat().find("&pgdat->lru_lock")->acquisitions, 0u);
}

TEST(ReclaimTest, KswapdWokenAtLowSleepsAboveHigh) {
  auto sim = reclaim_machine(64, 64);
  run_then_look(*sim, write_anon(kB, 63));  // leaves fewer free pages than low
  const Zone& z = sim->page_alloc().zone();
  ASSERT_NE(sim->kswapd(), nullptr) << "woken when free pages reached low";
  EXPECT_GE(sim->stats().vm.kswapd_wakeups, 1u);
  EXPECT_EQ(sim->kswapd()->state(), TaskState::kSleeping);
  EXPECT_GT(z.free_pages, z.wmark_high) << "balance_pgdat() reclaims until above high";
  EXPECT_EQ(sim->nr_live_tasks(), 1u) << "kswapd is a kernel thread, not counted";
  // Its CPU time is no process's (time(1) leaves it out): kthread_ns, within busy_ns. A CPU's
  // busy time is counted when its task leaves it: run to the thread's exit.
  sim->run();
  const CpuCounters cpus = sim->cpu_totals();
  EXPECT_GT(cpus.kthread_ns, 0u);
  EXPECT_LT(cpus.kthread_ns, cpus.busy_ns);
}

TEST(ReclaimTest, ThrottleThresholdIsOneAndAHalfMin) {
  auto sim = reclaim_machine(64, 0, "madv_free=throttled");
  const MadvFreePolicy& p = *sim->policies().madv_free;
  const uint64_t min = sim->page_alloc().zone().min_free_kbytes >> (PAGE_SHIFT - 10);
  EXPECT_EQ(min, 256u);
  EXPECT_EQ(p.decide({1, 384, 16384, min}), MadvFreeAction::kDontNeed);
  EXPECT_EQ(p.decide({1, 385, 16384, min}), MadvFreeAction::kLazyFree);
  EXPECT_FALSE(p.free_swapped());
}

// nr_free_pages() counts ZONE_DMA too, and the throttle reads it: on a 64 MiB machine ZONE_DMA's
// 4,096 pages keep their share of min (64, already in the model's zone's watermark) and 1/256 of
// the 12,288 above them (48) free.
TEST(ReclaimTest, ThrottleCountsZoneDmaReservedFreePages) {
  auto sim = reclaim_machine(64, 0, "madv_free=throttled");
  const Zone& z = sim->page_alloc().zone();
  const uint64_t dma = dma_zone_reserved_free_pages(z.managed_pages, z.wmark_min);
  EXPECT_EQ(dma, 48u);
  EXPECT_EQ(z.dma_reserved_free, dma) << "set with the watermarks";
  const MadvFreePolicy& p = *sim->policies().madv_free;
  const uint64_t min = z.min_free_kbytes >> (PAGE_SHIFT - 10);
  EXPECT_EQ(p.decide({1, 384 - dma, 16384, min, dma}), MadvFreeAction::kDontNeed);
  EXPECT_EQ(p.decide({1, 385 - dma, 16384, min, dma}), MadvFreeAction::kLazyFree);
}

// Seed 000's machine: 3 GiB on x86-64. The boot formula gives 7,094 KB (1,773 pages, a threshold
// of 2,659), below what ZONE_DMA alone keeps free (its share of min, 9, and its lowmem_reserve,
// 3,056), so that throttle could never fire; THP raises min_free_kbytes to 512 x 2 zones x (2 + 3 x
// 3) pages = 45,056 KB.
TEST(ReclaimTest, SeedZeroMachineMinFreeKbytes) {
  const uint64_t pages = (uint64_t{3} << 30) >> PAGE_SHIFT;
  const uint64_t boot = calculate_min_free_kbytes(pages, MIN_FREE_KBYTES_CEIL_3X);
  EXPECT_EQ(boot, 7094u);
  const uint64_t boot_min = boot >> (PAGE_SHIFT - 10);
  EXPECT_GT(dma_zone_reserved_free_pages(pages, boot_min), boot_min + boot_min / 2);
  EXPECT_EQ(dma_zone_reserved_free_pages(pages, boot_min), 3056u);
  EXPECT_EQ(recommended_min_free_kbytes(pages, 2), 45056u);
  // At most 5% of lowmem: a 64 MiB machine (THP would not start there, below 512 MiB).
  EXPECT_EQ(recommended_min_free_kbytes(16384, 2), 16384u / 20 * 4);
  // 16 MiB or less is ZONE_DMA alone: nothing above it to keep pages from.
  EXPECT_EQ(dma_zone_reserved_free_pages(MAX_DMA_PFN, 100), 0u);
  // Above 4 GiB ZONE_DMA's reserve is capped by its size.
  EXPECT_EQ(dma_zone_reserved_free_pages(uint64_t{16} << 20, 0), MAX_DMA_PFN);
}

TEST(ReclaimTest, NoAllocstallWithoutPressure) {
  auto sim = reclaim_machine(64, 64);
  run_then_look(*sim, write_anon(kB, 16));
  EXPECT_EQ(sim->stats().vm.allocstall, 0u);
  EXPECT_EQ(sim->stats().vm.pswpout, 0u);
  EXPECT_EQ(sim->stats().direct_reclaim.count(), 0u);
}

// 32 MiB written and MADV_FREE'd; its first 4 MiB written again; then 160 MiB of pressure.
std::vector<Op> lazyfree_then_pressure(std::vector<Op> after = {}) {
  return concat({write_anon(kA, 32),
                 {Op::madvise(kA, 32 * kMiB, MADV_FREE), Op::touch(kA, 4 * kMiB, true)},
                 write_anon(kB, 64),
                 write_anon(kC, 96),
                 after});
}

TEST(ReclaimTest, CleanLazyfreeIsDiscardedAndRedirtiedIsSwapped) {
  auto sim = reclaim_machine(64, 256, kAgesTheActiveList);
  run_then_look(*sim, lazyfree_then_pressure());
  const VmCounters& vm = sim->stats().vm;
  // The last partial lru_lazyfree batch (32 MiB % pagevec_size pages) is never drained: those
  // pages keep PG_swapbacked and are swapped like any anon page.
  const uint64_t undrained = 32 * kPagesPerMiB % sim->config().pagevec_size;
  ASSERT_NE(undrained, 0u);
  EXPECT_EQ(vm.pglazyfree, 32 * kPagesPerMiB - undrained);
  EXPECT_EQ(vm.pglazyfreed, 28 * kPagesPerMiB - undrained) << "every clean lazyfree page discarded";
  EXPECT_EQ(vm.lazyfree_redirtied, 4 * kPagesPerMiB);
  for (uint64_t a = kA; a < kA + 4 * kMiB; a += kPage) {
    ASSERT_EQ(pte::state(pte_at(*sim, a)), pte::kSwapped) << std::hex << a;
  }
  for (uint64_t a = kA + 4 * kMiB; a < kA + 32 * kMiB - undrained * kPage; a += kPage) {
    ASSERT_EQ(pte_at(*sim, a), pte::kNone) << std::hex << a;
  }
  for (uint64_t a = kA + 32 * kMiB - undrained * kPage; a < kA + 32 * kMiB; a += kPage) {
    ASSERT_EQ(pte::state(pte_at(*sim, a)), pte::kSwapped) << std::hex << a;
  }
  EXPECT_EQ(vm.pswpout,
            vm.pgsteal_kswapd + vm.pgsteal_direct - vm.pglazyfreed + sim->swap().swap_cache_pages())
      << "discarded pages are never written to swap (the last written still in the swap cache)";
}

// 5.9+ (the default, anon_lru=inactive-first): the 4 MiB written again after MADV_FREE are found
// written, made swap-backed and activated, and stay in memory: the pressure's own pages start on
// the inactive list, which never runs low, so the active list is not aged and they go first.
TEST(ReclaimTest, RedirtiedLazyfreeStaysActiveFrom59) {
  auto sim = reclaim_machine(64, 256);
  run_then_look(*sim, lazyfree_then_pressure());
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.lazyfree_redirtied, 4 * kPagesPerMiB);
  for (uint64_t a = kA; a < kA + 4 * kMiB; a += kPage)
    ASSERT_EQ(pte::state(pte_at(*sim, a)), pte::kPresent) << std::hex << a;
  EXPECT_GT(vm.pswpout, 64 * kPagesPerMiB) << "the pressure swapped its own pages instead";
  EXPECT_EQ(vm.oom, 0u);
}

// 5.9+: pages written once start inactive and reclaim looks at each twice: the first look finds
// the fault's reference and gives the page PG_referenced and another trip (PAGEREF_KEEP), the
// second reclaims it. No page is activated; before 5.9 the pages start active and reach the
// inactive list by aging (shrink_active_list() clears the reference), so none is either.
TEST(ReclaimTest, PagesWrittenOnceStartInactiveAndAreLookedAtTwiceFrom59) {
  auto looked_twice = reclaim_machine(64, 256);
  run_then_look(*looked_twice, concat({write_anon(kB, 40), write_anon(kC, 40)}));
  auto aged = reclaim_machine(64, 256, kAgesTheActiveList);
  run_then_look(*aged, concat({write_anon(kB, 40), write_anon(kC, 40)}));
  for (const auto* sim : {looked_twice.get(), aged.get()}) {
    const VmCounters& vm = sim->stats().vm;
    EXPECT_GT(vm.pswpout, 16 * kPagesPerMiB);
    EXPECT_EQ(vm.pgactivate, 0u);
    EXPECT_EQ(vm.oom, 0u);
  }
  EXPECT_EQ(looked_twice->stats().vm.pgdeactivate, 0u) << "nothing to age: all started inactive";
  EXPECT_GT(aged->stats().vm.pgdeactivate, 16 * kPagesPerMiB);
  const VmCounters& twice = looked_twice->stats().vm;
  EXPECT_GE(twice.pgscan_kswapd + twice.pgscan_direct, 2 * twice.pswpout)
      << "each page swapped was isolated twice";
}

// 5.9+: a page referenced again after reclaim's first look (which gave it PG_referenced) is
// activated at the second; one that is not, is reclaimed. 48 MiB written and 16 MiB more: the
// first reclaim call looks at every page once before its second pass frees a batch. Then the
// last 16 MiB of the 48 are read again (or not: all resident, so the read allocates nothing and
// reclaim does not run meanwhile), and 48 MiB more are written.
TEST(ReclaimTest, AnonPageReferencedAgainAfterItsFirstLookIsActivatedFrom59) {
  const std::vector<Op> first = concat({write_anon(kB, 48), write_anon(kC, 16)});
  const std::vector<Op> then = write_anon(kC + 32 * kMiB, 48);
  auto reread = reclaim_machine(64, 256);
  run_then_look(*reread, concat({first, {Op::touch(kB + 32 * kMiB, 16 * kMiB, false)}, then}));
  auto not_reread = reclaim_machine(64, 256);
  run_then_look(*not_reread, concat({first, then}));
  EXPECT_EQ(reread->stats().vm.pgactivate, 16 * kPagesPerMiB)
      << "every page read after its first look was activated at its second";
  EXPECT_EQ(not_reread->stats().vm.pgactivate, 0u) << "written once, looked at twice, reclaimed";
  EXPECT_EQ(reread->stats().vm.oom + not_reread->stats().vm.oom, 0u);
}

// get_scan_count()'s SCAN_FILE: with 28 MiB of clean lazyfree pages on the inactive file list,
// reclaim takes them and leaves anon alone, though the pages it meets first (the 4 MiB written
// again) are referenced and free nothing. Before the model kept scanning the file list, each
// round that met only those went on to swap: in the madv-bomb under a memcg one process then
// rewrote its whole lazy region while reclaim swapped the others' anon pages.
TEST(ReclaimTest, EnoughInactiveFileKeepsReclaimOffTheAnonLists) {
  auto sim = reclaim_machine(64, 256);
  run_then_look(*sim,
                concat({write_anon(kA, 32),
                        {Op::madvise(kA, 32 * kMiB, MADV_FREE), Op::touch(kA, 4 * kMiB, true)},
                        write_anon(kB, 40)}));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_GT(vm.pglazyfreed, 8 * kPagesPerMiB) << "the 40 MiB came from the lazy pages";
  EXPECT_EQ(vm.pswpout, 0u) << "no anon page swapped while clean lazy pages remained";
  EXPECT_EQ(vm.lazyfree_reused, 4 * kPagesPerMiB);
}

TEST(ReclaimTest, LazyfreeOnInactiveAnonBefore412IsDiscardedToo) {
  auto sim = reclaim_machine(64, 256, "lazyfree_lru=inactive-anon,anon_lru=active-first");
  run_then_look(*sim, lazyfree_then_pressure());
  EXPECT_EQ(sim->stats().vm.pglazyfreed, 28 * kPagesPerMiB) << "clean ptes decide before 4.12";
  EXPECT_EQ(sim->stats().vm.lazyfree_redirtied, 0u) << "pages stay swap-backed before 4.12";
  for (uint64_t a = kA; a < kA + 4 * kMiB; a += kPage)
    ASSERT_EQ(pte::state(pte_at(*sim, a)), pte::kSwapped);
}

// 4.5-4.11 deactivate_page(): a lazyfree page moves only from the active list; one already on
// the inactive list keeps its place. A second MADV_FREE of the same pages therefore moves none.
TEST(ReclaimTest, DeactivatePageBefore412MovesOnlyActivePages) {
  auto sim = reclaim_machine(64, 256, "lazyfree_lru=inactive-anon,anon_lru=active-first");
  run_then_look(
      *sim, concat({write_anon(kA, 8),
                    {Op::madvise(kA, 8 * kMiB, MADV_FREE), Op::madvise(kA, 8 * kMiB, MADV_FREE)}}));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.allocstall + vm.pgscan_kswapd, 0u) << "no reclaim moved a page meanwhile";
  EXPECT_EQ(vm.madv_lazyfree_pages, 8 * kPagesPerMiB);
  // The first call's last partial batch drains at the second call's lru_add_drain().
  EXPECT_EQ(vm.pglazyfree, 8 * kPagesPerMiB) << "each page moved once, from the active list";
  EXPECT_EQ(sim->lruvec().size(LruList::kInactiveAnon), 8 * kPagesPerMiB);
}

// The 2015 RFC (seed 000): MADV_FREE clears the ptes' young and dirty bits and moves no page, so
// the hinted pages wait on the active list for aging; reclaim still discards the clean ones.
TEST(ReclaimTest, InPlaceLazyfreeMovesNoPageAndIsDiscardedWhenReclaimed) {
  auto quiet = reclaim_machine(64, 256, "lazyfree_lru=in-place,anon_lru=active-first");
  run_then_look(*quiet, concat({write_anon(kA, 8), {Op::madvise(kA, 8 * kMiB, MADV_FREE)}}));
  EXPECT_EQ(quiet->stats().vm.madv_lazyfree_pages, 8 * kPagesPerMiB);
  EXPECT_EQ(quiet->stats().vm.pglazyfree, 0u) << "no page moved";
  EXPECT_EQ(quiet->lruvec().size(LruList::kInactiveAnon), 0u);

  auto sim = reclaim_machine(64, 256, "lazyfree_lru=in-place,anon_lru=active-first");
  run_then_look(*sim, lazyfree_then_pressure());
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pglazyfree, 0u);
  EXPECT_EQ(vm.pglazyfreed, 28 * kPagesPerMiB) << "the clean ptes are discarded, as before 4.12";
  for (uint64_t a = kA; a < kA + 4 * kMiB; a += kPage)
    ASSERT_EQ(pte::state(pte_at(*sim, a)), pte::kSwapped) << "written again: swapped";
}

TEST(ReclaimTest, TouchOfDiscardedZeroFillsAndOfSwappedIsAMajorFault) {
  auto base = reclaim_machine(64, 256, kAgesTheActiveList);
  run_then_look(*base, lazyfree_then_pressure());
  auto sim = reclaim_machine(64, 256, kAgesTheActiveList);
  run_then_look(*sim, lazyfree_then_pressure({Op::touch(kA + 8 * kMiB, kPage, true),  // discarded
                                              Op::touch(kA, kPage, false)}));         // swapped
  const VmCounters& b = base->stats().vm;
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.fault_anon - b.fault_anon, 1u) << "the discarded page comes back zero-filled";
  EXPECT_EQ(vm.pgmajfault - b.pgmajfault, 1u);
  EXPECT_EQ(vm.pswpin - b.pswpin, uint64_t{1} << page_cluster) << "the page-cluster window is read";
  EXPECT_EQ(b.pgmajfault, 0u);
  EXPECT_EQ(pte::state(pte_at(*sim, kA)), pte::kPresent);
  EXPECT_EQ(pte::state(pte_at(*sim, kA + 7 * kPage)), pte::kPresent) << "readahead mapped";
  EXPECT_EQ(pte::state(pte_at(*sim, kA + 8 * kPage)), pte::kSwapped) << "outside the window";
  EXPECT_EQ(swap_cache_pages_in(*sim, kA, kA + (kPage << page_cluster)),
            uint64_t{1} << page_cluster)
      << "read back by a read fault: the window's pages keep their slots";
  EXPECT_EQ(sim->swap().inuse(), sim->find_mm(1)->swapents + sim->swap().swap_cache_pages());
}

// `first`, then the 96 MiB of pressure at kC unmapped and written anew: reclaim takes the window
// read back at kA again. Each window page, swapped, holds a slot; no page holds one in the cache.
// The pause lets kswapd finish its round first: a page it has written and not freed yet when the
// munmap zaps it would be neither reclaimed nor in the swap cache.
std::vector<Op> then_pressure_again(std::vector<Op> first) {
  return lazyfree_then_pressure(concat(
      {std::move(first),
       {Op::sleep(SimTime::ms(1'000)), Op::munmap(kC, 96 * kMiB),
        Op::mmap_anon(kC, 96 * kMiB, PROT_READ | PROT_WRITE), Op::touch(kC, 96 * kMiB, true)}}));
}
void expect_window_swapped_again(const Simulation& sim) {
  for (uint64_t a = kA; a < kA + (uint64_t{1} << page_cluster) * kPage; a += kPage)
    ASSERT_EQ(pte::state(pte_at(sim, a)), pte::kSwapped) << "reclaimed again";
  EXPECT_EQ(swap_cache_pages_in(sim, kA, kA + 32 * kMiB), 0u);
  EXPECT_EQ(sim.swap().inuse(), sim.find_mm(1)->swapents + sim.swap().swap_cache_pages());
}
// Pages reclaim wrote out and no scan has freed yet: the swap cache's pages outside kA's buffer,
// which is all the run read back.
uint64_t written_not_freed(const Simulation& sim) {
  return sim.swap().swap_cache_pages() - swap_cache_pages_in(sim, kA, kA + 32 * kMiB);
}
// The default profile with a swap device that transfers a page in `per_page`.
CostProfile swap_device(SimTime per_page) {
  CostProfile c = cost_profile_default();
  c.swap_io_page = per_page;
  return c;
}
// A swap device whose writes take no time: each written page's write is done before its batch is
// put back, so written_back_retry=on frees it in the same scan, and counting what was written
// against what was freed needs no page still in the swap cache.
CostProfile writes_done_at_once() {
  return swap_device(SimTime::zero());
}

// The swap cache (do_swap_page(), shrink_page_list()): a page a read fault brings back keeps its
// slot and is mapped read-only; reclaimed again before any write, it needs no write, its pte
// pointing at the same slot.
TEST(ReclaimTest, APageReadBackFromSwapIsReclaimedAgainWithoutAWrite) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto read_back = reclaim_machine(64, 256, kAgesTheActiveList, writes_done_at_once());
  run_then_look(*read_back, lazyfree_then_pressure({Op::touch(kA, window * kPage, false)}));
  ASSERT_EQ(written_not_freed(*read_back), 0u);
  const VmCounters before = read_back->stats().vm;
  const uint64_t cached = swap_cache_pages_in(*read_back, kA, kA + window * kPage);
  ASSERT_EQ(cached, window);
  for (uint64_t a = kA; a < kA + window * kPage; a += kPage) {
    ASSERT_EQ(pte_at(*read_back, a), pte::kPresent | pte::kOwnPage | pte::kYoung)
        << "clean: write-protected";
  }
  // More pressure, so that reclaim takes the window again.
  auto sim = reclaim_machine(64, 256, kAgesTheActiveList, writes_done_at_once());
  run_then_look(*sim, then_pressure_again({Op::touch(kA, window * kPage, false)}));
  expect_window_swapped_again(*sim);
  ASSERT_EQ(written_not_freed(*sim), 0u);
  // The 96 MiB rewritten pushes out the same number of pages in both runs but the window's: the
  // pages written out are the others; the window's went out without a write.
  EXPECT_EQ(sim->stats().vm.pswpin, before.pswpin) << "no read since";
  const uint64_t freed_since = sim->stats().vm.pgsteal_kswapd + sim->stats().vm.pgsteal_direct -
                               before.pgsteal_kswapd - before.pgsteal_direct;
  const uint64_t written_since = sim->stats().vm.pswpout - before.pswpout;
  EXPECT_EQ(freed_since - written_since, window) << "the window went without a write";
}

// Before 6.11 (swapin_pte=read-only) the first write to a page read back from swap takes a
// write-protect fault that frees its slot (do_wp_page() -> reuse_swap_page()): the page is the
// only copy now, and dirty.
TEST(ReclaimTest, AWriteToAPageReadBackFromSwapFreesItsSlot) {
  const uint64_t window = uint64_t{1} << page_cluster;
  const std::string policy = std::string(kAgesTheActiveList) + ",swapin_pte=read-only";
  auto base = reclaim_machine(64, 256, policy);
  run_then_look(*base, lazyfree_then_pressure({Op::touch(kA, window * kPage, false)}));
  auto sim = reclaim_machine(64, 256, policy);
  run_then_look(*sim, lazyfree_then_pressure(
                          {Op::touch(kA, window * kPage, false), Op::touch(kA, kPage, true)}));
  const VmCounters& b = base->stats().vm;
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.fault_wp_reuse - b.fault_wp_reuse, 1u) << "the write faults";
  EXPECT_EQ(vm.pgfault - b.pgfault, 1u);
  EXPECT_EQ(swap_cache_pages_in(*sim, kA, kA + window * kPage), window - 1);
  EXPECT_EQ(pte_at(*sim, kA), pte::kPresent | pte::kOwnPage | pte::kYoung | pte::kDirty);
  EXPECT_TRUE(sim->lruvec().frame(sim->lruvec().find(*sim->find_mm(1), kA)).dirty);
  EXPECT_EQ(sim->swap().inuse(), sim->find_mm(1)->swapents + sim->swap().swap_cache_pages());
}

// 6.11+ (swapin_pte=writable, c18160dba5ff) maps it writable and clean: the write takes no fault
// and the page keeps its slot; reclaim then writes it to that slot (no add_to_swap()).
TEST(ReclaimTest, AWriteToAPageReadBackFromSwapKeepsItsSlotFrom611) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto base = reclaim_machine(64, 256, kAgesTheActiveList, writes_done_at_once());
  run_then_look(*base, lazyfree_then_pressure({Op::touch(kA, window * kPage, false)}));
  auto sim = reclaim_machine(64, 256, kAgesTheActiveList, writes_done_at_once());
  run_then_look(*sim, lazyfree_then_pressure(
                          {Op::touch(kA, window * kPage, false), Op::touch(kA, kPage, true)}));
  EXPECT_EQ(sim->stats().vm.pgfault, base->stats().vm.pgfault) << "the write took no fault";
  EXPECT_EQ(swap_cache_pages_in(*sim, kA, kA + window * kPage), window);
  EXPECT_EQ(pte_at(*sim, kA), pte::kPresent | pte::kOwnPage | pte::kYoung | pte::kDirty);
  // More pressure: the written page goes out with a write to its own slot, the rest without.
  auto pressed = reclaim_machine(64, 256, kAgesTheActiveList, writes_done_at_once());
  run_then_look(*pressed, then_pressure_again(
                              {Op::touch(kA, window * kPage, false), Op::touch(kA, kPage, true)}));
  expect_window_swapped_again(*pressed);
  ASSERT_EQ(written_not_freed(*sim) + written_not_freed(*pressed), 0u);
  const VmCounters& b = sim->stats().vm;
  const VmCounters& vm = pressed->stats().vm;
  EXPECT_EQ(vm.pgsteal_kswapd + vm.pgsteal_direct - b.pgsteal_kswapd - b.pgsteal_direct -
                (vm.pswpout - b.pswpout),
            window - 1)
      << "all but the written page went without a write";
}

// A read of a page MADV_FREE hinted leaves it lazyfree: a later write takes no write-protect
// fault under either swapin_pte (the pte is writable; only a swapped-in page's is not).
TEST(ReclaimTest, AReadFaultOnALazyfreePteLeavesItLazyfree) {
  auto sim = reclaim_machine(64, 256, "swapin_pte=read-only");
  run_then_look(*sim, {Op::mmap_anon(kA, kMiB, PROT_READ | PROT_WRITE), Op::touch(kA, kMiB, true),
                       Op::madvise(kA, kMiB, MADV_FREE), Op::page_fault(kA, false),
                       Op::touch(kA, kPage, true)});
  EXPECT_EQ(sim->stats().vm.fault_wp_reuse, 0u);
  EXPECT_EQ(sim->stats().vm.lazyfree_reused, 1u) << "the write reused the lazyfree page";
}

// Unmapping a page of the swap cache frees its slot (free_pages_and_swap_cache()).
TEST(ReclaimTest, UnmappingAPageOfTheSwapCacheFreesItsSlot) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto before = reclaim_machine(64, 256, kAgesTheActiveList);
  run_then_look(*before, lazyfree_then_pressure({Op::touch(kA, window * kPage, false)}));
  ASSERT_EQ(swap_cache_pages_in(*before, kA, kA + window * kPage), window)
      << "in the swap cache before the munmap";
  auto sim = reclaim_machine(64, 256, kAgesTheActiveList);
  run_then_look(*sim, lazyfree_then_pressure(
                          {Op::touch(kA, window * kPage, false), Op::munmap(kA, 32 * kMiB)}));
  EXPECT_EQ(sim->swap().swap_cache_pages(), written_not_freed(*before))
      << "only reclaim's last writes, as before the munmap";
  EXPECT_EQ(sim->swap().inuse(), sim->find_mm(1)->swapents + sim->swap().swap_cache_pages());
}

// With more than half of swap in use (vm_swap_full()), do_swap_page() frees the slot of a page it
// reads back at once (try_to_free_swap()): no page keeps one.
TEST(ReclaimTest, WithSwapOverHalfFullAReadBackPageKeepsNoSlot) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto sim = reclaim_machine(64, 64);
  // 100 MiB written on 64 MiB: over half of the 64 MiB of swap holds the first pages written.
  run_then_look(*sim, concat({write_anon(kB, 100), {Op::touch(kB, window * kPage, false)}}));
  ASSERT_TRUE(sim->swap().vm_swap_full());
  ASSERT_GT(sim->stats().vm.pswpin, 0u);
  EXPECT_EQ(swap_cache_pages_in(*sim, kB, kB + window * kPage), 0u);
  EXPECT_EQ(sim->swap().inuse(), sim->find_mm(1)->swapents + sim->swap().swap_cache_pages());
}

// The pages of the swap cache an mm holds when its last task exits let go of their slots
// (exit_mmap() -> zap -> free_pages_and_swap_cache()), as do its swapped ptes.
TEST(ReclaimTest, ExitFreesTheSlotsOfSwapCachePagesAndSwappedPtes) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto sim = reclaim_machine(64, 256, kAgesTheActiveList);
  testing::thread(*sim, 1, 0, lazyfree_then_pressure({Op::touch(kA, window * kPage, false)}));
  sim->run();
  ASSERT_GT(sim->stats().vm.pswpin, 0u) << "pages were read back";
  EXPECT_EQ(sim->swap().inuse(), 0u);
  expect_swap_accounted(*sim);
}

// A fork while pages sit in the swap cache (the faulted page and readahead's, not yet faulted):
// the child shares them as it shares any page, shares the swap entries of the pages after them
// (mm/swap_count.h), and the account holds through the child's reads, its exit, and the
// parent's.
TEST(ReclaimTest, ForkWithSwapCachePagesKeepsTheSwapAccount) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto sim = reclaim_machine(64, 256, kAgesTheActiveList);
  std::vector<Op> parent = lazyfree_then_pressure({Op::touch(kA, kPage, false)});
  parent.push_back(Op::sleep(SimTime::ms(40'000)));
  testing::thread(*sim, 1, 0, std::move(parent));
  sim->run_until(SimTime::ms(20'000));
  ASSERT_EQ(swap_cache_pages_in(*sim, kA, kA + window * kPage), window)
      << "the window is in the swap cache";
  expect_swap_accounted(*sim);
  testing::thread(*sim, 2, 1,
                  {Op::mm_create(2, 1), Op::touch(kA, window * kPage, false),
                   Op::touch(kA + window * kPage, 4 * kMiB, false)},
                  SimTime::ms(20'000));
  sim->run_until(SimTime::ms(30'000));
  EXPECT_TRUE(sim->find_mm(2)->forked);
  EXPECT_GT(sim->stats().vm.fork_swap_entries_copied, 0u);
  expect_swap_accounted(*sim);
  sim->run();
  EXPECT_EQ(sim->swap().inuse(), 0u);
  expect_swap_accounted(*sim);
}

// A swap-in read costs the faulting task CPU time (swap_readpage()'s submission and the read's
// completion) once per read, however many pages of the page-cluster window it brings.
TEST(ReclaimTest, SwapInReadCostsItsCpuTimeOncePerRead) {
  const uint64_t window = uint64_t{1} << page_cluster;
  CostProfile free_read = cost_profile_default();
  free_read.swap_read_submit = SimTime::zero();
  CostProfile costly_read = cost_profile_default();
  costly_read.swap_read_submit = SimTime::us(40);
  // The pressure's memory is unmapped first, so that kswapd is asleep at the read.
  const std::vector<Op> ops = lazyfree_then_pressure(
      {Op::munmap(kB, 64 * kMiB), Op::munmap(kC, 96 * kMiB), Op::touch(kA, window * kPage, false)});
  auto base = reclaim_machine(64, 256, kAgesTheActiveList, free_read);
  auto sim = reclaim_machine(64, 256, kAgesTheActiveList, costly_read);
  // Run to the end: a run cut off in a think (run_then_look()) counts the user time charged by
  // then, which the read's 40 us move.
  for (Simulation* s : {base.get(), sim.get()}) {
    testing::thread(*s, 1, 0, ops);
    s->run();
  }
  ASSERT_EQ(sim->stats().vm.pgmajfault, 1u) << "one read";
  ASSERT_EQ(sim->stats().vm.pswpin, window) << "of the whole window";
  ASSERT_EQ(base->stats().vm.pswpin, window);
  // The trace's thread runs on CPU 0 (kswapd on CPU 1); it did the same work but the read's.
  EXPECT_EQ(sim->cpu(0).counters.busy_ns - base->cpu(0).counters.busy_ns,
            static_cast<uint64_t>(costly_read.swap_read_submit.count_ns()));
  EXPECT_EQ(sim->cpu(0).counters.user_ns, base->cpu(0).counters.user_ns) << "system time";
}
// zram (SWP_SYNCHRONOUS_IO) since 4.15: do_swap_page() reads each page alone into a fresh page,
// with no readahead and no swap cache, and frees its slot (swap_free()): a major fault a page.
TEST(ReclaimTest, ZramSwapInReadsOnePageAndKeepsNoSwapCacheFrom415) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto zram = [] {
    return reclaim_machine(64, 256, kAgesTheActiveList, cost_profile_zram(),
                           SwapDevice::kSynchronous);
  };
  auto base = zram();
  run_then_look(*base, lazyfree_then_pressure());
  auto sim = zram();
  run_then_look(*sim, lazyfree_then_pressure({Op::touch(kA, window * kPage, false)}));
  const VmCounters& b = base->stats().vm;
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pgmajfault - b.pgmajfault, window) << "no readahead: a read a page";
  EXPECT_EQ(vm.pswpin - b.pswpin, window);
  EXPECT_EQ(vm.fault_swapcache, b.fault_swapcache);
  EXPECT_EQ(sim->swap().swap_cache_pages(), 0u);
  EXPECT_EQ(sim->swap().inuse(), sim->find_mm(1)->swapents) << "the slots were freed";
  EXPECT_TRUE(sim->lruvec().frame(sim->lruvec().find(*sim->find_mm(1), kA)).dirty)
      << "the page is the only copy";
  EXPECT_EQ(pte::state(pte_at(*sim, kA + window * kPage)), pte::kSwapped) << "nothing read ahead";
}

// Before 4.15 (sync_swapin=swapcache) zram's swap-ins went through swapin_readahead() as any
// device's: one major fault reads the window into the swap cache.
TEST(ReclaimTest, ZramSwapInReadsAheadThroughTheSwapCacheBefore415) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto sim = reclaim_machine(64, 256, std::string(kAgesTheActiveList) + ",sync_swapin=swapcache",
                             cost_profile_zram(), SwapDevice::kSynchronous);
  run_then_look(*sim, lazyfree_then_pressure({Op::touch(kA, window * kPage, false)}));
  auto base =
      reclaim_machine(64, 256, kAgesTheActiveList, cost_profile_zram(), SwapDevice::kSynchronous);
  run_then_look(*base, lazyfree_then_pressure());
  EXPECT_EQ(sim->stats().vm.pgmajfault - base->stats().vm.pgmajfault, 1u);
  EXPECT_EQ(sim->stats().vm.pswpin - base->stats().vm.pswpin, window);
  EXPECT_EQ(sim->swap().swap_cache_pages(), window);
  EXPECT_EQ(sim->swap().inuse(), sim->find_mm(1)->swapents + sim->swap().swap_cache_pages());
}

// A zram read is the faulting CPU's decompression (zram_submit_bio() returns when the page is
// in): its time is the task's CPU time; a block device's read is waited for off CPU.
TEST(ReclaimTest, ZramSwapInIsTheFaultingCpusTimeAndABlockReadIsNot) {
  const uint64_t window = uint64_t{1} << page_cluster;
  // The pressure's memory is unmapped first, so that kswapd is asleep at the reads.
  const std::vector<Op> ops = lazyfree_then_pressure(
      {Op::munmap(kB, 64 * kMiB), Op::munmap(kC, 96 * kMiB), Op::touch(kA, window * kPage, false)});
  auto busy_difference = [&](SwapDevice device, const std::string& policy) {
    CostProfile quick = cost_profile_zram();
    quick.swap_in_page = SimTime::zero();
    quick.swap_in_readahead_page = SimTime::zero();
    CostProfile slow = quick;
    slow.swap_in_page = SimTime::us(40);
    slow.swap_in_readahead_page = SimTime::us(10);
    auto a = reclaim_machine(64, 256, policy, quick, device);
    auto b = reclaim_machine(64, 256, policy, slow, device);
    // To the thread's exit: a CPU's busy time is counted when its task leaves it.
    testing::thread(*a, 1, 0, ops);
    testing::thread(*b, 1, 0, ops);
    a->run();
    b->run();
    EXPECT_EQ(a->stats().vm.pswpin, window);
    EXPECT_EQ(b->stats().vm.pswpin, window);
    return b->cpu(0).counters.busy_ns - a->cpu(0).counters.busy_ns;
  };
  const std::string skip = kAgesTheActiveList;
  const std::string through_cache = skip + ",sync_swapin=swapcache";
  EXPECT_EQ(busy_difference(SwapDevice::kSynchronous, skip), window * 40'000)
      << "eight reads of one page";
  EXPECT_EQ(busy_difference(SwapDevice::kSynchronous, through_cache),
            40'000 + (window - 1) * 10'000)
      << "one read of the window";
  EXPECT_EQ(busy_difference(SwapDevice::kBlock, through_cache), 0u) << "waited off CPU";
}

// Readahead's pages stay in the swap cache, each with its slot, until they are faulted, however
// full swap is: do_swap_page() frees a slot at the fault (should_try_to_free_swap()).
TEST(ReclaimTest, ReadAheadPagesKeepTheirSlotsUntilFaultedWithSwapOverHalfFull) {
  auto sim = reclaim_machine(64, 64);
  run_then_look(*sim, concat({write_anon(kB, 100), {Op::touch(kB, kPage, false)}}));
  ASSERT_TRUE(sim->swap().vm_swap_full());
  ASSERT_GT(sim->stats().vm.pswpin, 1u) << "a window was read";
  EXPECT_EQ(swap_cache_pages_in(*sim, kB, kB + (kPage << page_cluster)), sim->stats().vm.pswpin - 1)
      << "all but the faulting page";
  EXPECT_EQ(sim->swap().inuse(), sim->find_mm(1)->swapents + sim->swap().swap_cache_pages());
}

// 4.14+ (swap_readahead=vma): reading a swapped region in order, the window grows with its hits
// to the whole cluster, so most pages come in by readahead; touching one page in 16, with no hits,
// the window halves from the first eight pages to one. The fixed cluster (before 3.15) reads eight
// a fault either way.
TEST(ReclaimTest, VmaReadaheadGrowsInOrderAndShrinksWithoutHits) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto reads = [&](const std::string& readahead, uint64_t pages, uint64_t stride) {
    const std::string policy = std::string(kAgesTheActiveList) + "," + readahead;
    std::vector<Op> ops;
    for (uint64_t i = 0; i < pages; ++i)
      ops.push_back(Op::touch(kA + i * stride * kPage, kPage, false));
    // The baseline: the same run without the reads.
    auto base = reclaim_machine(64, 256, policy);
    run_then_look(*base, lazyfree_then_pressure());
    for (uint64_t i = 0; i < pages * stride; ++i)
      EXPECT_EQ(pte::state(pte_at(*base, kA + i * kPage)), pte::kSwapped);
    auto sim = reclaim_machine(64, 256, policy);
    run_then_look(*sim, lazyfree_then_pressure(ops));
    return std::pair{sim->stats().vm.pgmajfault - base->stats().vm.pgmajfault,
                     sim->stats().vm.pswpin - base->stats().vm.pswpin};
  };
  const auto [in_order_majors, in_order_pages] = reads("swap_readahead=vma", 256, 1);
  EXPECT_GE(in_order_pages, 256u);
  EXPECT_LT(in_order_pages, 256 + window) << "the last window runs on";
  EXPECT_LT(in_order_majors, 256u / 4) << "the window grew to the cluster";
  const auto [sparse_majors, sparse_pages] = reads("swap_readahead=vma", 64, 16);
  EXPECT_EQ(sparse_majors, 64u);
  EXPECT_EQ(sparse_pages, (window - 3) + 4 + 2 + 61) << "5 (the first, at the VMA's start), "
                                                        "then 4, 2, and one page a read";
  const auto [fixed_majors, fixed_pages] = reads("swap_readahead=cluster-fixed", 64, 16);
  EXPECT_EQ(fixed_majors, 64u);
  EXPECT_EQ(fixed_pages, 64 * window);
}

// The pages swap readahead reads with the faulting one are not yet the task's: the first access
// to each finds it in the swap cache (do_swap_page(), a minor fault), a second access none.
TEST(ReclaimTest, ReadAheadSwapPagesFaultOnceAsSwapCacheHits) {
  const uint64_t window = uint64_t{1} << page_cluster;
  auto base = reclaim_machine(64, 256, kAgesTheActiveList);
  run_then_look(*base, lazyfree_then_pressure());
  auto sim = reclaim_machine(64, 256, kAgesTheActiveList);
  run_then_look(*sim, lazyfree_then_pressure({Op::touch(kA, window * kPage, true),
                                              Op::touch(kA, window * kPage, true)}));
  const VmCounters& b = base->stats().vm;
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pgmajfault - b.pgmajfault, 1u) << "one read brought the window in";
  EXPECT_EQ(vm.pswpin - b.pswpin, window);
  EXPECT_EQ(vm.fault_swapcache - b.fault_swapcache, window - 1);
  EXPECT_EQ(vm.pgfault - b.pgfault, window) << "the second pass took no fault";
  for (uint64_t a = kA; a < kA + window * kPage; a += kPage) {
    EXPECT_EQ(pte_at(*sim, a), pte::kPresent | pte::kOwnPage | pte::kDirty | pte::kYoung)
        << std::hex << a;
  }
}

// MADV_FREE of a window readahead brought in: the page the task faulted on and wrote is lazily
// freed and its next write reuses it; the other seven were never the task's (the kernel's ptes
// still hold swap entries). With seed 000's fix MADV_FREE frees them and their next write
// zero-fills; the series before it skips them and the write finds them in the swap cache.
TEST(ReclaimTest, ReadAheadPagesMadvisedFreeStillFaultOnTheirNextWrite) {
  const uint64_t window = uint64_t{1} << page_cluster;
  for (const char* madv_free : {"free-swapped", "lazy"}) {
    const std::string policy = std::string("madv_free=") + madv_free + "," + kAgesTheActiveList;
    auto base = reclaim_machine(64, 256, policy);
    run_then_look(*base, lazyfree_then_pressure({Op::touch(kA, kPage, true)}));
    auto sim = reclaim_machine(64, 256, policy);
    run_then_look(*sim, lazyfree_then_pressure({Op::touch(kA, kPage, true),
                                                Op::madvise(kA, window * kPage, MADV_FREE),
                                                Op::touch(kA, window * kPage, true)}));
    const VmCounters& b = base->stats().vm;
    const VmCounters& vm = sim->stats().vm;
    const bool freed = std::string(madv_free) == "free-swapped";
    EXPECT_EQ(vm.lazyfree_reused - b.lazyfree_reused, 1u) << madv_free;
    EXPECT_EQ(vm.pgfault - b.pgfault, window - 1) << madv_free;
    EXPECT_EQ(vm.fault_anon - b.fault_anon, freed ? window - 1 : 0) << madv_free;
    EXPECT_EQ(vm.fault_swapcache - b.fault_swapcache, freed ? 0 : window - 1) << madv_free;
    EXPECT_EQ(vm.madv_free_swap_freed - b.madv_free_swap_freed, freed ? window - 1 : 0)
        << madv_free;
    EXPECT_EQ(vm.pgmajfault, b.pgmajfault) << "no second read";
    EXPECT_EQ(sim->find_mm(1)->rss_anon + sim->find_mm(1)->swapents,
              base->find_mm(1)->rss_anon + base->find_mm(1)->swapents)
        << madv_free;
  }
}

// A page that came back from swap carries PG_dirty (reuse_swap_page(), try_to_free_swap()). The
// 2015 MADV_FREE series (seed 000's kernel) left that bit alone, so such a page was never
// discarded: reclaim wrote it to swap again ("mm: decouple PG_dirty from MADV_FREE", Minchan Kim,
// June 2015). From 4.5 MADV_FREE clears it, and the clean page is discarded. 16 MiB written and
// pushed out to swap, written again (swapped in), MADV_FREE'd, then 96 MiB more of pressure.
TEST(ReclaimTest, PageSwappedBackInIsDiscardedAfterMadvFreeOnlyFrom45) {
  constexpr uint64_t kD = 0xc0000000;
  const std::vector<Op> ops = concat({write_anon(kA, 16),
                                      write_anon(kB, 64),
                                      write_anon(kC, 32),
                                      {Op::touch(kA, 16 * kMiB, true)},
                                      {Op::madvise(kA, 16 * kMiB, MADV_FREE)},
                                      write_anon(kD, 96)});
  for (const char* pgdirty : {"kept", "cleared"}) {
    const std::string policy = std::string("madv_free=lazy,lazyfree_lru=inactive-anon,") +
                               kAgesTheActiveList + ",lazyfree_pgdirty=" + pgdirty;
    auto sim = reclaim_machine(64, 256, policy);
    run_then_look(*sim, ops);
    const VmCounters& vm = sim->stats().vm;
    const bool kept = std::string(pgdirty) == "kept";
    ASSERT_GE(vm.pswpin, 16 * kPagesPerMiB) << pgdirty << ": the whole buffer came back from swap";
    EXPECT_EQ(vm.madv_lazyfree_pages, 16 * kPagesPerMiB) << pgdirty;
    EXPECT_EQ(vm.pglazyfreed, kept ? 0 : 16 * kPagesPerMiB) << pgdirty;
    for (uint64_t a = kA; a < kA + 16 * kMiB; a += kPage) {
      ASSERT_EQ(pte::state(pte_at(*sim, a)), kept ? pte::kSwapped : pte::kNone)
          << pgdirty << " " << std::hex << a;
    }
  }
}

TEST(ReclaimTest, ThrottledActsAsDontneedOnlyUnderPressure) {
  // No swap: 63 MiB of anon cannot be reclaimed, so free pages stay below 1.5 x min.
  auto pressed = reclaim_machine(64, 0, "madv_free=throttled");
  run_then_look(*pressed, concat({write_anon(kB, 63), {Op::madvise(kB, kMiB, MADV_FREE)}}));
  // Free pages as the madvise found them: the MiB it dropped has gone back to the buddy lists.
  EXPECT_LE(pressed->page_alloc().zone().free_pages - kPagesPerMiB,
            pressed->page_alloc().zone().wmark_min * 3 / 2);
  EXPECT_EQ(pressed->stats().vm.madv_dontneed_pages, kPagesPerMiB);
  EXPECT_EQ(pressed->stats().vm.madv_lazyfree_pages, 0u);

  auto relaxed = reclaim_machine(64, 0, "madv_free=throttled");
  run_then_look(*relaxed, concat({write_anon(kB, 16), {Op::madvise(kB, kMiB, MADV_FREE)}}));
  EXPECT_EQ(relaxed->stats().vm.madv_dontneed_pages, 0u);
  EXPECT_EQ(relaxed->stats().vm.madv_lazyfree_pages, kPagesPerMiB);

  auto lazy = reclaim_machine(64, 0, "madv_free=lazy");
  run_then_look(*lazy, concat({write_anon(kB, 63), {Op::madvise(kB, kMiB, MADV_FREE)}}));
  EXPECT_EQ(lazy->stats().vm.madv_lazyfree_pages, kPagesPerMiB) << "lazy ignores pressure";
}

TEST(ReclaimTest, FreeSwappedDropsSwapEntriesAndLazyKeepsThem) {
  const auto ops = concat({lazyfree_then_pressure(), {Op::madvise(kA, 4 * kMiB, MADV_FREE)}});
  auto lazy = reclaim_machine(64, 256, "madv_free=lazy,anon_lru=active-first");
  run_then_look(*lazy, ops);
  EXPECT_EQ(pte::state(pte_at(*lazy, kA)), pte::kSwapped);
  EXPECT_EQ(lazy->stats().vm.madv_free_swap_freed, 0u);

  auto fs = reclaim_machine(64, 256, "madv_free=free-swapped,anon_lru=active-first");
  run_then_look(*fs, ops);
  EXPECT_EQ(fs->stats().vm.madv_free_swap_freed, 4 * kPagesPerMiB);
  for (uint64_t a = kA; a < kA + 4 * kMiB; a += kPage) ASSERT_EQ(pte_at(*fs, a), pte::kNone);
  EXPECT_EQ(fs->swap().inuse(), fs->find_mm(1)->swapents + fs->swap().swap_cache_pages());
}

// Seed 000's fix ("mm: free swp_entry in madvise_free") was in the series long before the merge,
// so every kernel with MADV_FREE frees the swapped PTEs of the range; only the thread's own
// arms (the series as measured, and RFC 1/4's throttle on top of it) keep them. On 6.18 a
// madv-bomb under a memcg limit with swap swapped in 144 pages; keeping them, the model 256,565.
TEST(ReclaimTest, MergedMadvFreeFreesSwapEntriesAndOnlySeed000sSeriesKeepsThem) {
  const auto ops = concat({lazyfree_then_pressure(), {Op::madvise(kA, 4 * kMiB, MADV_FREE)}});
  for (const char* merged : {"", "linux-4.5", "linux-4.12", "linux-6.18", "free-swapped"}) {
    // kA's pages must have been swapped for the MADV_FREE to free their entries.
    const std::string policy = std::string(merged) + (*merged ? "+" : "") + kAgesTheActiveList;
    auto sim = reclaim_machine(64, 256, policy);
    EXPECT_TRUE(sim->policies().madv_free->free_swapped()) << "policy '" << merged << "'";
    run_then_look(*sim, ops);
    EXPECT_EQ(sim->stats().vm.madv_free_swap_freed, 4 * kPagesPerMiB)
        << "policy '" << merged << "'";
  }
  for (const char* series : {"free", "free-throttled"}) {
    auto sim = reclaim_machine(64, 256, std::string(series) + "+" + kAgesTheActiveList);
    EXPECT_FALSE(sim->policies().madv_free->free_swapped()) << series;
    run_then_look(*sim, ops);
    EXPECT_EQ(sim->stats().vm.madv_free_swap_freed, 0u) << series;
  }
}

TEST(ReclaimTest, SwapFullMeansNoAnonReclaimAndTheRunEnds) {
  auto sim = reclaim_machine(64, 4);
  thread(*sim, 1, 0, write_anon(kB, 80));
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(sim->nr_live_tasks(), 0u) << "no hang: kswapd sleeps, the task finishes";
  EXPECT_EQ(vm.pswpout, 4 * kPagesPerMiB) << "exactly the swap device's size";
  // Nothing else reclaimed: only pages written to swap, the last of them still in the swap cache
  // when swap filled (freed at the exit).
  EXPECT_LE(vm.pgsteal_kswapd + vm.pgsteal_direct, vm.pswpout);
  EXPECT_GT(vm.pgsteal_kswapd + vm.pgsteal_direct, vm.pswpout / 2);
  EXPECT_GT(vm.fault_oom, 0u);
  EXPECT_EQ(sim->swap().inuse(), 0u) << "exit_mmap() freed the swap entries";
}

TEST(ReclaimTest, NoSwapNoAnonReclaim) {
  auto sim = reclaim_machine(64, 0);
  thread(*sim, 1, 0, write_anon(kB, 80));
  sim->run();
  EXPECT_EQ(sim->stats().vm.pswpout, 0u);
  EXPECT_EQ(sim->stats().vm.pgsteal_direct + sim->stats().vm.pgsteal_kswapd, 0u);
  EXPECT_GT(sim->stats().vm.allocstall, 0u);
  EXPECT_GT(sim->stats().vm.fault_oom, 0u);
  EXPECT_EQ(sim->page_alloc().allocated(), 0u);
}

TEST(ReclaimTest, OneAndAHalfTimesRamWithSwapSwapsOutAndRetouchIsMajorFaults) {
  auto sim = reclaim_machine(64, 256);
  run_then_look(*sim, concat({write_anon(kB, 96), {Op::touch(kB, 16 * kMiB, false)}}));
  const VmCounters& vm = sim->stats().vm;
  EXPECT_GT(vm.pswpout, 32 * kPagesPerMiB) << "at least the excess over RAM went to swap";
  EXPECT_GT(vm.pgmajfault, 0u) << "the first pages written were swapped: reading them back waits";
  EXPECT_GE(vm.pswpin, vm.pgmajfault)
      << "page-cluster readahead brings more than the faulting page";
  EXPECT_EQ(vm.oom, 0u);
  EXPECT_EQ(sim->find_mm(1)->rss_anon + sim->find_mm(1)->swapents, 96 * kPagesPerMiB);
}

TEST(ReclaimTest, OneAndAHalfTimesRamWithoutSwapIsOneOomKillNotAHang) {
  auto sim = reclaim_machine(64, 0);
  thread(*sim, 1, 0, concat({write_anon(kB, 96), {Op::touch(kC, kPage, false)}}));
  sim->run();
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(sim->nr_live_tasks(), 0u) << "the run ends";
  EXPECT_EQ(vm.oom, 1u) << "one victim, killed once";
  EXPECT_EQ(vm.fault_oom, 1u) << "the killed task took no further faults";
  EXPECT_EQ(vm.pswpout + vm.pgsteal_kswapd + vm.pgsteal_direct, 0u)
      << "no anon reclaim without swap";
  EXPECT_EQ(sim->stats().count(OpKind::kTouch), 1u) << "its ops ended at the failed touch";
  EXPECT_EQ(sim->page_alloc().allocated(), 0u) << "its exit freed its memory";
}

// The swap device: writes queue one after another behind a request queue of BLKDEV_DEFAULT_RQ
// requests (a page's write each), and a writer that finds it full sleeps for a request, so
// swapping out N pages takes at least the device time of all but a full queue's. A written page
// is freed only by a scan after its write has completed: it waits in the swap cache, not its
// reclaimer.
TEST(ReclaimTest, SwapOutIsBoundedByTheDeviceWriteQueue) {
  const CostProfile no_device = writes_done_at_once();
  const CostProfile slow_device = swap_device(SimTime::us(50));
  auto free_at_once = reclaim_machine(64, 64, "", no_device);
  auto queued = reclaim_machine(64, 64, "", slow_device);
  run_then_look(*free_at_once, write_anon(kB, 80));
  run_then_look(*queued, write_anon(kB, 80));
  const VmCounters& vm = queued->stats().vm;
  EXPECT_EQ(free_at_once->stats().vm.swap_write_queue_waits, 0u) << "no device, no wait";
  EXPECT_GT(vm.swap_write_queue_waits, 0u);
  EXPECT_EQ(vm.reclaim_swap_write_waits, 0u) << "no reclaimer waits for its own writes";
  EXPECT_EQ(vm.pswpout, vm.pgsteal_kswapd + vm.pgsteal_direct + queued->swap().swap_cache_pages())
      << "a written page counts as reclaimed once a scan frees it, after its write";
  const uint64_t full_queue = BLKDEV_DEFAULT_RQ;  // pages
  EXPECT_LE(queued->swap().swap_cache_pages(), full_queue + 2 * SWAP_CLUSTER_MAX)
      << "what reclaim wrote ahead is bounded by the queue";
  EXPECT_EQ(queued->find_mm(1)->rss_anon + queued->find_mm(1)->swapents, 80 * kPagesPerMiB);
  const uint64_t touch_ns = queued->stats().latency(OpKind::kTouch).max();
  ASSERT_GT(vm.pswpout, full_queue);
  EXPECT_GE(touch_ns, (vm.pswpout - full_queue) *
                          static_cast<uint64_t>(slow_device.swap_io_page.count_ns()) / 2)
      << "the writes the touch waited for ran one after another";
  EXPECT_GT(touch_ns, free_at_once->stats().latency(OpKind::kTouch).max());
}

// pageout() leaves a written page in the swap cache, unmapped (shrink_page_list(): PageWriteback
// -> `goto keep`): touched again before a scan frees it, it comes back by a minor fault from the
// swap cache, with no read from the device.
TEST(ReclaimTest, APageTouchedBeforeReclaimFreesItComesBackFromTheSwapCache) {
  const CostProfile slow_device = swap_device(SimTime::us(500));
  auto base = reclaim_machine(64, 64, "", slow_device);
  run_then_look(*base, write_anon(kB, 80));
  uint64_t cached_at = 0;  // the first page reclaim wrote and has not freed
  for (uint64_t a = kB; a < kB + 80 * kMiB && cached_at == 0; a += kPage) {
    if (pte_at(*base, a) == (pte::kPresent | pte::kOwnPage | pte::kSwapCache)) cached_at = a;
  }
  ASSERT_NE(cached_at, 0u) << "reclaim's last writes are still in the swap cache";
  auto sim = reclaim_machine(64, 64, "", slow_device);
  run_then_look(*sim, concat({write_anon(kB, 80), {Op::touch(cached_at, kPage, false)}}));
  const VmCounters& b = base->stats().vm;
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.fault_swapcache - b.fault_swapcache, 1u);
  EXPECT_EQ(vm.pgmajfault, b.pgmajfault) << "no wait for a read";
  EXPECT_EQ(vm.pswpin, b.pswpin);
  EXPECT_EQ(pte::state(pte_at(*sim, cached_at)), pte::kPresent);
}

// A page whose write completes while its reclaimer still holds the batch misses
// folio_rotate_reclaimable() (it is not on the LRU): before 6.14 it goes back to the head of the
// inactive list and stays in the swap cache until a scan reaches it there; 6.14+ tries it again
// at once and frees it. Writes that take no device time all complete so.
TEST(ReclaimTest, APageWrittenWhileIsolatedIsFreedAtOnceFrom614) {
  auto before = reclaim_machine(64, 64, "written_back_retry=off", writes_done_at_once());
  auto from614 = reclaim_machine(64, 64, "written_back_retry=on", writes_done_at_once());
  run_then_look(*before, write_anon(kB, 80));
  run_then_look(*from614, write_anon(kB, 80));
  const VmCounters& old_vm = before->stats().vm;
  const VmCounters& vm = from614->stats().vm;
  EXPECT_EQ(old_vm.pgretry_written, 0u);
  EXPECT_EQ(old_vm.pgrotated, 0u) << "every write ended while its page was isolated";
  EXPECT_GT(before->swap().swap_cache_pages(), 0u) << "written pages wait at the list's head";
  EXPECT_EQ(vm.pgretry_written, vm.pswpout);
  EXPECT_EQ(from614->swap().swap_cache_pages(), 0u);
  EXPECT_EQ(vm.pgsteal_kswapd + vm.pgsteal_direct, vm.pswpout);
  EXPECT_LT(vm.pswpout, old_vm.pswpout) << "freed at once, fewer pages had to be written";
  for (const Simulation* sim : {before.get(), from614.get()}) {
    EXPECT_EQ(sim->find_mm(1)->rss_anon + sim->find_mm(1)->swapents, 80 * kPagesPerMiB);
    EXPECT_EQ(sim->swap().inuse(), sim->find_mm(1)->swapents + sim->swap().swap_cache_pages());
  }
}

// A swap-in read takes the device for its pages too: it completes after their transfer when that
// is longer than the read's latency.
TEST(ReclaimTest, SwapInTakesTheDeviceForItsPages) {
  CostProfile slow_device = cost_profile_default();
  slow_device.swap_io_page = SimTime::us(500);  // each page's transfer outlasts a swap-in
  auto sim = reclaim_machine(64, 256, "", slow_device);
  run_then_look(*sim, concat({write_anon(kB, 80), {Op::touch(kB, kPage, false)}}));
  const VmCounters& vm = sim->stats().vm;
  ASSERT_GT(vm.pswpin, 0u);
  EXPECT_GE(sim->stats().latency(OpKind::kTouch).count(), 2u);
  EXPECT_GE(sim->stats().latency(OpKind::kTouch).min(),
            static_cast<uint64_t>(slow_device.swap_io_page.count_ns()))
      << "the re-touch's one swap-in waited for its pages' transfer, not only the latency";
}

// try_to_unmap() of a page whose mm runs on another CPU (kswapd on CPU 1, the thread on CPU 0):
// before 4.3 each pte is flushed as it is cleared, an IPI a page; from 4.3 (72b252aed506) the
// flush waits for the end of the batch and is one full flush (try_to_unmap_flush()). With no
// swap, reclaim's only pages to take are clean lazyfree ones, discarded without a write.
TEST(ReclaimTest, KswapdFlushesADiscardedBatchOnceFrom43) {
  const std::vector<Op> ops =
      concat({write_anon(kA, 32), {Op::madvise(kA, 32 * kMiB, MADV_FREE)}, write_anon(kB, 48)});
  auto per_page = reclaim_machine(64, 0, "reclaim_tlb_flush=per-page");
  auto batched = reclaim_machine(64, 0, "reclaim_tlb_flush=batched");
  run_then_look(*per_page, ops);
  run_then_look(*batched, ops);
  const VmCounters& old_vm = per_page->stats().vm;
  const VmCounters& vm = batched->stats().vm;
  ASSERT_GT(old_vm.pgsteal_kswapd, 1000u);
  EXPECT_EQ(old_vm.reclaim_tlb_batch_flushes, 0u);
  EXPECT_EQ(old_vm.nr_tlb_shootdowns, old_vm.pgsteal_kswapd) << "an IPI for each page";
  EXPECT_EQ(per_page->cpu(0).counters.tlb_remote_single, old_vm.pgsteal_kswapd);
  EXPECT_EQ(vm.pglazyfreed, old_vm.pglazyfreed) << "the same pages discarded";
  EXPECT_EQ(vm.nr_tlb_shootdowns, vm.reclaim_tlb_batch_flushes);
  EXPECT_LE(vm.reclaim_tlb_batch_flushes * (SWAP_CLUSTER_MAX / 2), vm.pgsteal_kswapd)
      << "at least half a batch of pages a flush";
  EXPECT_EQ(batched->cpu(0).counters.tlb_remote_full, vm.nr_tlb_shootdowns) << "TLB_FLUSH_ALL";
  EXPECT_EQ(batched->cpu(0).counters.tlb_remote_single, 0u);
}

// A page about to be written is flushed first, whatever the batch (try_to_unmap_flush_dirty():
// no CPU may still write it through a stale TLB entry while the write is in flight), so anon
// pages swapped out take a flush each from 4.3 too, a full one.
TEST(ReclaimTest, APageAboutToBeWrittenIsFlushedFirstFrom43) {
  auto per_page = reclaim_machine(64, 64, "reclaim_tlb_flush=per-page");
  auto batched = reclaim_machine(64, 64, "reclaim_tlb_flush=batched");
  run_then_look(*per_page, write_anon(kB, 80));
  run_then_look(*batched, write_anon(kB, 80));
  const VmCounters& old_vm = per_page->stats().vm;
  const VmCounters& vm = batched->stats().vm;
  ASSERT_GT(old_vm.nr_tlb_shootdowns, 1000u);
  EXPECT_EQ(vm.nr_tlb_shootdowns, vm.reclaim_tlb_batch_flushes);
  EXPECT_GT(vm.reclaim_tlb_batch_flushes * 10, old_vm.nr_tlb_shootdowns * 9)
      << "about as many flushes as pages written while the thread ran";
  EXPECT_EQ(batched->cpu(0).counters.tlb_remote_single, 0u);
  EXPECT_EQ(per_page->cpu(0).counters.tlb_remote_full, 0u);
}

// 6.14+ (mm_cpumask=lazy, 209954cbc7d0): a CPU stays in the mask of an mm it ran after it switched
// to another, and arch_tlbbatch_flush(), which names no mm, reaches every busy CPU of its mms'
// masks. Process A (mm 1) writes and lazily frees 32 MiB on CPU 0 and sleeps; process B (mm 2)
// then runs on CPU 0 and pushes A's pages out (no swap: they are all reclaim can take). kswapd,
// on CPU 1, discards them: before 6.14 A is in no CPU's mask and each page's flush is local; from
// 6.14 CPU 0 is still in A's, and each batch sends it an IPI that flushes B's TLB.
TEST(ReclaimTest, ABatchFlushReachesTheBusyCpusAnMmRanOnFrom614) {
  const auto run = [](const char* mode) {
    auto sim = reclaim_machine(64, 0, mode);
    thread(*sim, 1, 0,
           concat({write_anon(kA, 32),
                   {Op::madvise(kA, 32 * kMiB, MADV_FREE), Op::sleep(SimTime::ms(900))}}));
    thread(*sim, 2, 0, concat({{Op::sleep(SimTime::ms(200))}, write_anon(kB, 48)}));
    sim->run_until(SimTime::ms(800));
    return sim;
  };
  auto eager = run("mm_cpumask=eager");
  auto lazy = run("mm_cpumask=lazy");
  ASSERT_GT(eager->stats().vm.pglazyfreed, 1000u);
  ASSERT_GT(lazy->stats().vm.pglazyfreed, 1000u);
  EXPECT_EQ(eager->cpu(0).counters.ipis_received, 0u) << "A is loaded nowhere";
  EXPECT_EQ(eager->stats().vm.reclaim_tlb_batch_flushes, 0u);
  const VmCounters& vm = lazy->stats().vm;
  EXPECT_GT(vm.reclaim_tlb_batch_flushes, 0u);
  EXPECT_EQ(lazy->cpu(0).counters.ipis_received, vm.reclaim_tlb_batch_flushes)
      << "one IPI a batch, to the CPU A ran on";
  EXPECT_EQ(lazy->cpu(0).counters.tlb_remote_full, vm.reclaim_tlb_batch_flushes)
      << "each a full flush of what CPU 0 runs: B";
  EXPECT_LE(vm.reclaim_tlb_batch_flushes * (SWAP_CLUSTER_MAX / 2), vm.pglazyfreed);
}

TEST(ReclaimTest, SameInputSameResults) {
  auto one = reclaim_machine(64, 256, kAgesTheActiveList);
  auto two = reclaim_machine(64, 256, kAgesTheActiveList);
  run_then_look(*one, lazyfree_then_pressure({Op::touch(kA, 8 * kMiB, false)}));
  run_then_look(*two, lazyfree_then_pressure({Op::touch(kA, 8 * kMiB, false)}));
  EXPECT_TRUE(one->stats() == two->stats());
  EXPECT_TRUE(one->lockstat() == two->lockstat());
  EXPECT_TRUE(one->cpu_totals() == two->cpu_totals());
  EXPECT_GT(one->stats().vm.pswpin, 0u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
