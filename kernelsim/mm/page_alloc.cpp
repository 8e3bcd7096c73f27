#include "kernelsim/mm/page_alloc.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

#include "kernelsim/locking/lock_classes.h"
#include "kernelsim/mm/oom_kill.h"
#include "kernelsim/mm/vmscan.h"
#include "kernelsim/mm/vmscan_predict.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

Zone::Zone(Simulation& sim, std::string zone_name, uint64_t managed, uint32_t nr_cpus,
           uint32_t nr_nodes)
    : name(std::move(zone_name)), managed_pages(managed), free_pages(managed), pcp(nr_cpus) {
  assert(nr_nodes >= 1);
  for (uint32_t nid = 0; nid < nr_nodes; ++nid) locks_.emplace_back(sim, kZoneLockClass);
  // The CPUs' lists get their batch and high with the watermarks
  // (PageAllocator::setup_per_zone_wmarks()).
}

SimTime clear_page_cost(const Task& t) {
  const CostProfile& c = t.sim().costs();
  return t.page_cold && c.clear_page_cold != SimTime::zero() ? c.clear_page_cold : c.clear_page;
}

uint32_t pcp_batch_of_zone(uint64_t zone_pages) {
  uint64_t batch = std::min(zone_pages / PCP_BATCH_ZONE_FRACTION, PCP_BATCH_MAX_BYTES / PAGE_SIZE);
  batch = std::max<uint64_t>(batch / 4, 1);  // "We effectively *= 4 below"
  // Clamped to 2^n - 1: batches of 2^n pages alias in the cache (the kernel's comment).
  return static_cast<uint32_t>(std::bit_floor(batch + batch / 2) - 1);
}

uint32_t numa_node_id(const Task& t) {
  return t.sim().topology().node_of(t.cpu().id);
}

PageAllocator::PageAllocator(Simulation& sim, uint64_t managed_pages, uint32_t nr_cpus,
                             uint32_t nr_nodes)
    : sim_(sim), zone_(sim, "Normal", managed_pages, nr_cpus, nr_nodes), node_memory_(nr_nodes) {
  setup_per_zone_wmarks();
}

uint64_t calculate_min_free_kbytes(uint64_t managed_pages, uint64_t ceil_kbytes) {
  const uint64_t lowmem_kbytes = managed_pages * (PAGE_SIZE >> 10);
  const uint64_t x = lowmem_kbytes * 16;
  uint64_t r = static_cast<uint64_t>(std::sqrt(static_cast<double>(x)));
  while (r * r > x) --r;  // int_sqrt(): floor, exact for any double rounding
  while ((r + 1) * (r + 1) <= x) ++r;
  return std::clamp(r, MIN_FREE_KBYTES_FLOOR, ceil_kbytes);
}

uint64_t recommended_min_free_kbytes(uint64_t managed_pages, uint32_t nr_zones) {
  // "at least 2 hugepages are free for MIGRATE_RESERVE", and on average two pageblocks almost
  // free of another type for each pair of the pcp migrate types.
  uint64_t pages = pageblock_nr_pages * nr_zones * 2;
  pages += pageblock_nr_pages * nr_zones * MIGRATE_PCPTYPES * MIGRATE_PCPTYPES;
  pages = std::min(pages, managed_pages / 20);  // "never ... more than 5% of the lowmem"
  return pages << (PAGE_SHIFT - 10);
}

uint64_t dma_zone_reserved_free_pages(uint64_t managed_pages, uint64_t min_pages) {
  // A machine of 16 MiB or less is ZONE_DMA alone: the model's zone is that zone, and its free
  // pages are already the count.
  if (managed_pages <= MAX_DMA_PFN) return 0;
  const uint64_t dma_pages = MAX_DMA_PFN;
  const uint64_t above = managed_pages - dma_pages;
  // setup_per_zone_wmarks(): each zone's share of pages_min is in proportion to its size. The
  // model's zone holds all of min as its own watermark, ZONE_DMA's share included, so only what
  // ZONE_DMA keeps beyond its share is added: its lowmem_reserve, within what it has.
  const uint64_t dma_min = min_pages * dma_pages / managed_pages;
  return std::min(dma_pages - std::min(dma_min, dma_pages), above / LOWMEM_RESERVE_RATIO_DMA);
}

