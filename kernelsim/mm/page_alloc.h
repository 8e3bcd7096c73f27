// PageAllocator: zones with free page counts and per-CPU page lists (mm/page_alloc.c).
//
// Order-0 pages only. An allocation takes a page from this CPU's pcp list (rmqueue_pcplist());
// an empty list is refilled under zone->lock (rmqueue_bulk()). A free puts the page on the pcp
// list (free_unref_page()); a list at its high mark gives pages back under zone->lock
// (free_pcppages_bulk()). How high the list goes and how many pages a refill or a drain moves
// are the kernel era's (`pcp_high`, pcp_high.h: a batch of 63 at 6 x batch before 5.14, up to
// 32 batches and tens of thousands of pages from 6.7). zone->lock is a QSpinLock, so refills and
// drains from many CPUs contend, with lockstat figures.
//
// Pages are counted, not tracked individually (the LRU model tracks the pages it needs).
//
// NUMA nodes (sched/topology.h: one per socket): each node's Normal zone has its own zone->lock
// (struct zone is per node: pgdat->node_zones[]), and a task allocates from and frees to its own
// CPU's node (numa_node_id(): the default mempolicy allocates node-local, and the per-CPU lists a
// CPU refills and drains are those of its local zone, zone->pageset). Known simplifications: the
// free-page count and the watermarks are the machine's (the sum over the nodes' zones, whose
// watermarks are each their share of min_free_kbytes, __setup_per_zone_wmarks(), so the sums are
// the one-zone figures), so no node runs short before the others and there is no fallback along
// the zonelist; a freed page goes to the freeing CPU's node, where the kernel returns it to its own
// (page_zone(page)); the workloads free on the CPU that faulted, as will-it-scale binds its tasks.
//
// Watermarks (init_per_zone_wmark_min(), __setup_per_zone_wmarks()): min_free_kbytes =
// int_sqrt(managed KB * 16) clamped to [128 KB, policy ceiling]; WMARK_MIN = min_free_kbytes in
// pages; low and high per policy `watermarks`. alloc_pages() is the entry for user context:
// free pages (NR_FREE_PAGES: the buddy lists, pcp lists excluded, as the kernel counts them) at
// or below low wake kswapd; at or below min the task enters direct reclaim (allocstall; the stall
// is recorded in Stats::direct_reclaim) until free pages exceed min or MAX_RECLAIM_RETRIES rounds
// make no progress; then the page comes from the pcp list or the buddy lists while any is left
// (an empty zone runs the OOM killer, mm/oom_kill.h, and the allocation retries unless the
// allocating task's own process was the victim).
// Under reclaim=predictive each pcp refill samples free pages for the trend (vmscan_predict.h).
//
// Invariants (asserted in page_alloc.cpp):
//  (1) zone.free_pages + sum(pcp.count) + allocated == zone.managed_pages.
//  (2) Under pcp_high=batch, pcp.count <= pcp.high after every free completes its drain (the
//      later eras' high moves, and their drains are sized as the kernel's: pcp_high.h).
//  (3) Conservation (debug builds, at every zone->lock batch and reclaim round): free pages
//      (buddy + pcp) + pages on the LRU lists + pages held in per-CPU lru_add batches or isolated
//      by reclaim + user pages between allocation and frame (Lruvec::nr_unframed()) + page-table
//      pages == managed pages. There is no swap cache (swapfile.h), so no term for it.

#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/locking/qspinlock.h"
#include "kernelsim/mm/pcp_high.h"
#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Simulation;
class Task;

struct Zone {
  Zone(Simulation& sim, std::string zone_name, uint64_t managed, uint32_t nr_cpus,
       uint32_t nr_nodes);

