// Stats: what a run produced, for tests and the replay layer.
//
// Per-operation latency histograms (ns, from the op's start on the task's clock to its end),
// vmstat-style counters and the virtual makespan. Per-CPU counters live in Cpu (sched/cpu.h) and
// per-lock figures in LockStat (locking/lockstat.h); Simulation gives access to all three.
// Everything compares with ==, so determinism is a one-line check.

#pragma once

#include <array>
#include <cstdint>

#include "kernelsim/sim/histogram.h"
#include "kernelsim/sim/op.h"

namespace mmreplay::kernelsim {

// Named after /proc/vmstat where an equivalent exists.
struct VmCounters {
  uint64_t pgfault = 0;               // faults taken (all kinds)
  uint64_t fault_anon = 0;            // do_anonymous_page() with a new page
  uint64_t fault_zero_page = 0;       // read fault mapped the shared zero page
  uint64_t fault_file = 0;            // filemap_fault() of a resident page
  uint64_t fault_cow = 0;             // do_wp_page() / private file write: page copied
  uint64_t fault_spurious = 0;        // pte already as wanted (another thread won, or trace)
  uint64_t fault_segv = 0;            // no VMA or access not allowed
  uint64_t fault_oom = 0;             // allocation failed
  uint64_t fault_vma_lock = 0;        // handled under the per-VMA lock
  uint64_t fault_vma_lock_retry = 0;  // per-VMA lock not taken, fell back to mmap_sem
  uint64_t pages_alloc = 0;           // user pages allocated (anon + COW)
  uint64_t pages_free = 0;            // user pages freed
  uint64_t pgtable_alloc = 0;         // PTE pages allocated
  uint64_t pgtable_free = 0;          // PTE pages freed
  uint64_t zone_lock_batches = 0;     // rmqueue_bulk / free_pcppages_bulk calls
  uint64_t nr_tlb_flush_calls = 0;    // flush_tlb_mm_range() calls
  uint64_t nr_tlb_shootdowns = 0;     // flush calls that sent IPIs
  uint64_t nr_tlb_broadcast = 0;      // broadcast (INVLPGB) invalidations
  uint64_t gather_forced_flushes = 0; // mmu_gather batch filled up mid-operation
  uint64_t madv_dontneed_pages = 0;   // present pages zapped by MADV_DONTNEED
  uint64_t madv_lazyfree_pages = 0;   // pages made lazyfree by MADV_FREE
  uint64_t lazyfree_reused = 0;       // lazyfree pages written again (lazy free cancelled)
  uint64_t ops_failed = 0;            // syscalls that returned an error
  // ---- Memory pressure (mm/vmscan.c, mm/page_io.c, mm/memory.c) ----
  uint64_t allocstall = 0;            // try_to_free_pages() calls by allocating tasks
  uint64_t kswapd_wakeups = 0;        // wakeup_kswapd() that woke a sleeping kswapd
  uint64_t pgscan_kswapd = 0;         // pages isolated from inactive lists by kswapd
  uint64_t pgscan_direct = 0;         // ... by direct reclaim
  uint64_t pgsteal_kswapd = 0;        // pages reclaimed (freed) by kswapd
  uint64_t pgsteal_direct = 0;        // ... by direct reclaim
  uint64_t pgactivate = 0;            // pages moved to an active list (second chance)
  uint64_t pgdeactivate = 0;          // pages moved from active to inactive
  uint64_t pglazyfree = 0;            // pages moved to the lazyfree list by MADV_FREE
  uint64_t pglazyfreed = 0;           // clean lazyfree pages discarded by reclaim
  uint64_t lazyfree_redirtied = 0;    // lazyfree pages found dirty by reclaim: back to swap-backed
  uint64_t pswpin = 0;                // pages read from swap
  uint64_t pswpout = 0;               // pages written to swap
  uint64_t pgmajfault = 0;            // faults that waited for swap-in I/O
  uint64_t swap_full = 0;             // anon pages kept because no swap slot was free
  uint64_t madv_free_swap_freed = 0;  // swap entries freed by MADV_FREE (free-swapped)
  // ---- Buffer heads (fs/buffer.c) ----
  uint64_t bh_lru_hits = 0;           // lookup_bh_lru() found the buffer head
  uint64_t bh_lru_misses = 0;         // ... did not (__find_get_block_slow() follows)
  uint64_t bh_lru_installs = 0;       // bh_lru_install() put a new entry (and a reference) in
  uint64_t bh_lru_evictions = 0;      // ... and pushed the tail out (brelse)
  // ---- Memory cgroups (mm/memcontrol.c) ----
  uint64_t memcg_charged_pages = 0;   // pages committed to a memcg (mem_cgroup_commit_charge())
  uint64_t memcg_uncharged_pages = 0; // pages uncharged: freed, reclaimed, or charge cancelled
  uint64_t memcg_stock_hits = 0;      // charges served by this CPU's stock (consume_stock())
  uint64_t memcg_counter_charges = 0; // counter charges (res_counter / page_counter try_charge)
  uint64_t memcg_counter_uncharges = 0;  // counter uncharges (uncharge batches, stock drains)
  uint64_t memcg_counter_locks = 0;   // res_counter: counter->lock acquisitions
  uint64_t memcg_counter_bounces = 0; // page_counter: atomics that pulled the line from another CPU
  uint64_t memcg_counter_wait_ns = 0; // page_counter: time atomics waited for the busy line
  uint64_t memcg_reclaim = 0;         // try_to_free_mem_cgroup_pages() calls (limit reached)
  uint64_t memcg_oom = 0;             // charges failed after reclaim: memcg OOM
  // ---- Contiguous allocation and migration (mm/cma.c, mm/migrate.c) ----
  uint64_t cma_alloc_success = 0;     // cma_alloc() calls that got their range
  uint64_t cma_alloc_fail = 0;        // ... that failed (no free range, or every range busy)
  uint64_t cma_alloc_retries = 0;     // alloc_contig_range() tries repeated after a busy page
  uint64_t pgmigrate_success = 0;     // pages migrated out of a range
  uint64_t pgmigrate_fail = 0;        // page migrations that failed (busy buffer head, ...)
  uint64_t bh_invalidate_ipis = 0;    // invalidate_bh_lru() IPIs sent (bh_invalidate all/cond/drain)
  uint64_t bh_lru_invalidated = 0;    // bh_lru entries dropped by invalidation or selected drops
  uint64_t bh_lru_drop_searches = 0;  // per-CPU bh_lru searches of bh_invalidate=selected
  // ---- Predictive reclaim, page cache, writeback, OOM (issue 6, seed 003) ----
  uint64_t kswapd_predicted_wakeups = 0;  // kswapd woken by the free-page trend (reclaim=predictive)
  uint64_t kswapd_low_wmark_hit_quickly = 0;  // woken during its HZ/10 nap
  uint64_t kswapd_high_wmark_hit_quickly = 0; // nap timed out, still balanced: full sleep
  uint64_t pgcache_miss = 0;          // page-cache misses read from the device
  uint64_t pgcache_drop = 0;          // clean page-cache pages dropped by reclaim
  uint64_t nr_writeback_pages = 0;    // page-cache pages written back (flusher, pageout, not fsync)
  uint64_t nr_vmscan_write = 0;       // ... of them by kswapd's pageout()
  uint64_t dirty_throttle_pauses = 0; // balance_dirty_pages() pauses of writers
  uint64_t reclaim_throttled = 0;     // direct reclaim rounds that waited for writeback
  uint64_t oom = 0;                   // OOM kills (mm/oom_kill.h): tasks ended by a failed allocation
  friend bool operator==(const VmCounters&, const VmCounters&) = default;
};

struct Stats {
  std::array<Histogram, kOpKindCount> op_latency;
  std::array<uint64_t, kOpKindCount> op_count{};
  VmCounters vm;
  // Direct reclaim stalls: from an allocation entering __alloc_pages_direct_reclaim() to its
  // return, ns, once per stalled allocation (the replay layer's "direct_reclaim").
  Histogram direct_reclaim;

  const Histogram& latency(OpKind k) const { return op_latency[static_cast<size_t>(k)]; }
  uint64_t count(OpKind k) const { return op_count[static_cast<size_t>(k)]; }
  void record_op(OpKind k, SimTime latency) {
    op_latency[static_cast<size_t>(k)].record(static_cast<uint64_t>(latency.count_ns()));
    ++op_count[static_cast<size_t>(k)];
  }
  friend bool operator==(const Stats&, const Stats&) = default;
};

}  // namespace mmreplay::kernelsim