void PageAllocator::setup_per_zone_wmarks() {
  const WatermarkPolicy& policy = *sim_.policies().watermarks;
  // A value written to /proc/sys/vm/min_free_kbytes replaces the boot-time formula
  // (min_free_kbytes_sysctl_handler() -> setup_per_zone_wmarks()).
  zone_.min_free_kbytes =
      sim_.machine().min_free_kbytes != 0
          ? sim_.machine().min_free_kbytes
          : calculate_min_free_kbytes(zone_.managed_pages, policy.min_free_kbytes_ceil());
  // One zone holds all lowmem, so its share of pages_min is all of it.
  const WatermarkView view{zone_.min_free_kbytes >> (PAGE_SHIFT - 10), zone_.managed_pages};
  zone_.wmark_min = view.min_pages;
  zone_.wmark_low = view.min_pages + policy.low_gap(view);
  zone_.wmark_high = view.min_pages + policy.high_gap(view);
  zone_.dma_reserved_free = dma_zone_reserved_free_pages(zone_.managed_pages, zone_.wmark_min);
  // zone_pcp_update() of each node's zone (setup_zone_pageset() at boot): the batch from its
  // size, high from its share of the managed pages and of the low watermark
  // (__setup_per_zone_wmarks() gives each zone its share of min), split over its CPUs.
  const Topology& topo = sim_.topology();
  const uint32_t nr_nodes = zone_.nr_nodes();
  std::vector<uint32_t> node_cpus(nr_nodes, 0);
  for (uint32_t cpu = 0; cpu < zone_.pcp.size(); ++cpu) ++node_cpus[topo.node_of(cpu)];
  const uint32_t batch = pcp_batch_of_zone(zone_.managed_pages / nr_nodes);
  for (uint32_t cpu = 0; cpu < zone_.pcp.size(); ++cpu) {
    pcp_set_high_and_batch(zone_.pcp[cpu], sim_.config().pcp_high, batch,
                           zone_.managed_pages / nr_nodes, zone_.wmark_low / nr_nodes,
                           node_cpus[topo.node_of(cpu)]);
  }
}

namespace {

// Models __alloc_pages_direct_reclaim() and its should_reclaim_retry() loop.
// A round that freed nothing but waited for writeback (reclaim_throttle()) is not a failure:
// the pages it waited for become reclaimable.
Co<void> alloc_pages_direct_reclaim(Task& t) {
  Simulation& sim = t.sim();
  const Zone& z = sim.page_alloc().zone();
  const SimTime start = t.clock();
  trace_task_begin(sim.trace(), t.id(), "direct reclaim", TraceCat::kReclaim, start);
  uint32_t no_progress = 0;
  while (z.free_pages <= z.wmark_min && no_progress < MAX_RECLAIM_RETRIES) {
    bool throttled = false;
    const uint64_t n = co_await try_to_free_pages(t, &throttled);
    no_progress = n != 0 || throttled ? 0 : no_progress + 1;
  }
  sim.stats().direct_reclaim.record(static_cast<uint64_t>((t.clock() - start).count_ns()));
  trace_task_end(sim.trace(), t.id(), "direct reclaim", TraceCat::kReclaim, t.clock());
}

// Models __alloc_pages_slowpath() and the refill of the per-CPU list from the buddy lists. When
// the zone is empty after direct reclaim gave up, a GFP_KERNEL allocation runs the OOM killer
// (__alloc_pages_may_oom()) and retries while it killed and reaped another process. An OOM victim
// does not reclaim: the kernel lets it into the reserves (ALLOC_OOM) so it exits quickly.
Co<bool> alloc_pages_slowpath(Task& t, PageUse use, AllocGfp gfp) {
  PageAllocator& pa = t.sim().page_alloc();
  const Zone& z = pa.zone();
  for (;;) {
    if (z.free_pages <= z.wmark_low) {  // zone_watermark_ok(WMARK_LOW) failed: slow path
      co_await sync_point(t);
      wakeup_kswapd(t);
      if (z.free_pages <= z.wmark_min && !t.oom_killed) co_await alloc_pages_direct_reclaim(t);
    }
    if (pa.alloc_page_fast(t, use)) co_return true;
    const bool ok = co_await pa.alloc_page_slow(t, use);
    co_await sample_free_pages(t);  // seed 003: a (time, free pages) sample per pcp refill
    if (ok || gfp == AllocGfp::kNoRetry || !co_await out_of_memory(t)) co_return ok;
  }
}

}  // namespace

