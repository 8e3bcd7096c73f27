// How big a CPU's pcp list may grow, and how many pages a refill takes and a drain gives back
// (mm/page_alloc.c: zone_highsize(), nr_pcp_high(), nr_pcp_free(), nr_pcp_alloc(),
// decay_pcp_high()), for each era of the `pcp_high` policy (policy/kernel_config.h):
//
//   batch  before 5.14: high = 6 x batch; a refill takes batch pages, a drain gives batch back.
//   wmark  5.14-6.6: high = the zone's low watermark / the node's CPUs, at least 4 x batch, so
//          that full lists never wake kswapd early; a drain gives back batch << free_factor
//          (free_factor counts drains since the last allocation, up to high - batch) and, while
//          kswapd reclaims (ZONE_RECLAIM_ACTIVE), the list keeps at most 4 x batch.
//   auto   6.7+: high moves between high_min (as wmark) and high_max (managed / 8 / the node's
//          CPUs): a refill raises it by what it takes unless free pages are below the high
//          watermark (ZONE_BELOW_HIGH); a free that finds the list full raises it to hold the
//          frees in a row (free_count) plus a batch; below the high watermark or under reclaim
//          each drain lowers it again; and every second vmstat_update() takes an eighth off
//          (decay_pcp_high()). Refills double (alloc_factor) while allocations run on without a
//          free, drains grow with free_count; both at most batch << PCP_BATCH_SCALE_MAX.
//
// Known simplifications: one list per CPU (the kernel's per migratetype and order); the decay
// runs at the CPU's next allocation or free after its second is up, not from a kworker, and its
// drain moves the pages without zone->lock or time charged (the kworker's, not the task's).

#pragma once

#include <cstdint>

#include "kernelsim/policy/kernel_config.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

struct PerCpuPages;
struct Zone;

// Models zone_highsize(): `total_pages` split over `nr_split_cpus`, at least batch << 2.
uint32_t zone_highsize(uint64_t total_pages, uint32_t nr_split_cpus, uint32_t batch);

// Models zone_set_pageset_high_and_batch() for one CPU of a node whose zone has `managed` pages
// and low watermark `low_wmark` (pages), with `node_cpus` CPUs.
void pcp_set_high_and_batch(PerCpuPages& pcp, PcpHighMode mode, uint32_t batch, uint64_t managed,
                            uint64_t low_wmark, uint32_t node_cpus);

// Models the bookkeeping of rmqueue_pcplist() at an allocation: the frees in a row are over.
void pcp_note_alloc(PerCpuPages& pcp, PcpHighMode mode);
// Models the bookkeeping of free_unref_page_commit() after the page is on the list, and
// nr_pcp_high(): returns how many pages to give back to the zone now, 0 for none.
uint32_t pcp_note_free(PerCpuPages& pcp, PcpHighMode mode, const Zone& zone);
// Models nr_pcp_alloc(): how many pages a refill of the empty list asks rmqueue_bulk() for.
uint32_t nr_pcp_alloc(PerCpuPages& pcp, PcpHighMode mode, const Zone& zone);
// Models decay_pcp_high() for every vmstat interval up to `now` since the last one (auto only):
// returns how many pages leave the list for the zone.
uint32_t decay_pcp_high(PerCpuPages& pcp, SimTime now);

}  // namespace mmreplay::kernelsim
