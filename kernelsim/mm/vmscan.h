// Page reclaim (mm/vmscan.c): kswapd and direct reclaim over the node's Lruvec (mm/lru.h).
//
// shrink_node() picks the lists to scan (get_scan_count(): anon only while swap has a free
// slot; the file lists hold lazyfree pages under lazyfree_lru=inactive-file), ages the active
// list when the inactive one is low (inactive_list_is_low(), shrink_active_list(): references
// cleared, pages deactivated), then shrink_inactive_list(): isolate SWAP_CLUSTER_MAX pages under
// lru_lock, shrink_page_list() without it, put the kept pages back under it. Per page:
//   - referenced (pte young): young cleared, page activated (second chance);
//   - clean lazyfree (pte lazyfree, not dirty): discarded; pte none; a later touch zero-fills;
//   - !PG_swapbacked but the pte was written since MADV_FREE: SetPageSwapBacked, active anon;
//   - anon: a swap slot (none free: activated), pageout() cost, pte becomes a swap entry;
// an unmapped page gets a TLB flush of its mm (ptep_clear_flush(), per page as before 4.3's
// batched unmap flush) and is freed to this CPU's pcp list.
//
// kswapd is a kernel thread on the last CPU, created at its first wakeup. wakeup_kswapd() wakes
// it when an allocation finds the zone at or below low; balance_pgdat() reclaims until free
// pages exceed high, then it sleeps (the HZ/10 nap is not modelled). After MAX_RECLAIM_RETRIES
// rounds without progress it gives up and is not woken again until direct reclaim makes
// progress (pgdat->kswapd_failures).

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Models try_to_free_pages(): one direct reclaim round of SWAP_CLUSTER_MAX pages by an
// allocating task; counts an allocstall. Returns the pages reclaimed.
// REQUIRES: t holds no spinlock.
Co<uint64_t> try_to_free_pages(Task& t);

// Models try_to_free_mem_cgroup_pages(): reclaim from one memcg's lruvec for a charge that hit
// the group's limit (mm/memcontrol.h); no allocstall is counted. Returns the pages reclaimed.
// REQUIRES: t holds no spinlock.
Co<uint64_t> try_to_free_mem_cgroup_pages(Task& t, uint32_t memcg, uint64_t nr_pages);

// Models wakeup_kswapd(). REQUIRES: called at a sync point of t (t.clock() == now()).
void wakeup_kswapd(Task& t);

}  // namespace mmreplay::kernelsim
