#include "kernelsim/mm/page_alloc.h"

#include <algorithm>
#include <cassert>

#include "kernelsim/sim/simulation.h"

namespace mmreplay::kernelsim {

Zone::Zone(Simulation& sim, std::string zone_name, uint64_t managed, uint32_t nr_cpus)
    : name(std::move(zone_name)), managed_pages(managed), free_pages(managed),
      lock(sim, "&zone->lock"), pcp(nr_cpus) {}

PageAllocator::PageAllocator(Simulation& sim, uint64_t managed_pages, uint32_t nr_cpus)
    : sim_(sim), zone_(sim, "Normal", managed_pages, nr_cpus) {}

uint64_t PageAllocator::nr_free_pages() const {
  uint64_t n = zone_.free_pages;
  for (const PerCpuPages& p : zone_.pcp) n += p.count;
  return n;
}

void PageAllocator::check_invariant() const {
  assert(nr_free_pages() + allocated_ == zone_.managed_pages && "invariant (1)");
}

void PageAllocator::count(PageUse use, bool alloc) {
  VmCounters& vm = sim_.vm();
  if (use == PageUse::kUser) {
    ++(alloc ? vm.pages_alloc : vm.pages_free);
  } else {
    ++(alloc ? vm.pgtable_alloc : vm.pgtable_free);
  }
}

bool PageAllocator::alloc_page_fast(Task& t, PageUse use) {
  PerCpuPages& pcp = zone_.pcp[t.cpu().id];
  if (pcp.count == 0) return false;
  --pcp.count;
  ++allocated_;
  count(use, true);
  t.work(sim_.costs().pcp_alloc);
  return true;
}

Co<bool> PageAllocator::alloc_page_slow(Task& t, PageUse use) {
  co_await zone_.lock.lock(t);
  PerCpuPages& pcp = zone_.pcp[t.cpu().id];
  const uint64_t moved = std::min<uint64_t>(pcp.batch, zone_.free_pages);
  zone_.free_pages -= moved;
  pcp.count += static_cast<uint32_t>(moved);
  t.work(sim_.costs().buddy_page * static_cast<int64_t>(moved));
  ++sim_.vm().zone_lock_batches;
  co_await zone_.lock.unlock(t);
  check_invariant();
  co_return alloc_page_fast(t, use);
}

bool PageAllocator::free_page_fast(Task& t, PageUse use) {
  PerCpuPages& pcp = zone_.pcp[t.cpu().id];
  assert(allocated_ > 0);
  ++pcp.count;
  --allocated_;
  count(use, false);
  t.work(sim_.costs().pcp_free);
  return pcp.count > pcp.high;
}

Co<void> PageAllocator::free_pcppages_bulk(Task& t) {
  co_await zone_.lock.lock(t);
  PerCpuPages& pcp = zone_.pcp[t.cpu().id];
  const uint32_t moved = std::min(pcp.batch, pcp.count);
  pcp.count -= moved;
  zone_.free_pages += moved;
  t.work(sim_.costs().buddy_page * static_cast<int64_t>(moved));
  ++sim_.vm().zone_lock_batches;
  co_await zone_.lock.unlock(t);
  check_invariant();
}

}  // namespace mmreplay::kernelsim