// The zone above its low watermark and a page on this CPU's list: get_page_from_freelist()'s
// first try succeeds, with no frame (sim/co.h); anything else is the slow path's, which checks
// both again (alloc_page_fast() changes nothing when it fails).
Co<bool> alloc_pages(Task& t, PageUse use, AllocGfp gfp) {
  PageAllocator& pa = t.sim().page_alloc();
  const Zone& z = pa.zone();
  if (z.free_pages > z.wmark_low && pa.alloc_page_fast(t, use)) return Co<bool>::ready(true);
  return alloc_pages_slowpath(t, use, gfp);
}

uint64_t PageAllocator::nr_free_pages() const {
  uint64_t n = zone_.free_pages;
  for (const PerCpuPages& p : zone_.pcp) n += p.count;
  return n;
}

void PageAllocator::check_invariant() const {
  assert(nr_free_pages() + allocated_ == zone_.managed_pages && "invariant (1)");
  check_page_conservation(sim_);
}

void check_page_conservation(const Simulation& sim) {
#ifndef NDEBUG
  const PageAllocator& pa = sim.page_alloc();
  const Lruvec& lru = sim.lruvec();
  const VmCounters& vm = sim.stats().vm;
  const uint64_t pgtables = vm.pgtable_alloc - vm.pgtable_free;
  const uint64_t accounted = pa.nr_free_pages() + lru.nr_lru_pages() + lru.nr_held() +
                             lru.nr_unframed() + pgtables + pa.nr_contig_pages();
  assert(
      accounted == pa.zone().managed_pages &&
      "invariant (3): free + LRU + pagevecs/isolated + unframed + page tables + contig != total");
  (void)accounted;
#else
  (void)sim;
#endif
}

void PageAllocator::count(PageUse use, bool alloc) {
  VmCounters& vm = sim_.vm();
  if (use == PageUse::kUser) {
    ++(alloc ? vm.pages_alloc : vm.pages_free);
    if (alloc) {
      sim_.lruvec().page_allocated();
    } else {
      sim_.lruvec().page_freed();
    }
  } else {
    ++(alloc ? vm.pgtable_alloc : vm.pgtable_free);
  }
}

bool PageAllocator::alloc_page_fast(Task& t, PageUse use) {
  PerCpuPages& pcp = zone_.pcp[t.cpu().id];
  const PcpHighMode mode = sim_.config().pcp_high;
  if (mode == PcpHighMode::kAuto) decay_pcp_high_due(t, pcp);
  if (pcp.count == 0) return false;
  pcp_note_alloc(pcp, mode);
  --pcp.count;
  t.page_cold = pcp.hot == 0;
  if (pcp.hot != 0) {
    --pcp.hot;
  } else {
    ++sim_.vm().pcp_alloc_cold;
  }
  ++allocated_;
  count(use, true);
  t.work(sim_.costs().pcp_alloc);
  return true;
}

bool PageAllocator::take_page_cached_at_start() {
  if (zone_.free_pages <= zone_.wmark_low) return false;
  --zone_.free_pages;
  note_free_pages_taken();
  ++allocated_;
  count(PageUse::kUser, true);
  check_invariant();
  return true;
}

