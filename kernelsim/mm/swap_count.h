// Swap entries fork shares: the swap count above 1 (swap_map[], mm/swapfile.c).
//
// fork() copies a swapped pte as it is (copy_nonpresent_pte() -> swap_duplicate()): parent and
// child hold one entry, one slot. The model marks each such pte pgtable.h kCowShared (the bit a
// fork-shared present page carries) and keeps the entry's holders, (mm, address) pairs, in a
// SharedSwapEntry each holder's Mm::shared_swap points at; SwapInfo::shared_refs() counts the
// holders beyond the first. What the count changes:
//   - a holder letting go (zap, exit, MADV_FREE of a swapped pte) frees the slot only when it was
//     the last (free_swap_and_cache(): __swap_entry_free() reaches 0);
//   - a swap-in by one holder keeps the page in the swap cache whatever the fault or device
//     (do_swap_page(): the entry's count is above 1, so no try_to_free_swap(), no
//     SWP_SYNCHRONOUS_IO bypass), and the other holders find it there: the model maps it in
//     their ptes at once (kSwapCache, not their own page), so that each one's first access is the
//     minor fault the kernel takes on finding it (do_swap_page() -> swap_cache_get_folio()); the
//     page is fork-shared from then on (a write copies it);
//   - reclaim unmapping a fork-shared page turns every pte mapping it into the one entry
//     (try_to_unmap() walks the page's anon_vma: here the owner and its fork peers).
//
// Invariant: (5) a swapped pte with kCowShared has its mm's shared_swap record at its address,
// and that entry lists it among its holders: two or more, or one beside the page in the swap
// cache (page_in_swap_cache); SwapInfo invariant (1) counts the references beyond the first.
// Known simplifications: an entry is named by its holders' addresses (mremap moves a record with
// its pte: move_swap_entry()); a holder whose VMA is out of the tree for a moment (a munmap's
// detached range, an mremap's move) keeps its entry when another's swap-in shares the page, and
// its later access reads the page again; the page a swap-in shares is mapped in every holder,
// grandchildren of the fork included, though a write or a reclaim of it finds only the owner's
// direct fork peers (cow_sharer(), memory.h).

#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace mmreplay::kernelsim {

class Mm;
class Simulation;

// One swap entry held by ptes of more than one mm.
struct SharedSwapEntry {
  std::vector<std::pair<Mm*, uint64_t>> holders;  // each pte holding it: its mm and address
  // A holder's swap-in put its page in the swap cache while a holder's VMA was out of the tree
  // (munmap's detached range, mremap's move): that holder keeps the entry beside the page.
  bool page_in_swap_cache = false;
};

// Models copy_nonpresent_pte() of a swapped pte: swap_duplicate() of the entry parent_pte (the
// parent's pte at addr) holds. Marks the parent's pte shared and returns the child's.
uint8_t swap_duplicate(Simulation& sim, Mm& parent, uint8_t& parent_pte, Mm& child, uint64_t addr);

// Models free_swap_and_cache() of the swapped pte p of mm at addr, which the caller clears: the
// slot is freed unless another pte still holds the entry.
void swap_entry_free(Simulation& sim, Mm& mm, uint8_t p, uint64_t addr);

// True when the swapped pte p of mm at addr holds an entry other ptes hold too.
bool swap_entry_shared(const Mm& mm, uint8_t p, uint64_t addr);

// do_swap_page() of a shared entry: mm's pte at addr now maps the page read into the swap cache
// (the caller set it, owning the frame), and every other holder's pte maps it too, not owning it,
// marked kSwapCache so that its first access takes the swap-cache fault. The entry is gone: the
// page in the swap cache holds the slot. True when a page already in the swap cache held it
// (page_in_swap_cache): then mm's reference simply goes, and the page read holds no slot.
bool swap_cache_share(Simulation& sim, Mm& mm, uint64_t addr);

// try_to_unmap() of a fork-shared page whose owner's pte at addr reclaim just set to a swap entry
// (state swapped): the fork peers mapping the page get that entry too; their (mm, address) pairs
// are appended to `unmapped`, whose TLBs the caller flushes. Returns the number of peers.
uint32_t swap_entry_share_on_unmap(Simulation& sim, Mm& owner, uint64_t addr,
                                   std::vector<std::pair<Mm*, uint64_t>>* unmapped);

// mremap's move_ptes() of mm's shared swapped pte from old_addr to new_addr.
void move_swap_entry(Mm& mm, uint64_t old_addr, uint64_t new_addr);

// page_referenced() over the fork peers of the owner's page at addr: the number of peers whose
// pte mapping it was young; clears those bits.
uint32_t fork_peers_referenced(Mm& owner, uint64_t addr);

}  // namespace mmreplay::kernelsim
