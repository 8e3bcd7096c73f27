// Swap-in readahead (mm/swap_state.c): how many pages around a swapped page one read brings in,
// and where. Three eras (policy swap_readahead):
//   - cluster-fixed (before 3.15): swapin_readahead() reads the whole aligned page-cluster
//     (2^page_cluster slots) around the entry, whatever came of the last window;
//   - cluster (3.15-4.13, 579f82901f6f): swapin_nr_pages() sizes that aligned window from the
//     readahead pages found in the swap cache since the last swap-in, device-wide: none found
//     and not next to the last entry reads one page; found, a power of two of at least 4; and a
//     window never shrinks to below half the last one;
//   - vma (4.14+, ec560175c0b6): swap_vma_readahead() keeps the same sizing per VMA
//     (vma->swap_readahead_info: the last fault's page, its window, the hits since) and places
//     the window after the fault when the faults go up, before it when they go down, around it
//     otherwise, within the VMA and the fault's page table.
// The model has no swap offsets: the cluster eras take a page's virtual page number for its
// offset (aligned as the offset would be), as reclaim writing a region in order would lay its
// slots out.

#pragma once

#include <cstdint>

#include "kernelsim/constants.h"
#include "kernelsim/policy/kernel_config.h"

namespace mmreplay::kernelsim {

// What readahead remembers between swap-ins: a VMA's swap_readahead_info (vma), or the device's
// swapin_readahead_hits, prev_offset and last_readahead_pages (cluster).
struct SwapRaState {
  uint64_t pfn = 0;  // the last fault's page (vma: or the last hit's); cluster: the last offset
                     // sized without hits
  uint32_t win = 0;  // the last window
  // Readahead pages found in the swap cache since; a VMA and the device start at
  // SWAP_RA_INITIAL_HITS, so a first swap-in reads a whole window.
  uint32_t hits = SWAP_RA_INITIAL_HITS;
};

// Models __swapin_nr_pages() (mm/swap_state.c): the window of a swap-in at `pfn`.
uint32_t swapin_nr_pages(uint64_t prev_pfn, uint64_t pfn, uint32_t hits, uint32_t max_pages,
                         uint32_t prev_win);

// Pages [first, end) one swap-in read covers.
struct SwapRaWindow {
  uint64_t first = 0;
  uint64_t end = 0;
};

// The window of a swap-in at page `fpfn` of a VMA of pages [vma_first, vma_end), and the state it
// leaves (swap_ra_info() for vma, swapin_nr_pages() and swap_cluster_readahead() for cluster).
// REQUIRES: vma_first <= fpfn < vma_end.
SwapRaWindow swap_ra_window(SwapReadahead mode, SwapRaState& state, uint64_t fpfn,
                            uint64_t vma_first, uint64_t vma_end);

// A page readahead brought in, found in the swap cache by the fault at `pfn`
// (swap_cache_get_folio(), lookup_swap_cache()).
void swap_ra_hit(SwapReadahead mode, SwapRaState& state, uint64_t pfn);

}  // namespace mmreplay::kernelsim