Co<bool> PageAllocator::alloc_page_slow(Task& t, PageUse use) {
  QSpinLock& lock = zone_.lock(numa_node_id(t));
  co_await lock.lock_irqsave(t);
  PerCpuPages& pcp = zone_.pcp[t.cpu().id];
  const uint64_t moved =
      std::min<uint64_t>(nr_pcp_alloc(pcp, sim_.config().pcp_high, zone_.flags), zone_.free_pages);
  zone_.free_pages -= moved;
  note_free_pages_taken();
  pcp.count += static_cast<uint32_t>(moved);
  t.work(sim_.costs().buddy_page * static_cast<int64_t>(moved));
  ++sim_.vm().zone_lock_batches;
  co_await lock.unlock_irqrestore(t);
  check_invariant();
  co_return alloc_page_fast(t, use);
}

uint32_t PageAllocator::free_page_fast(Task& t, PageUse use) {
  PerCpuPages& pcp = zone_.pcp[t.cpu().id];
  const PcpHighMode mode = sim_.config().pcp_high;
  if (mode == PcpHighMode::kAuto) decay_pcp_high_due(t, pcp);
  assert(allocated_ > 0);
  ++pcp.count;
  // The caches keep the last pages written; the list hands the last ones freed out first.
  const uint64_t window = sim_.costs().pcp_hot_window;
  if (window == 0 || pcp.hot < window) ++pcp.hot;
  --allocated_;
  count(use, false);
  t.work(sim_.costs().pcp_free);
  return pcp_note_free(pcp, mode, zone_.flags);
}

// get_page_from_freelist(): "Detect whether the number of free pages is below high watermark.
// If so, we will decrease pcp->high and free PCP pages in free path." The kernel looks at every
// allocation; the free pages it reads fall only where pages leave the buddy lists, so the model
// looks there: one allocation earlier than the kernel would.
void PageAllocator::note_free_pages_taken() {
  if (zone_.free_pages <= zone_.wmark_high) zone_.flags.below_high = true;
}

void PageAllocator::decay_pcp_high_due(Task& t, PerCpuPages& pcp) {
  if (t.clock() < pcp.next_decay) return;
  const uint32_t drained = decay_pcp_high(pcp, t.clock());
  pcp.hot = std::min(pcp.hot, pcp.count);  // from the tail: the coldest pages
  zone_.free_pages += drained;
}

Co<void> PageAllocator::free_pcppages_bulk(Task& t, uint32_t count) {
  QSpinLock& lock = zone_.lock(numa_node_id(t));
  co_await lock.lock_irqsave(t);
  PerCpuPages& pcp = zone_.pcp[t.cpu().id];
  const uint32_t moved = std::min(count, pcp.count);
  pcp.count -= moved;
  pcp.hot = std::min(pcp.hot, pcp.count);  // the tail goes first: the coldest pages
  zone_.free_pages += moved;
  t.work(sim_.costs().buddy_page * static_cast<int64_t>(moved));
  ++sim_.vm().zone_lock_batches;
  // free_unref_page_commit(): a drain that lifts the zone over its high watermark ends
  // ZONE_BELOW_HIGH.
  if (zone_.flags.below_high && zone_.free_pages > zone_.wmark_high) zone_.flags.below_high = false;
  co_await lock.unlock_irqrestore(t);
  check_invariant();
}

Co<bool> PageAllocator::alloc_contig_pages(Task& t, uint64_t n) {
  QSpinLock& lock = zone_.lock(cma_nid());
  co_await lock.lock_irqsave(t);
  const bool ok = zone_.free_pages >= n;
  if (ok) {
    zone_.free_pages -= n;
    note_free_pages_taken();
    allocated_ += n;
    contig_ += n;
    t.work(sim_.costs().buddy_page * static_cast<int64_t>(n));
  }
  co_await lock.unlock_irqrestore(t);
  check_invariant();
  co_return ok;
}

Co<void> PageAllocator::free_contig_pages(Task& t, uint64_t n) {
  QSpinLock& lock = zone_.lock(cma_nid());
  co_await lock.lock_irqsave(t);
  assert(allocated_ >= n && contig_ >= n);
  zone_.free_pages += n;
  allocated_ -= n;
  contig_ -= n;
  t.work(sim_.costs().buddy_page * static_cast<int64_t>(n));
  co_await lock.unlock_irqrestore(t);
  check_invariant();
}

}  // namespace mmreplay::kernelsim
