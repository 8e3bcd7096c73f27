#include "kernelsim/mm/alloc_contig.h"

#include "kernelsim/fs/bh_invalidate.h"
#include "kernelsim/kernel/thread.h"
#include "kernelsim/mm/migrate.h"
#include "kernelsim/mm/page_isolation.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models mm/page_alloc.c: __alloc_contig_migrate_range()
Co<int64_t> alloc_contig_migrate_range(Task& t, uint64_t pfn, uint64_t n) {
  Simulation& sim = t.sim();
  for (uint32_t tries = 1;; ++tries) {
    if (co_await migrate_range(t, pfn, n) == 0) co_return 0;
    if (tries == ALLOC_CONTIG_MIGRATE_TRIES) co_return -ERRNO_EBUSY;
    ++sim.vm().cma_alloc_retries;
    co_await do_sleep(t, sim.costs().cma_retry_backoff);
  }
}

}  // namespace

// Models mm/page_alloc.c: alloc_contig_range()
Co<int64_t> alloc_contig_range(Task& t, uint64_t pfn, uint64_t n) {
  Simulation& sim = t.sim();
  const BhInvalidateMode mode = sim.config().bh_invalidate;
  co_await start_isolate_page_range(t, pfn, n);
  if (mode == BhInvalidateMode::kDrain) {
    // lru_cache_disable() -> __lru_add_drain_all(force_all_cpus): every CPU runs
    // lru_add_and_bh_lrus_drain(); modelled with the IPI delivery of the other invalidations.
    sim.buffers().set_lru_cache_disabled(true);
    co_await invalidate_bh_lrus(t, /*only_holding=*/false);
  } else if (mode == BhInvalidateMode::kAll || mode == BhInvalidateMode::kCond) {
    // Seed 004: "if (migratetype == MIGRATE_CMA || migratetype == MIGRATE_MOVABLE)
    // invalidate_bh_lrus();" right before __alloc_contig_migrate_range().
    co_await invalidate_bh_lrus(t, /*only_holding=*/mode == BhInvalidateMode::kCond);
  }
  int64_t ret = co_await alloc_contig_migrate_range(t, pfn, n);
  if (ret == 0 && !test_pages_isolated(t, pfn, n))
    ret = -ERRNO_EBUSY;  // a page came back meanwhile
  if (ret == 0 && !co_await sim.page_alloc().alloc_contig_pages(t, n)) ret = -ERRNO_ENOMEM;
  undo_isolate_page_range(t, pfn, n);
  if (mode == BhInvalidateMode::kDrain)
    sim.buffers().set_lru_cache_disabled(false);  // lru_cache_enable()
  co_return ret;
}

}  // namespace mmreplay::kernelsim
