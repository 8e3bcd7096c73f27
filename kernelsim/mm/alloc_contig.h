// alloc_contig_range() (mm/page_alloc.c): make a pfn range of the CMA area free and take it.
//
//   isolate the range (mm/page_isolation.h)
//   bh_invalidate=all|cond: invalidate_bh_lrus() (seed 004's patch, before the migration)
//   bh_invalidate=drain:    lru_cache_disable(): every other CPU drains its LRU caches and
//                           bh_lru (5.13+), installs are skipped until lru_cache_enable()
//   __alloc_contig_migrate_range(): migrate the used pages (mm/migrate.h); while some are busy,
//     back off (CostProfile::cma_retry_backoff, off CPU) and try again, ALLOC_CONTIG_MIGRATE_TRIES
//     tries in all, then -EBUSY
//   test_pages_isolated(), then take the pages from the zone (isolate_freepages_range())
//   undo the isolation
// Returns 0, -EBUSY (a page stayed busy) or -ENOMEM (the zone had too few free pages).

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Models mm/page_alloc.c: alloc_contig_range(start, start + n, MIGRATE_CMA).
// REQUIRES: [pfn, pfn + n) inside the CMA area with its bitmap bits set by the caller.
Co<int64_t> alloc_contig_range(Task& t, uint64_t pfn, uint64_t n);

}  // namespace mmreplay::kernelsim
