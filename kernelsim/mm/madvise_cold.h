// MADV_COLD and MADV_PAGEOUT (5.4+: 9c276cc65a58, 1a4e58cce84e; mm/madvise.c: madvise_cold(),
// madvise_pageout(), madvise_cold_or_pageout_pte_range()).
//
// Both run under mmap_sem for read (madvise_need_mmap_write() is false for them), per VMA after
// lru_add_drain(), into the caller's mmu_gather. The walk looks at each present pte whose page
// only it maps (page_mapcount() == 1: not the zero page, not a fork-shared page, a page-cache page
// with one mapper; a pte still to be faulted from the swap cache is a swap entry to the kernel):
//   - a young pte is made old (ptep_get_and_clear_full(), pte_mkold(), tlb_remove_tlb_entry():
//     flushed when the gather finishes), and the page loses PG_referenced;
//   - MADV_COLD: deactivate_page(): an active page goes to the head of its inactive list
//     (Lruvec::deactivate_page(), through this CPU's lru_deactivate batch);
//   - MADV_PAGEOUT: isolate_lru_page() under its lruvec's lock, then, once per PTE page,
//     reclaim_pages() (mm/vmscan.h) with the references ignored: an anon page is written to swap
//     and unmapped (with no free slot it is activated), a clean lazyfree page discarded, a clean
//     page-cache page dropped, a dirty one left to the flusher. On a block device the written page
//     stays in the swap cache until a later reclaim frees it, so touching it again takes a minor
//     fault; on zram it is freed at once.
// Known simplifications: no THP to split; 6.x's can_do_file_pageout() is taken as true (the caller
// owns or may write every file it maps, as root may); a page whose write is still in flight is
// found in the swap cache at once (the kernel's fault waits for the write and counts as major).

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;
class MmuGather;
struct Vma;

// Whether `advice` is MADV_COLD or MADV_PAGEOUT.
bool madvise_is_cold_or_pageout(int advice);

// Models madvise_cold() / madvise_pageout() on [start, end) of vma into `tlb`.
// REQUIRES: mmap_sem of tlb.mm() held for read; [start, end) inside vma, page aligned.
Co<void> madvise_cold_or_pageout_vma(Task& t, Vma& vma, uint64_t start, uint64_t end, bool pageout,
                                     MmuGather& tlb);

}  // namespace mmreplay::kernelsim
