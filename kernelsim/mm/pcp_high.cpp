#include "kernelsim/mm/pcp_high.h"

#include <algorithm>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

uint32_t zone_highsize(uint64_t total_pages, uint32_t nr_split_cpus, uint32_t batch) {
  const uint64_t high = total_pages / std::max(nr_split_cpus, 1u);
  return static_cast<uint32_t>(
      std::max<uint64_t>(high, uint64_t{batch} << PCP_HIGH_MIN_BATCHES_SHIFT));
}

void pcp_set_high_and_batch(PerCpuPages& pcp, PcpHighMode mode, uint32_t batch, uint64_t managed,
                            uint64_t low_wmark, uint32_t node_cpus) {
  pcp.batch = std::max(batch, 1u);
  if (mode == PcpHighMode::kBatch) {
    pcp.high = pcp.high_min = pcp.high_max = PCP_HIGH_BATCHES * batch;  // pageset_set_batch()
    return;
  }
  // By default the high value is based on the low watermark, "so that if they are full then
  // background reclaim will not be started prematurely" (zone_highsize()).
  pcp.high_min = zone_highsize(low_wmark, node_cpus, pcp.batch);
  pcp.high_max =
      mode == PcpHighMode::kAuto
          ? zone_highsize(managed / MIN_PERCPU_PAGELIST_HIGH_FRACTION, node_cpus, pcp.batch)
          : pcp.high_min;
  pcp.high = std::clamp(pcp.high, pcp.high_min, pcp.high_max);
}

namespace {

// Models nr_pcp_high() of 6.7+: the count at which this free drains, tuning pcp.high on the way.
uint32_t nr_pcp_high_auto(PerCpuPages& pcp, const ZoneFlags& zone) {
  const uint32_t high = pcp.high = std::clamp(pcp.high, pcp.high_min, pcp.high_max);
  if (high == 0) return 0;
  const uint32_t free_count = std::max(pcp.free_count, pcp.batch);
  const auto lowered = [&] {
    return high > free_count ? std::max(high - free_count, pcp.high_min) : pcp.high_min;
  };
  // "If reclaim is active, limit the number of pages that can be stored on pcp lists."
  if (zone.reclaim_active) {
    pcp.high = lowered();
    return std::min(pcp.batch << PCP_HIGH_MIN_BATCHES_SHIFT, pcp.high);
  }
  if (pcp.high_min == pcp.high_max) return high;
  if (zone.below_high) {
    pcp.high = lowered();
    return std::max(pcp.count, pcp.high_min);
  }
  if (pcp.count >= high) {
    // "pcp->high should be large enough to hold batch freed pages"
    const uint32_t need_high = pcp.free_count + pcp.batch;
    if (pcp.high < need_high) pcp.high = std::clamp(need_high, pcp.high_min, pcp.high_max);
  }
  return high;
}

// Models nr_pcp_free(): how many pages a drain at `high` gives back, leaving at least a batch.
uint32_t nr_pcp_free(PerCpuPages& pcp, PcpHighMode mode, uint32_t high) {
  if (high < pcp.batch) return 1;  // "Check for PCP disabled or boot pageset"
  const uint32_t min_nr_free = pcp.batch;
  const uint32_t max_nr_free = std::max(high - pcp.batch, min_nr_free);
  if (mode == PcpHighMode::kAuto) return std::clamp(pcp.free_count, min_nr_free, max_nr_free);
  // 5.14-6.6: "Double the number of pages freed each time there is subsequent freeing of pages
  // without any allocation."
  const uint64_t batch = uint64_t{pcp.batch} << pcp.free_factor;
  if (batch < max_nr_free) ++pcp.free_factor;
  return static_cast<uint32_t>(std::clamp<uint64_t>(batch, min_nr_free, max_nr_free));
}

}  // namespace

uint32_t pcp_free_over_high(PerCpuPages& pcp, PcpHighMode mode, const ZoneFlags& zone) {
  switch (mode) {
    case PcpHighMode::kBatch:
      // The model drains above high where the kernel drains at it (free_hot_cold_page(): count
      // >= high), as it always has: the seeds' figures were taken so.
      return pcp.count > pcp.high ? pcp.batch : 0;
    case PcpHighMode::kWatermark: {
      const uint32_t high = zone.reclaim_active
                                ? std::min(pcp.batch << PCP_HIGH_MIN_BATCHES_SHIFT, pcp.high)
                                : pcp.high;
      return pcp.count >= high ? nr_pcp_free(pcp, mode, high) : 0;
    }
    case PcpHighMode::kAuto: {  // pcp_note_free() did the bookkeeping
      const uint32_t high = nr_pcp_high_auto(pcp, zone);
      return pcp.count >= high ? nr_pcp_free(pcp, mode, high) : 0;
    }
  }
  return 0;
}

uint32_t nr_pcp_alloc(PerCpuPages& pcp, PcpHighMode mode, const ZoneFlags& zone) {
  if (mode != PcpHighMode::kAuto) return pcp.batch;  // rmqueue_bulk(zone, 0, pcp->batch, ...)
  const uint32_t base_batch = pcp.batch;
  uint32_t high = pcp.high = std::clamp(pcp.high, pcp.high_min, pcp.high_max);
  if (high < base_batch) return 1;  // "Check for PCP disabled or boot pageset"
  uint32_t batch = base_batch << pcp.alloc_factor;
  // "If we had larger pcp->high, we could avoid to allocate from zone."
  if (pcp.high_min != pcp.high_max && !zone.below_high) {
    high = pcp.high = std::min(high + batch, pcp.high_max);
  }
  const int64_t room = int64_t{high} - pcp.count - base_batch;
  const uint32_t max_nr_alloc = static_cast<uint32_t>(std::max<int64_t>(room, base_batch));
  // "Double the number of pages allocated each time there is subsequent allocation of order-0
  // pages without any freeing."
  if (batch <= max_nr_alloc && pcp.alloc_factor < PCP_BATCH_SCALE_MAX) ++pcp.alloc_factor;
  return std::min(batch, max_nr_alloc);
}

uint32_t decay_pcp_high(PerCpuPages& pcp, SimTime now) {
  const SimTime interval = SimTime::ns(VMSTAT_INTERVAL_NS);
  uint32_t drained = 0;
  while (now >= pcp.next_decay) {
    pcp.next_decay += interval;
    // "Decrease pcp->high periodically to try to free possible idle PCP pages. And, avoid to
    // free too many pages to control latency. This caps pcp->high decrement too."
    if (pcp.high > pcp.high_min) {
      const int64_t by_count = int64_t{pcp.count} - (int64_t{pcp.batch} << PCP_BATCH_SCALE_MAX);
      pcp.high = static_cast<uint32_t>(std::max<int64_t>(
          {by_count, int64_t{pcp.high} - (pcp.high >> 3), int64_t{pcp.high_min}}));
    }
    if (pcp.count > pcp.high) {
      drained += pcp.count - pcp.high;
      pcp.count = pcp.high;
    }
    // Seconds with nothing left to do need not be stepped one by one.
    if (pcp.high <= pcp.high_min && now >= pcp.next_decay) {
      const int64_t behind = (now - pcp.next_decay).count_ns() / VMSTAT_INTERVAL_NS + 1;
      pcp.next_decay += interval * behind;
    }
  }
  return drained;
}

}  // namespace mmreplay::kernelsim