  std::string name;
  uint64_t managed_pages;
  uint64_t min_free_kbytes = 0;  // /proc/sys/vm/min_free_kbytes
  uint64_t wmark_min = 0;        // _watermark[WMARK_MIN], pages
  uint64_t wmark_low = 0;
  uint64_t wmark_high = 0;
  // Free pages ZONE_DMA keeps from this zone's allocations beyond its share of min
  // (dma_zone_reserved_free_pages()): set with the watermarks, as setup_per_zone_lowmem_reserve()
  // runs beside setup_per_zone_wmarks(); only a reader of nr_free_pages() adds them.
  uint64_t dma_reserved_free = 0;
  uint64_t free_pages;  // in the buddy lists (not in pcp lists), all nodes
  // zone->lock of node nid's zone. REQUIRES: nid < nr_nodes().
  QSpinLock& lock(uint32_t nid) { return locks_[nid]; }
  uint32_t nr_nodes() const { return static_cast<uint32_t>(locks_.size()); }
  std::vector<PerCpuPages> pcp;  // each CPU's list of its node's zone
  ZoneFlags flags;

 private:
  std::deque<QSpinLock> locks_;  // by node (a deque: QSpinLock does not move)
};

// NodeMemory: the memory channels of one NUMA node (its socket's memory controllers), as a
// server of page transfers at the node's sustained bandwidth (cost dram_page_transfer per
// 4 KiB): a transfer starts when the channels finish the ones before it. Only what a preset
// gives a bandwidth for uses it (mm/memory.cpp copy_user_highpage()).
// Invariant: busy_until never decreases (transfers are served in simulated-time order).
class NodeMemory {
 public:
  // `pages` transfers issued at `at`, each taking `per_page` of the channels; returns when the
  // last completes.
  SimTime transfer(SimTime at, int64_t pages, SimTime per_page) {
    busy_until_ = max(at, busy_until_) + per_page * pages;
    return busy_until_;
  }

 private:
  SimTime busy_until_;
};

// Models numa_node_id(): the node of t's CPU, which the page allocator serves t from.
uint32_t numa_node_id(const Task& t);

enum class PageUse : uint8_t { kUser, kPageTable };

// Models clear_page() (clear_highpage()) of the page alloc_pages() last gave t: clear_page_cold
// when it was cold (pcp_high.h PerCpuPages) and the profile has that figure, else clear_page.
SimTime clear_page_cost(const Task& t);

// Models mm/page_alloc.c: zone_batchsize() of a zone of `zone_pages` managed pages: the pcp
// batch, high being PCP_HIGH_BATCHES times it (pageset_set_batch(), which keeps batch >= 1).
// A small zone gets a small batch, so the per-CPU lists of a scaled-down machine hold the same
// share of its memory as a large one's.
uint32_t pcp_batch_of_zone(uint64_t zone_pages);

// Models mm/page_alloc.c: init_per_zone_wmark_min(): int_sqrt(lowmem_kbytes * 16), clamped.
uint64_t calculate_min_free_kbytes(uint64_t managed_pages, uint64_t ceil_kbytes);

// Models mm/huge_memory.c: set_recommended_min_free_kbytes(): the min_free_kbytes THP asks for on
// a machine of `managed_pages` with `nr_zones` populated zones, in KB (the kernel applies it only
// when it is above the formula's value).
uint64_t recommended_min_free_kbytes(uint64_t managed_pages, uint32_t nr_zones);

// The free pages ZONE_DMA keeps beyond its share of the min watermark on an x86-64 machine of
// `managed_pages` (the model's zone holds them all) whose min watermark is `min_pages`:
// nr_free_pages() counts every zone, and a user allocation falls back into ZONE_DMA only while it
// has more than its own share of min plus its lowmem_reserve (1/256 of the pages above it) free
// (__zone_watermark_ok()), so the reserve stays free whatever the pressure. The model's zone
// already counts ZONE_DMA's share of min in its own watermark; the reserve is what it lacks. Only
// a rule that reads the global count (seed 000's MADV_FREE throttle) adds it.
uint64_t dma_zone_reserved_free_pages(uint64_t managed_pages, uint64_t min_pages);

// Asserts invariant (3) in debug builds; no-op with NDEBUG.
void check_page_conservation(const Simulation& sim);

// The allocation's retry behaviour, from its gfp flags.
enum class AllocGfp : uint8_t {
  kKernel,   // GFP_KERNEL: an empty zone after reclaim runs the OOM killer
  kNoRetry,  // __GFP_NORETRY (readahead): fails instead
};

