// Page reclaim (mm/vmscan.c): kswapd and direct reclaim over the node's Lruvec (mm/lru.h).
//
// shrink_node() picks the lists to scan (get_scan_count(): anon only while swap has a free
// slot, and not at all while the inactive file list is large and not low, SCAN_FILE; the file
// lists hold lazyfree pages under lazyfree_lru=inactive-file), ages the active
// list when the inactive one is low (inactive_list_is_low(), shrink_active_list(): references
// cleared, pages deactivated), then shrink_inactive_list(): isolate SWAP_CLUSTER_MAX pages under
// lru_lock, shrink_page_list() without it, put the kept pages back under it. Per page:
//   - referenced (pte young): young cleared, page activated (second chance);
//   - clean lazyfree (pte lazyfree, not dirty): discarded; pte none; a later touch zero-fills;
//     not under lazyfree_pgdirty=kept (the 2015 series) when the page came back from swap
//     (PG_dirty): then swapped like any anon page;
//   - !PG_swapbacked but the pte was written since MADV_FREE: SetPageSwapBacked, active anon;
//   - anon: a swap slot (none free: activated), pageout() cost, pte becomes a swap entry;
// an unmapped page gets a TLB flush of its mm (ptep_clear_flush(), per page as before 4.3's
// batched unmap flush) and is freed to this CPU's pcp list.
//
// NUMA nodes (mm/lru.h): reclaim scans node by node (shrink_zones()), the allocating task's node
// first; kswapd starts each round one node further on.
//
// kswapd is a kernel thread on the last CPU, created at its first wakeup. wakeup_kswapd() wakes
// it when an allocation finds the zone at or below low; balance_pgdat() reclaims until free
// pages exceed high, then kswapd_try_to_sleep() naps for HZ/10 (KSWAPD_NAP_NS) and, if still
// balanced when the nap times out, sleeps until the next wakeup; a wakeup during the nap sends it
// straight back to balance_pgdat() (KSWAPD_LOW_WMARK_HIT_QUICKLY). After MAX_RECLAIM_RETRIES
// rounds without progress it gives up and is not woken again until direct reclaim makes
// progress (pgdat->kswapd_failures). Under reclaim=predictive (seed 003, vmscan_predict.h) the
// free-page trend can wake it earlier and keep it from sleeping.
//
// Page-cache pages (mm/filemap.h) on the file lists: a clean one is dropped (its buffer heads
// freed, or the page kept while one is busy); a dirty one is written by kswapd's pageout() (the
// write is queued on the device and the page stays on the inactive list until it completes) and
// skipped by direct reclaim, which wakes the flusher instead (as since 3.2); a page under
// writeback is kept. A dirty page read or written since reclaim last looked (PG_referenced,
// mark_page_accessed()) is kept by kswapd too, unwritten, for one more trip
// (PAGEREF_RECLAIM_CLEAN).

#pragma once

#include <cstdint>
#include <vector>

#include "kernelsim/mm/vmscan_predict.h"
#include "kernelsim/sim/co.h"
#include "kernelsim/sim/event_queue.h"

namespace mmreplay::kernelsim {

class Task;
class Simulation;

// Models try_to_free_pages(): one direct reclaim round of SWAP_CLUSTER_MAX pages by an
// allocating task; counts an allocstall. Returns the pages reclaimed; *throttled (if given) tells
// whether the round met dirty or writeback pages (it then waited for writeback when it freed none).
// REQUIRES: t holds no spinlock.
Co<uint64_t> try_to_free_pages(Task& t, bool* throttled = nullptr);

// Models try_to_free_mem_cgroup_pages(): reclaim from one memcg's lruvec for a charge that hit
// the group's limit (mm/memcontrol.h); no allocstall is counted. Returns the pages reclaimed.
// REQUIRES: t holds no spinlock.
Co<uint64_t> try_to_free_mem_cgroup_pages(Task& t, uint32_t memcg, uint64_t nr_pages);

// Models reclaim_pages() (5.4+, MADV_PAGEOUT): shrink_page_list() of pages the caller isolated
// (Lruvec::isolate_lru_page()), their references ignored; the pages it keeps go back to the
// inactive lists (the active ones when activated). An anon page written to a block device stays
// in the swap cache, unmapped (pte::kSwapCache), for a later reclaim to free; one on a
// synchronous device (zram) is freed at once. Returns the pages freed or unmapped into the swap
// cache.
// REQUIRES: t holds no spinlock; each frame isolated by the caller.
Co<uint64_t> reclaim_pages(Task& t, const std::vector<uint32_t>& isolated);

// What shrink_page_list() does with one isolated page.
// kWaitWriteback: a memcg's reclaim found the page under writeback and waits for it (cgroup v1).
// kKeepUnmapped: written to swap and unmapped, kept in the swap cache (reclaim_pages()).
enum class PageOutcome : uint8_t { kFreed, kActivate, kKeep, kGone, kWaitWriteback, kKeepUnmapped };

struct PageFrame;

// Models page_check_references() once page_referenced() has counted (and cleared) the ptes that
// referenced the page since the last scan: kFreed when reclaim may go on (PAGEREF_RECLAIM, or
// PAGEREF_RECLAIM_CLEAN when *reclaim_clean is set: a file page no pte referenced but that had
// PG_referenced, from mark_page_accessed(), is reclaimed only if clean). Not referenced, the
// page is reclaimed. Referenced, a swap-backed page is activated at once before
// 5.9 (`look_twice` false: anon_lru=active-first); otherwise it gets PG_referenced and is
// activated when it had it already, when more than one pte referenced it, or when an executable
// mapping did, and else stays on the inactive list for one more trip (PAGEREF_KEEP): mapped file
// pages always, anon pages from 5.9 (b518154e59aa).
PageOutcome page_check_references(PageFrame& pf, uint32_t referenced_ptes, bool exec,
                                  bool look_twice, bool* reclaim_clean = nullptr);

// Models wakeup_kswapd(). Returns true when it woke (or created) kswapd.
// REQUIRES: called at a sync point of t (t.clock() == now()).
bool wakeup_kswapd(Task& t);

// The kswapd fields of pg_data_t the model adds: the nap timer, and the predictive state.
class KswapdData final : public EventTarget {
 public:
  KswapdData(Simulation& sim, uint32_t lookback) : sim_(sim), trend(lookback) {}
  // The HZ/10 nap timer (schedule_timeout()): `arg` is the nap it belongs to.
  void fire(uint64_t arg) override;

  Simulation& sim_;
  FreePageTrend trend;
  ReclaimRate rate;
  uint64_t nap_seq = 0;  // bumped at each nap; a timer of an older nap does nothing
  bool napping = false;  // in the HZ/10 nap, not woken yet
  bool waiting = false;  // asleep in kswapd_try_to_sleep() (not in an I/O wait): wakeable
  bool nap_timed_out = false;
  // The model has one kswapd for all nodes (the kernel one per node): each balance_pgdat() round
  // scans the nodes from this one, which moves on by one per round.
  uint32_t next_nid = 0;
};

}  // namespace mmreplay::kernelsim
