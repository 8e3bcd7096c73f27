// Page-table state: one byte per page of a VMA, and the set of PTE pages an mm has allocated.
//
// A 512 MiB mapping is 131,072 bytes of pte state, so a large address space costs host memory in
// proportion to its mapped size / 4096. The byte holds what the paths and reclaim need:
//   bits 0-1  state: none, present, lazyfree (present, MADV_FREE'd, clean), swapped
//   bit 2     dirty     (_PAGE_DIRTY)
//   bit 3     young     (_PAGE_ACCESSED)
//   bit 4     own page  (an anonymous or COW page allocated for this mapping: zap frees it)
//   bit 5     zero page (read fault on anonymous memory mapped the shared zero page)

#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

namespace pte {
inline constexpr uint8_t kStateMask = 0x3;
inline constexpr uint8_t kNone = 0;
inline constexpr uint8_t kPresent = 1;
inline constexpr uint8_t kLazyFree = 2;
inline constexpr uint8_t kSwapped = 3;
inline constexpr uint8_t kDirty = 1u << 2;
inline constexpr uint8_t kYoung = 1u << 3;
inline constexpr uint8_t kOwnPage = 1u << 4;
inline constexpr uint8_t kZeroPage = 1u << 5;

inline uint8_t state(uint8_t p) {
  return p & kStateMask;
}
// pte_present(): mapped to a page (normal or lazyfree).
inline bool is_mapped(uint8_t p) {
  return state(p) == kPresent || state(p) == kLazyFree;
}
}  // namespace pte

// PMD_SIZE-aligned regions that have a PTE page, as pmd indices (addr >> PMD_SHIFT).
class PteTables {
 public:
  // Returns true when the PTE page for `addr` had to be allocated (pte_alloc()).
  bool ensure(uint64_t addr) {
    const uint64_t pmd = addr >> PMD_SHIFT;
    if (pmd == last_) return false;  // faults come in runs within one 2 MiB region
    last_ = pmd;
    return pmds_.insert(pmd).second;
  }
  bool has(uint64_t addr) const { return pmds_.count(addr >> PMD_SHIFT) != 0; }
  // Drops the PTE page covering `pmd_index`; returns true when it existed.
  bool drop(uint64_t pmd_index) {
    if (pmd_index == last_) last_ = kNoPmd;
    return pmds_.erase(pmd_index) != 0;
  }
  size_t size() const { return pmds_.size(); }
  // The pmd indices with a PTE page whose 2 MiB region intersects [start, end).
  std::vector<uint64_t> in_range(uint64_t start, uint64_t end) const {
    std::vector<uint64_t> out;
    if (start >= end) return out;
    const uint64_t first = start >> PMD_SHIFT;
    const uint64_t last = (end - 1) >> PMD_SHIFT;
    if (last - first < pmds_.size()) {
      for (uint64_t pmd = first; pmd <= last; ++pmd) {
        if (pmds_.count(pmd) != 0) out.push_back(pmd);
      }
      return out;
    }
    for (uint64_t pmd : pmds_) {
      if (pmd >= first && pmd <= last) out.push_back(pmd);
    }
    std::sort(out.begin(), out.end());  // hash order is not part of the result
    return out;
  }

 private:
  static constexpr uint64_t kNoPmd = ~uint64_t{0};
  std::unordered_set<uint64_t> pmds_;
  uint64_t last_ = kNoPmd;  // the pmd of the last ensure(), known to be present
};

}  // namespace mmreplay::kernelsim
