// AnonRmap: pte -> page frame for an mm's own pages, the model's stand-in for pte -> struct page
// (mm/rmap.c keeps the reverse direction; the frame holds page -> mm + address, mm/lru.h).
//
// Laid out like a page table (sim/slot_index.h: one leaf of PTRS_PER_PTE frame numbers per 2 MiB
// region, the last leaf used in each cache slot kept). Replaces an unordered_map keyed by page:
// one node allocation and one hash per page was about a fifth of the fault path.

#pragma once

#include <cstdint>

#include "kernelsim/constants.h"
#include "kernelsim/sim/slot_index.h"

namespace mmreplay::kernelsim {

class AnonRmap {
 public:
  static constexpr uint32_t kNone = SlotIndex::kNone;  // == kNoFrame (mm/lru.h)

  // The frame of the page at `addr`, or kNone.
  uint32_t find(uint64_t addr) const { return index_.find(addr >> PAGE_SHIFT); }
  // Records frame f at addr; false when addr already has one (nothing changed).
  bool insert(uint64_t addr, uint32_t f) { return index_.insert(addr >> PAGE_SHIFT, f); }
  // Forgets the frame at addr; returns it, or kNone when there was none.
  uint32_t erase(uint64_t addr) { return index_.erase(addr >> PAGE_SHIFT); }
  uint64_t size() const { return index_.size(); }
  bool empty() const { return index_.empty(); }

 private:
  SlotIndex index_;
};

}  // namespace mmreplay::kernelsim
