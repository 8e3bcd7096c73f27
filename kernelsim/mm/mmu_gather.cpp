#include "kernelsim/mm/mmu_gather.h"

#include <algorithm>

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

namespace {

// Models free_pages_and_swap_cache() -> release_pages() -> free_unref_page_list().
Co<void> free_gathered(Task& t, uint64_t pages, PageUse use) {
  PageAllocator& pa = t.sim().page_alloc();
  for (uint64_t i = 0; i < pages; ++i) {
    if (pa.free_page_fast(t, use)) co_await pa.free_pcppages_bulk(t);
  }
}

// Models tlb_flush_mmu_free(): the gathered user pages go batch by batch (struct
// mmu_gather_batch: the on-stack local batch of MMU_GATHER_BUNDLE pages, then batches of
// MAX_GATHER_BATCH) to free_pages_and_swap_cache(), each batch uncharged from its memcg
// (mem_cgroup_uncharge_gathered(): per batch or per pagevec, seed 001).
Co<void> free_gathered_user_pages(Task& t, Mm& mm, uint64_t pages) {
  uint64_t batch = MMU_GATHER_BUNDLE;
  while (pages != 0) {
    const uint64_t n = std::min(pages, batch);
    co_await mem_cgroup_uncharge_gathered(t, mm, n);
    co_await free_gathered(t, n, PageUse::kUser);
    pages -= n;
    batch = MAX_GATHER_BATCH;
  }
}

}  // namespace

Co<void> tlb_flush_mmu(Task& t, MmuGather& tlb) {
  if (tlb.need_flush()) {
    co_await flush_tlb_mm_range(
        t, FlushTlbInfo{&tlb.mm(), tlb.start(), tlb.end(), tlb.freed_tables()});
    tlb.reset_range();
  }
  uint64_t pages = 0;
  uint64_t tables = 0;
  tlb.take_queued(&pages, &tables);
  if (pages != 0) co_await free_gathered_user_pages(t, tlb.mm(), pages);
  if (tables != 0) co_await free_gathered(t, tables, PageUse::kPageTable);
}

Co<void> tlb_finish_mmu(Task& t, MmuGather& tlb) {
  co_await tlb_flush_mmu(t, tlb);
}

}  // namespace mmreplay::kernelsim
