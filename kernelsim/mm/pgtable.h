// Page-table state: one byte per touched page of a VMA (PteMap), and the set of PTE pages an mm
// has allocated (PteTables).
//
// PteMap is sparse like the kernel's radix page table (pgd/p4d/pud/pmd/pte, mm/memory.c
// __pte_alloc()): one leaf of PTRS_PER_PTE bytes per 2 MiB region, allocated on the first store
// into it. A region without a leaf reads as pte::kNone (pmd_none()), so an untouched range costs
// nothing: a 64 TiB MAP_NORESERVE reservation holds no leaves until it is touched. The byte holds
// what the paths and reclaim need:
//   bits 0-1  state: none, present, lazyfree (present, MADV_FREE'd, clean), swapped
//   bit 2     dirty     (_PAGE_DIRTY)
//   bit 3     young     (_PAGE_ACCESSED)
//   bit 4     own page  (an anonymous or COW page allocated for this mapping: zap frees it)
//   bit 5     zero page (read fault on anonymous memory mapped the shared zero page)
//   bit 6     cow shared (fork's copy_present_pte() write-protected it: the page is mapped by
//             another mm too; with kOwnPage this mm owns the frame, without it another mm does)

#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_set>
#include <utility>
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
inline constexpr uint8_t kCowShared = 1u << 6;
// A page swap readahead read (swapin_readahead()) and the model mapped at once: the kernel leaves
// it in the swap cache, and the first access faults (do_swap_page() finds it there: a minor
// fault). The MMU does not complete an access through such a pte (mm/user_access.cpp).
inline constexpr uint8_t kSwapCache = 1u << 7;

inline uint8_t state(uint8_t p) {
  return p & kStateMask;
}
// An own page mapped present and clean: do_swap_page() maps one so for a read fault (the model's
// only other clean own page is lazyfree, a state of its own). Before 6.11 (policy
// swapin_pte=read-only) such a pte is write-protected and the first write faults (do_wp_page()
// -> wp_page_reuse()); the callers ask the policy.
inline bool swapped_in_read_only(uint8_t p) {
  return (p & (kStateMask | kOwnPage | kDirty | kCowShared | kZeroPage | kSwapCache)) ==
         (kPresent | kOwnPage);
}
// pte_present(): mapped to a page (normal or lazyfree).
inline bool is_mapped(uint8_t p) {
  return state(p) == kPresent || state(p) == kLazyFree;
}
}  // namespace pte

// The pte bytes of one VMA, keyed by absolute address (so a split or merge moves whole leaves
// and re-keys nothing). Two levels, like the pmd and pte pages under a pud: a directory holds
// kDirEntries leaf pointers (a 128 MiB span) and the directories sit in a map by span. A lookup
// is the last leaf used, else the last directory used (or a walk of the few directory nodes) and
// an index; a one-level map of leaves took a tree walk per fault once 64 tasks interleaved in
// one VMA (11% of a 64-CPU fault run). Leaves are heap blocks: a reference from ref() stays valid
// until the leaf is dropped by split_at() or truncate() (moves keep the block).
//
// A leaf lives until its VMA does (like a PTE page until free_pgtables()), except one that
// split_at() or truncate() leave all-none: that one is dropped. Zapped regions keep their leaf,
// so memory follows the pages touched, not the pages currently present.
class PteMap {
 public:
  using Leaf = std::array<uint8_t, PTRS_PER_PTE>;

  PteMap() = default;
  PteMap(PteMap&& o) noexcept : dirs_(std::move(o.dirs_)), nr_leaves_(o.nr_leaves_) {
    o.nr_leaves_ = 0;
    o.forget();
  }
  PteMap& operator=(PteMap&& o) noexcept {
    dirs_ = std::move(o.dirs_);
    nr_leaves_ = std::exchange(o.nr_leaves_, 0);
    forget();
    o.forget();
    return *this;
  }
  PteMap(const PteMap&) = delete;
  PteMap& operator=(const PteMap&) = delete;

  // The pte of addr; pte::kNone where no leaf covers it (pmd_none()).
  uint8_t get(uint64_t addr) const {
    const Leaf* l = find_leaf(addr >> PMD_SHIFT);
    return l == nullptr ? pte::kNone : (*l)[slot(addr)];
  }
  // The pte of addr for a store; allocates its leaf on the first touch (__pte_alloc()). Always
  // inline: a zap's and a user access's per-page step, which unity builds otherwise leave out of
  // line as their files change around it.
  [[gnu::always_inline]] uint8_t& ref(uint64_t addr) {
    const uint64_t key = addr >> PMD_SHIFT;
    Leaf* l = find_leaf(key);
    if (l == nullptr) [[unlikely]]
      l = new_leaf(key);
    return (*l)[slot(addr)];
  }
  // The first page-aligned address in [addr, end) inside a region with a leaf, or end when there
  // is none: a walk skips leafless regions as zap_pmd_range() skips pmd_none() entries.
  uint64_t next_populated(uint64_t addr, uint64_t end) const;
  // The pmd entries a walk of [start, end) reads: the 2 MiB regions the range touches. A walk
  // pays one step for each leafless region, as zap_pmd_range(), change_pmd_range() and
  // walk_pmd_range() (mm/memory.c, mm/mprotect.c, mm/pagewalk.c) `continue` past a pmd_none().
  // REQUIRES: start < end.
  static uint64_t pmd_entries(uint64_t start, uint64_t end) {
    return ((end - 1) >> PMD_SHIFT) - (start >> PMD_SHIFT) + 1;
  }