// Models __alloc_pages() for one order-0 page from user context (faults): watermark checks,
// kswapd wakeup, direct reclaim, then the pcp list or the buddy lists, then (kKernel) the OOM
// killer. False: no page (t's process was the OOM victim, or kNoRetry).
// REQUIRES: t holds no spinlock.
Co<bool> alloc_pages(Task& t, PageUse use, AllocGfp gfp = AllocGfp::kKernel);

class PageAllocator {
 public:
  PageAllocator(Simulation& sim, uint64_t managed_pages, uint32_t nr_cpus, uint32_t nr_nodes);

  // Models rmqueue_pcplist(): one page from t's CPU list. Returns false when the list is empty;
  // the caller then co_awaits alloc_page_slow().
  bool alloc_page_fast(Task& t, PageUse use);
  // Models rmqueue_bulk() under zone->lock, then takes one page. Returns false when the zone has
  // no free page (no reclaim yet: the fault fails with VM_FAULT_OOM).
  Co<bool> alloc_page_slow(Task& t, PageUse use);
  // A page the kernel allocated before the run began: a file page already in the page cache
  // under --cache warm, which the model gives a frame at its first use. One page off the free
  // count, no time charged, no zone->lock: natively the page was found, not allocated. False
  // when free pages are at or below the low watermark: the caller then allocates it as a fault
  // would, with kswapd and reclaim, the memory it held from the start having gone to others.
  bool take_page_cached_at_start();
  // Models free_unref_page(): one page to t's CPU list. Returns how many pages the list gives
  // back to the zone now (nr_pcp_free(), 0 for none); the caller then co_awaits
  // free_pcppages_bulk() with them.
  uint32_t free_page_fast(Task& t, PageUse use);
  // Models free_pcppages_bulk(): `count` pages (at most the list's) back to the zone under
  // zone->lock.
  Co<void> free_pcppages_bulk(Task& t, uint32_t count);

  // Models isolate_freepages_range() at the end of alloc_contig_range(): `n` pages of the zone's
  // free pages become allocated (the range's own pages, freed by migration, whose movable pages
  // took free pages elsewhere). False, with nothing taken, when fewer are free.
  Co<bool> alloc_contig_pages(Task& t, uint64_t n);
  // Models free_contig_range(): `n` pages back to the buddy lists.
  Co<void> free_contig_pages(Task& t, uint64_t n);

  // Models setup_per_zone_wmarks(): __setup_per_zone_wmarks() with the `watermarks` policy, then
  // each CPU's pcp high and batch from them (zone_pcp_update(), 5.14+).
  void setup_per_zone_wmarks();

  // The node of the CMA area (mm/cma.h): it sits at the top of memory, in the last node.
  uint32_t cma_nid() const { return zone_.nr_nodes() - 1; }

  Zone& zone() { return zone_; }
  const Zone& zone() const { return zone_; }
  // Node nid's memory channels. REQUIRES: nid < zone().nr_nodes().
  NodeMemory& node_memory(uint32_t nid) { return node_memory_[nid]; }
  uint64_t allocated() const { return allocated_; }
  // Pages taken by contiguous allocations (alloc_contig_pages()), part of allocated().
  uint64_t nr_contig_pages() const { return contig_; }
  // Free pages, pcp lists included (NR_FREE_PAGES + pcp, as /proc/meminfo MemFree).
  uint64_t nr_free_pages() const;

 private:
  void count(PageUse use, bool alloc);
  // ZONE_BELOW_HIGH when pages leaving the buddy lists took the zone to its high watermark.
  void note_free_pages_taken();
  // 6.7+: the decays of t's CPU list that are due (pcp_high.h decay_pcp_high()).
  void decay_pcp_high_due(Task& t, PerCpuPages& pcp);
  void check_invariant() const;

  Simulation& sim_;
  Zone zone_;
  std::vector<NodeMemory> node_memory_;  // by node
  uint64_t allocated_ = 0;
  uint64_t contig_ = 0;
};

}  // namespace mmreplay::kernelsim
