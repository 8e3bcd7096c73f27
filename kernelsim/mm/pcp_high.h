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

#include "kernelsim/constants.h"
#include "kernelsim/policy/kernel_config.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

// struct per_cpu_pages. The list is LIFO (rmqueue_pcplist() takes its head, free_unref_page()
// adds there, free_pcppages_bulk() and rmqueue_bulk() work at its tail): the `hot` pages at its
// head were freed on this CPU and are what the next allocations get, still in the CPU's caches;
// the rest came from the buddy lists in a refill, cold. The pcp lists exist to hand out such hot
// pages (the "hot/cold" lists of 2.6, __GFP_COLD until 4.15). On the PVM guest of December 2026
// a first write to each page of a fresh 64-page mapping, unmapped and mapped again 9 times, took
// 650-740 ns (the pages come back off the list), 820 ns for 2,048 pages, 1.1-1.55 us for 4,096.
// From 6.7 a list may hold tens of thousands of pages (high 49-57K on that 6.18 guest), more
// than the caches keep: `hot` counts at most the cost profile's pcp_hot_window of them, the
// last ones freed, which with a LIFO list are the first ones allocated again. How high may grow
// is the `pcp_high` policy's (above).
struct PerCpuPages {
  uint32_t count = 0;
  uint32_t hot = 0;  // of count: freed on this CPU, at the list's head, still in its caches
  uint32_t high = PCP_HIGH;
  uint32_t batch = PCP_BATCH;
  uint32_t high_min = PCP_HIGH;  // 5.14+: zone_highsize() of the low watermark
  uint32_t high_max = PCP_HIGH;  // 6.7+: zone_highsize() of managed / 8; high_min before
  uint32_t free_count = 0;       // 6.7+: frees in a row, halved by each allocation
  uint8_t free_factor = 0;       // 5.14-6.6: drains in a row (each doubles the next)
  uint8_t alloc_factor = 0;      // 6.7+: refills in a row (each doubles the next)
  SimTime next_decay = SimTime::ns(VMSTAT_INTERVAL_NS);  // 6.7+: the next decay_pcp_high()
};

// The bits of zone->flags the pcp lists read.
struct ZoneFlags {
  // ZONE_RECLAIM_ACTIVE: kswapd is in balance_pgdat() (set_reclaim_active()).
  bool reclaim_active = false;
  // ZONE_BELOW_HIGH (6.7+): an allocation found free pages at or below the high watermark; a
  // drain that leaves them above it clears it.
  bool below_high = false;
};

// Models zone_highsize(): `total_pages` split over `nr_split_cpus`, at least batch << 2.
uint32_t zone_highsize(uint64_t total_pages, uint32_t nr_split_cpus, uint32_t batch);

// Models zone_set_pageset_high_and_batch() for one CPU of a node whose zone has `managed` pages
// and low watermark `low_wmark` (pages), with `node_cpus` CPUs.
void pcp_set_high_and_batch(PerCpuPages& pcp, PcpHighMode mode, uint32_t batch, uint64_t managed,
                            uint64_t low_wmark, uint32_t node_cpus);

// Models the bookkeeping of rmqueue_pcplist() at an allocation: the frees in a row are over
// ("On allocation, reduce the number of pages that are batch freed").
inline void pcp_note_alloc(PerCpuPages& pcp, PcpHighMode mode) {
  if (mode == PcpHighMode::kWatermark) pcp.free_factor >>= 1;
  if (mode == PcpHighMode::kAuto) pcp.free_count >>= 1;
}

// nr_pcp_high() and nr_pcp_free() for a list that may have reached its high mark.
uint32_t pcp_free_over_high(PerCpuPages& pcp, PcpHighMode mode, const ZoneFlags& zone);

// Models the bookkeeping of free_unref_page_commit() after the page is on the list, and
// nr_pcp_high(): returns how many pages to give back to the zone now, 0 for none. Inline for
// the common case, a list under its high mark in a zone neither reclaiming nor short.
inline uint32_t pcp_note_free(PerCpuPages& pcp, PcpHighMode mode, const ZoneFlags& zone) {
  if (mode == PcpHighMode::kAuto) {
    // "On freeing, reduce the number of pages that are batch allocated."
    pcp.alloc_factor >>= 1;
    if (pcp.free_count < (pcp.batch << PCP_BATCH_SCALE_MAX)) ++pcp.free_count;
    // nr_pcp_high() then changes nothing and returns high.
    if (pcp.count < pcp.high && !zone.reclaim_active && !zone.below_high) return 0;
  }
  return pcp_free_over_high(pcp, mode, zone);
}

// Models nr_pcp_alloc(): how many pages a refill of the empty list asks rmqueue_bulk() for.
uint32_t nr_pcp_alloc(PerCpuPages& pcp, PcpHighMode mode, const ZoneFlags& zone);
// Models decay_pcp_high() for every vmstat interval up to `now` since the last one (auto only):
// returns how many pages leave the list for the zone.
uint32_t decay_pcp_high(PerCpuPages& pcp, SimTime now);

}  // namespace mmreplay::kernelsim
