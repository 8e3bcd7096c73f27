#include "kernelsim/mm/madvise_cold.h"

#include <utility>
#include <vector>

#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmu_gather.h"
#include "kernelsim/mm/vmscan.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// The frame of the page the present pte p at addr maps, when no other pte maps it
// (page_mapcount() == 1), else kNoFrame: vm_normal_page() gives none for the zero page, and a
// pte still to be faulted from the swap cache is not present.
uint32_t exclusive_frame(Simulation& sim, const Mm& mm, const Vma& vma, uint64_t addr, uint8_t p) {
  if (!pte::is_mapped(p) || (p & (pte::kSwapCache | pte::kZeroPage | pte::kCowShared)))
    return kNoFrame;
  if (p & pte::kOwnPage) return sim.lruvec().find(mm, addr);
  if (!maps_page_cache(vma, p)) return kNoFrame;
  const uint32_t f = mapped_page_cache_frame(sim, vma, addr);
  return sim.page_cache().mapcount(f) == 1 ? f : kNoFrame;
}

// Models isolate_lru_page() of frame f (folio_isolate_lru() in 6.x): its lruvec's lru_lock with
// interrupts off, the page off its list. False when the page is not on a list (in a batch,
// isolated by reclaim) or was freed while this task waited for the lock.
Co<bool> isolate_lru_page(Task& t, uint32_t f) {
  Lruvec& lru = t.sim().lruvec();
  const uint32_t gen = lru.frame(f).gen;
  QSpinLock& lock = lru.lru_lock_of(lru.frame(f).nid, lru.frame(f).memcg);
  co_await lock.lock_irqsave(t);
  const bool isolated = lru.frame(f).gen == gen && lru.isolate_lru_page(f);
  if (isolated) t.work(t.sim().costs().lru_move_page);
  co_await lock.unlock_irqrestore(t);
  co_return isolated;
}

// Models reclaim_pages() of the pages one PTE page's walk isolated.
Co<void> reclaim_isolated(Task& t, std::vector<uint32_t>& isolated) {
  if (isolated.empty()) co_return;
  t.sim().vm().madv_pageout_reclaimed += co_await reclaim_pages(t, std::exchange(isolated, {}));
}

}  // namespace

bool madvise_is_cold_or_pageout(int advice) {
  return advice == MADV_COLD || advice == MADV_PAGEOUT;
}

Co<void> madvise_cold_or_pageout_vma(Task& t, Vma& vma, uint64_t start, uint64_t end, bool pageout,
                                     MmuGather& tlb) {
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  Lruvec& lru = sim.lruvec();
  Mm& mm = tlb.mm();
  co_await lru.lru_add_drain(t);
  std::vector<uint32_t> isolated;  // the kernel's page_list: the pages of one PTE page
  uint64_t isolated_pmd = 0;
  for (uint64_t addr = start; addr < end; addr += PAGE_SIZE) {
    addr = skip_pmd_none(t, vma, addr, end);
    // reclaim_pages() runs as each PTE page's walk ends (after pte_unmap_unlock()).
    if (!isolated.empty() && (addr == end || (addr >> PMD_SHIFT) != isolated_pmd))
      co_await reclaim_isolated(t, isolated);
    if (addr == end) break;
    const uint8_t p = vma.ptes.get(addr);
    const uint32_t f = exclusive_frame(sim, mm, vma, addr, p);
    if (f == kNoFrame) {
      t.work(c.pte_walk);
      continue;
    }
    t.work(c.pte_mkold);
    if (addr + kFramePrefetchPages * PAGE_SIZE < end)
      prefetch_anon_frame(sim, mm, addr + kFramePrefetchPages * PAGE_SIZE);
    if (p & pte::kYoung) {
      vma.ptes.ref(addr) = static_cast<uint8_t>(p & ~pte::kYoung);
      tlb.tlb_adjust_range(addr);  // tlb_remove_tlb_entry()
    }
    lru.frame(f).referenced = false;  // ClearPageReferenced()
    if (!pageout) {
      ++sim.vm().madv_cold_pages;
      co_await lru.deactivate_page(t, f);
      continue;
    }
    if (co_await isolate_lru_page(t, f)) {
      ++sim.vm().madv_pageout_pages;
      isolated.push_back(f);
      isolated_pmd = addr >> PMD_SHIFT;
    }
  }
  co_await reclaim_isolated(t, isolated);
}

}  // namespace mmreplay::kernelsim
