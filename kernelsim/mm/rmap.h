// AnonRmap: pte -> page frame for an mm's own pages, the model's stand-in for pte -> struct page
// (mm/rmap.c keeps the reverse direction; the frame holds page -> mm + address, mm/lru.h).
//
// Laid out like a page table: one leaf of PTRS_PER_PTE frame numbers per 2 MiB region, found by
// pmd index in a hash map, with the last leaf used in each of kCacheSlots slots cached (faults,
// zaps and reclaim come in runs within a region, one run per task). Replaces an unordered_map keyed
// by page: one node allocation and one hash per page was about a fifth of the fault path (last
// session's profile).
//
// Invariant: size() == the number of slots holding a frame; a leaf with none leaves the map (the
// last one so emptied is kept as a spare for the next new leaf: MADV_DONTNEED of a region and
// its re-touch otherwise freed and reallocated a 2 KiB leaf per round).

#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

class AnonRmap {
 public:
  static constexpr uint32_t kNone = ~uint32_t{0};  // == kNoFrame (mm/lru.h)

  // The frame of the page at `addr`, or kNone.
  uint32_t find(uint64_t addr) const {
    const Leaf* l = leaf(addr);
    return l == nullptr ? kNone : l->slots[slot(addr)];
  }
  // Records frame f at addr; false when addr already has one (nothing changed).
  bool insert(uint64_t addr, uint32_t f) {
    Leaf& l = leaf_or_create(addr);
    uint32_t& s = l.slots[slot(addr)];
    if (s != kNone) return false;
    s = f;
    ++l.used;
    ++size_;
    return true;
  }
  // Forgets the frame at addr; returns it, or kNone when there was none.
  uint32_t erase(uint64_t addr) {
    Leaf* l = const_cast<Leaf*>(leaf(addr));
    if (l == nullptr) return kNone;
    const uint32_t f = std::exchange(l->slots[slot(addr)], kNone);
    if (f == kNone) return kNone;
    --size_;
    if (--l->used == 0) {
      if (Leaf*& cached = cache_[cache_slot(l->pmd)]; cached == l) cached = nullptr;
      auto it = leaves_.find(l->pmd);
      spare_ = std::move(it->second);  // all slots kNone again: reusable as it is
      leaves_.erase(it);
    }
    return f;
  }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Leaf {
    Leaf() { slots.fill(kNone); }
    uint64_t pmd = 0;
    uint32_t used = 0;
    std::array<uint32_t, PTRS_PER_PTE> slots;
  };
  static size_t slot(uint64_t addr) { return (addr >> PAGE_SHIFT) & (PTRS_PER_PTE - 1); }
  // The leaf cache: kCacheSlots leaves by pmd index modulo kCacheSlots, each slot the last leaf
  // found there. Many tasks of one mm fault in their own regions in turn (64 threads of a
  // 64-CPU run): one last-leaf pointer missed on nearly every fault and each miss was a hash
  // lookup. Host-side only: it changes no result.
  static constexpr size_t kCacheSlots = 256;
  static size_t cache_slot(uint64_t pmd) { return static_cast<size_t>(pmd % kCacheSlots); }
  const Leaf* leaf(uint64_t addr) const {
    const uint64_t pmd = addr >> PMD_SHIFT;
    Leaf*& cached = cache_[cache_slot(pmd)];
    if (cached != nullptr && cached->pmd == pmd) return cached;
    auto it = leaves_.find(pmd);
    if (it == leaves_.end()) return nullptr;
    cached = it->second.get();
    return cached;
  }
  Leaf& leaf_or_create(uint64_t addr) {
    const uint64_t pmd = addr >> PMD_SHIFT;
    Leaf*& cached = cache_[cache_slot(pmd)];
    if (cached != nullptr && cached->pmd == pmd) return *cached;
    std::unique_ptr<Leaf>& p = leaves_[pmd];
    if (p == nullptr) {
      p = spare_ != nullptr ? std::move(spare_) : std::make_unique<Leaf>();
      p->pmd = pmd;
    }
    cached = p.get();
    return *p;
  }

  std::unordered_map<uint64_t, std::unique_ptr<Leaf>> leaves_;
  mutable std::array<Leaf*, kCacheSlots> cache_{};  // a slot is null or a leaf in leaves_
  std::unique_ptr<Leaf> spare_;  // an emptied leaf (used == 0, every slot kNone), or null
  uint64_t size_ = 0;
};

}  // namespace mmreplay::kernelsim