  // Models the pte half of __split_vma(): moves the state of [addr, ...) into `tail`.
  // REQUIRES: tail is empty; addr page aligned.
  void split_at(uint64_t addr, PteMap* tail);
  // Models the pte half of vma_merge(): takes every pte of `other`.
  // REQUIRES: other's non-none ptes and this map's lie in disjoint ranges.
  void merge_from(PteMap&& other);
  // Drops the state of [addr, ...) (a VMA shrunk to end at addr).
  void truncate(uint64_t addr);

  size_t nr_leaves() const { return nr_leaves_; }
  // Host bytes held by leaves (each directory adds kDirEntries pointers per 128 MiB touched).
  size_t bytes() const { return nr_leaves_ * sizeof(Leaf); }
  bool empty() const { return nr_leaves_ == 0; }

 private:
  static constexpr unsigned kDirShift = 6;  // leaves per directory: 64 (2 MiB each)
  static constexpr uint64_t kDirEntries = uint64_t{1} << kDirShift;
  struct Dir {
    std::array<std::unique_ptr<Leaf>, kDirEntries> leaves;
    uint32_t used = 0;
  };
  using DirMap = std::map<uint64_t, std::unique_ptr<Dir>>;  // key >> kDirShift -> directory

  static size_t slot(uint64_t addr) {
    return static_cast<size_t>((addr >> PAGE_SHIFT) & (PTRS_PER_PTE - 1));
  }
  static size_t dir_slot(uint64_t key) { return static_cast<size_t>(key & (kDirEntries - 1)); }
  // Faults and walks come in runs within one 2 MiB region: the last leaf found is kept, and the
  // last directory for runs that cross leaves.
  Leaf* find_leaf(uint64_t key) const {
    if (key == last_key_) return last_;
    Dir* d = find_dir(key >> kDirShift);
    if (d == nullptr) return nullptr;
    Leaf* l = d->leaves[dir_slot(key)].get();
    if (l != nullptr) {
      last_key_ = key;
      last_ = l;
    }
    return l;
  }
  Dir* find_dir(uint64_t dkey) const {
    if (dkey == last_dir_key_) return last_dir_;
    auto it = dirs_.find(dkey);
    if (it == dirs_.end()) return nullptr;
    last_dir_key_ = dkey;
    last_dir_ = it->second.get();
    return last_dir_;
  }
  // Installs leaf l at key. REQUIRES: no leaf there.
  Leaf* adopt(uint64_t key, std::unique_ptr<Leaf> l);
  // A leaf of kNone ptes for `key`, adopted; out of line, so that ref()'s hit path inlines.
  Leaf* new_leaf(uint64_t key);
  // Removes and returns the leaf at key (it must exist), dropping its directory when emptied.
  std::unique_ptr<Leaf> release(DirMap::iterator dir, uint64_t key);
  void forget() const {
    last_key_ = kNoKey;
    last_ = nullptr;
    last_dir_key_ = kNoKey;
    last_dir_ = nullptr;
  }
  static bool is_empty(const Leaf& l);

  static constexpr uint64_t kNoKey = ~uint64_t{0};
  DirMap dirs_;
  size_t nr_leaves_ = 0;
  mutable uint64_t last_key_ = kNoKey;
  mutable Leaf* last_ = nullptr;
  mutable uint64_t last_dir_key_ = kNoKey;
  mutable Dir* last_dir_ = nullptr;
};

// PMD_SIZE-aligned regions that have a PTE page, as pmd indices (addr >> PMD_SHIFT).
class PteTables {
 public:
  // Returns true when the PTE page for `addr` had to be allocated (pte_alloc()).
  bool ensure(uint64_t addr) {
    const uint64_t pmd = addr >> PMD_SHIFT;
    uint64_t& known = known_[known_slot(pmd)];
    if (known == pmd) return false;  // faults come in runs within one 2 MiB region per task
    known = pmd;
    return pmds_.insert(pmd).second;
  }
  bool has(uint64_t addr) const { return pmds_.count(addr >> PMD_SHIFT) != 0; }
  // Drops the PTE page covering `pmd_index`; returns true when it existed.
  bool drop(uint64_t pmd_index) {
    if (uint64_t& known = known_[known_slot(pmd_index)]; known == pmd_index) known = kNoPmd;
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
  // pmds known to be in pmds_, the last ensure()d in each slot by pmd index modulo kKnownSlots:
  // one last-pmd value missed on nearly every fault once many tasks of an mm fault in turn, and
  // each miss was a hash lookup. Host-side only.
  static constexpr size_t kKnownSlots = 256;
  static size_t known_slot(uint64_t pmd) { return static_cast<size_t>(pmd % kKnownSlots); }
  static std::array<uint64_t, kKnownSlots> no_pmds() {
    std::array<uint64_t, kKnownSlots> a;
    a.fill(kNoPmd);
    return a;
  }
  std::unordered_set<uint64_t> pmds_;
  std::array<uint64_t, kKnownSlots> known_ = no_pmds();
};

}  // namespace mmreplay::kernelsim
