#include "kernelsim/mm/swap_readahead.h"

#include <algorithm>
#include <utility>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

uint32_t swapin_nr_pages(uint64_t prev_pfn, uint64_t pfn, uint32_t hits, uint32_t max_pages,
                         uint32_t prev_win) {
  uint32_t pages = hits + 2;
  if (pages == 2) {
    // No hits to judge by: read ahead only when this entry follows the last one.
    if (pfn != prev_pfn + 1 && pfn + 1 != prev_pfn) pages = 1;
  } else {
    uint32_t roundup = 4;
    while (roundup < pages) roundup <<= 1;
    pages = roundup;
  }
  pages = std::min(pages, max_pages);
  return std::max(pages, prev_win / 2);  // don't shrink readahead too fast
}

SwapRaWindow swap_ra_window(SwapReadahead mode, SwapRaState& state, uint64_t fpfn,
                            uint64_t vma_first, uint64_t vma_end) {
  const uint32_t cluster = uint32_t{1} << page_cluster;
  if (mode != SwapReadahead::kVma) {
    uint32_t pages = cluster;
    if (mode == SwapReadahead::kCluster) {
      const uint32_t hits = std::exchange(state.hits, 0);  // atomic_xchg(&swapin_readahead_hits)
      pages = swapin_nr_pages(state.pfn, fpfn, hits, cluster, state.win);
      if (hits == 0) state.pfn = fpfn;  // prev_offset, kept only where there were no hits
      state.win = pages;                // last_readahead_pages
    }
    // start_offset = offset & ~mask, end_offset = offset | mask: the aligned window.
    const uint64_t first = fpfn & ~uint64_t{pages - 1};
    return {std::max(first, vma_first), std::min(first + pages, vma_end)};
  }
  // swap_ra_info(): max_win = 1 << min(page_cluster, SWAP_RA_ORDER_CEILING).
  const uint32_t max_win = uint32_t{1} << std::min(page_cluster, SWAP_RA_ORDER_CEILING);
  const uint64_t prev = state.pfn;
  const uint32_t win = swapin_nr_pages(prev, fpfn, state.hits, max_win, state.win);
  state = SwapRaState{fpfn, win, 0};
  if (win == 1) return {fpfn, fpfn + 1};
  uint64_t lpfn = 0;
  uint64_t rpfn = 0;
  if (fpfn == prev + 1) {  // going up: the pages after it
    lpfn = fpfn;
    rpfn = fpfn + win;
  } else if (prev == fpfn + 1) {  // going down: the pages before it
    lpfn = fpfn >= win - 1 ? fpfn - (win - 1) : 0;
    rpfn = fpfn + 1;
  } else {  // around it
    const uint64_t left = (win - 1) / 2;
    lpfn = fpfn >= left ? fpfn - left : 0;
    rpfn = fpfn + win - left;
  }
  // swap_ra_clamp_pfn(): within the VMA and the fault's page table.
  const uint64_t pmd_pages = uint64_t{1} << (PMD_SHIFT - PAGE_SHIFT);
  const uint64_t pmd_first = fpfn & ~(pmd_pages - 1);
  return {std::max({lpfn, vma_first, pmd_first}), std::min({rpfn, vma_end, pmd_first + pmd_pages})};
}

void swap_ra_hit(SwapReadahead mode, SwapRaState& state, uint64_t pfn) {
  if (mode == SwapReadahead::kVma) {
    // SWAP_RA_VAL(addr, win, hits + 1): the hit's page is the one the next fault is compared with.
    state.hits = std::min(state.hits + 1, SWAP_RA_HITS_MAX);
    state.pfn = pfn;
  } else {
    ++state.hits;  // atomic_inc(&swapin_readahead_hits)
  }
}

}  // namespace mmreplay::kernelsim
