// Knob `madv_free` (knob_table.cpp): what MADV_FREE does (seed 000, "mm: throttle MADV_FREE").
//   lazy          the series as seed 000 measured it (mmotm, February 2015): pages stay mapped,
//                 dirty/young cleared, marked lazyfree; reclaim may discard them while clean; a
//                 write makes them normal again. Swap entries in the range are left alone
//                 (`if (!pte_present(ptent)) continue;`), so the next touch swaps them in.
//   as-dontneed   MADV_FREE behaves as MADV_DONTNEED (the 4.5-4.11 swapless fallback, and what
//                 allocators do on kernels without MADV_FREE).
//   throttled     seed 000 RFC 1/4 (Minchan Kim, 2015): when free pages (nr_free_pages(), with
//                 ZONE_DMA's reserved free pages) are at or below 1.5 x min_free_kbytes (in
//                 pages) act as DONTNEED, else lazy.
//   free-swapped  lazy, plus free_swap_and_cache() + pte_clear_not_present_full() for swap
//                 entries in the range: seed 000's quick fix ("mm: free swp_entry in
//                 madvise_free"), in mmotm from March 2015 (Andrew Morton's roll-up of the series,
//                 linux-mm, 9 April 2015) and so in MADV_FREE as merged (4.5, 854e9ed09ded) and
//                 every kernel since. The model's default: 6.18 on the development machine swapped
//                 in 144 pages where `lazy` predicts 256,565 (madv-bomb, 4 x 128 MiB x 5 under a
//                 256 MiB memcg with swap).

#pragma once

#include <cstdint>
#include <memory>

#include "kernelsim/policy/kernel_config.h"

namespace mmreplay::kernelsim {

struct MadvFreeView {
  uint64_t nr_pages = 0;            // pages in the advised range
  uint64_t zone_free_pages = 0;     // free pages in the zone's buddy lists now
  uint64_t zone_managed_pages = 0;  // pages the zone manages
  uint64_t min_free_pages = 0;      // min_free_kbytes >> (PAGE_SHIFT - 10)
  // ZONE_DMA's free pages that its lowmem_reserve keeps from user allocations
  // (dma_zone_reserved_free_pages()): nr_free_pages() is zone_free_pages + these.
  uint64_t dma_reserved_free_pages = 0;
};

enum class MadvFreeAction { kLazyFree, kDontNeed };

class MadvFreePolicy {
 public:
  virtual ~MadvFreePolicy() = default;
  virtual MadvFreeAction decide(const MadvFreeView& view) const = 0;
  // True when a lazy free also frees the swap entries of the range (seed 000's fix).
  virtual bool free_swapped() const { return false; }
};

// The decision procedure of knob madv_free.
std::unique_ptr<const MadvFreePolicy> make_madv_free_policy(MadvFreeMode mode);

}  // namespace mmreplay::kernelsim
