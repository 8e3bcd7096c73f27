// SlotIndex: a sparse map from a 64-bit page number to a 32-bit frame number, laid out like a
// page table: one leaf of PTRS_PER_PTE slots per aligned run of PTRS_PER_PTE page numbers, found
// by the run's number in a hash map, with the last leaf used in each of kCacheSlots slots cached.
// Lookups come in runs within a leaf (faults, zaps, reclaim and readahead walk neighbouring
// pages), so most of them are a cache slot and an array index; a node-based hash map keyed per
// page took a pointer chase and a likely cache miss per lookup.
//
// Users: AnonRmap (mm/rmap.h: an mm's own pages by user address) and the page cache's index
// (mm/filemap.h: pages by file and index).
//
// Invariant: size() == the number of slots holding a frame; a leaf with none leaves the map (the
// last one so emptied is kept as a spare for the next new leaf: a region emptied and refilled in
// rounds otherwise freed and reallocated a 2 KiB leaf per round).

#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

class SlotIndex {
 public:
  static constexpr uint32_t kNone = ~uint32_t{0};  // == kNoFrame (mm/lru.h)

  // The frame at page number `page`, or kNone.
  uint32_t find(uint64_t page) const {
    const Leaf* l = leaf(page);
    return l == nullptr ? kNone : l->slots[slot(page)];
  }
  // Records frame f at `page`; false when it already has one (nothing changed).
  bool insert(uint64_t page, uint32_t f) {
    Leaf& l = leaf_or_create(page);
    uint32_t& s = l.slots[slot(page)];
    if (s != kNone) return false;
    s = f;
    ++l.used;
    ++size_;
    return true;
  }
  // Forgets the frame at `page`; returns it, or kNone when there was none.
  uint32_t erase(uint64_t page) {
    Leaf* l = const_cast<Leaf*>(leaf(page));
    if (l == nullptr) return kNone;
    const uint32_t f = std::exchange(l->slots[slot(page)], kNone);
    if (f == kNone) return kNone;
    --size_;
    if (--l->used == 0) {
      if (Leaf*& cached = cache_[cache_slot(l->run)]; cached == l) cached = nullptr;
      auto it = leaves_.find(l->run);
      spare_ = std::move(it->second);  // all slots kNone again: reusable as it is
      leaves_.erase(it);
    }
    return f;
  }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  static constexpr unsigned kRunShift = PMD_SHIFT - PAGE_SHIFT;  // PTRS_PER_PTE pages a leaf
  struct Leaf {
    Leaf() { slots.fill(kNone); }
    uint64_t run = 0;
    uint32_t used = 0;
    std::array<uint32_t, PTRS_PER_PTE> slots;
  };
  static size_t slot(uint64_t page) { return page & (PTRS_PER_PTE - 1); }
  // The leaf cache: kCacheSlots leaves by run number modulo kCacheSlots, each slot the last leaf
  // found there. Many tasks of one mm fault in their own regions in turn (64 threads of a
  // 64-CPU run): one last-leaf pointer missed on nearly every fault and each miss was a hash
  // lookup. The bits from kHighRunBits up are folded in, so that keys that differ above them
  // (the page cache's file number) do not all share the slots of their low runs. Host-side
  // only: it changes no result.
  static constexpr size_t kCacheSlots = 256;
  static constexpr unsigned kHighRunBits = 31;
  static size_t cache_slot(uint64_t run) {
    return static_cast<size_t>((run ^ (run >> kHighRunBits)) % kCacheSlots);
  }
  const Leaf* leaf(uint64_t page) const {
    const uint64_t run = page >> kRunShift;
    Leaf*& cached = cache_[cache_slot(run)];
    if (cached != nullptr && cached->run == run) return cached;
    auto it = leaves_.find(run);
    if (it == leaves_.end()) return nullptr;
    cached = it->second.get();
    return cached;
  }
  Leaf& leaf_or_create(uint64_t page) {
    const uint64_t run = page >> kRunShift;
    Leaf*& cached = cache_[cache_slot(run)];
    if (cached != nullptr && cached->run == run) return *cached;
    std::unique_ptr<Leaf>& p = leaves_[run];
    if (p == nullptr) {
      p = spare_ != nullptr ? std::move(spare_) : std::make_unique<Leaf>();
      p->run = run;
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
