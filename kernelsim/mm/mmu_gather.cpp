#include "kernelsim/mm/mmu_gather.h"

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/sim/simulation.h"

namespace mmreplay::kernelsim {

namespace {

// Models free_pages_and_swap_cache() -> release_pages() -> free_unref_page_list().
Co<void> free_gathered(Task& t, uint64_t pages, PageUse use) {
  PageAllocator& pa = t.sim().page_alloc();
  for (uint64_t i = 0; i < pages; ++i) {
    if (pa.free_page_fast(t, use)) co_await pa.free_pcppages_bulk(t);
  }
}

}  // namespace

Co<void> tlb_flush_mmu(Task& t, MmuGather& tlb) {
  if (tlb.need_flush()) {
    co_await flush_tlb_mm_range(t, FlushTlbInfo{&tlb.mm(), tlb.start(), tlb.end(), tlb.freed_tables()});
    tlb.reset_range();
  }
  uint64_t pages = 0;
  uint64_t tables = 0;
  tlb.take_queued(&pages, &tables);
  if (pages != 0) co_await free_gathered(t, pages, PageUse::kUser);
  if (tables != 0) co_await free_gathered(t, tables, PageUse::kPageTable);
}

Co<void> tlb_finish_mmu(Task& t, MmuGather& tlb) {
  co_await tlb_flush_mmu(t, tlb);
}

}  // namespace mmreplay::kernelsim
