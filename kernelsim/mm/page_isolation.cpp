#include "kernelsim/mm/page_isolation.h"

#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

// Models mm/page_isolation.c: start_isolate_page_range()
Co<void> start_isolate_page_range(Task& t, uint64_t pfn, uint64_t n) {
  Simulation& sim = t.sim();
  PageAllocator& pa = sim.page_alloc();
  QSpinLock& lock = pa.zone().lock(pa.cma_nid());  // the CMA area's zone
  co_await lock.lock_irqsave(t);
  sim.cma().set_isolated(pfn, n, true);
  t.work(sim.costs().isolate_page_range);
  co_await lock.unlock_irqrestore(t);
}

// Models mm/page_isolation.c: undo_isolate_page_range()
void undo_isolate_page_range(Task& t, uint64_t pfn, uint64_t n) {
  t.sim().cma().set_isolated(pfn, n, false);
}

// Models mm/page_isolation.c: test_pages_isolated()
bool test_pages_isolated(Task& t, uint64_t pfn, uint64_t n) {
  return t.sim().cma().range_free(pfn, n);
}

}  // namespace mmreplay::kernelsim
