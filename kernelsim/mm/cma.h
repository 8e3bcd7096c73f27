// CmaArea: the contiguous memory allocator's area of the zone (mm/cma.c, struct cma) and where
// movable pages sit in it.
//
// The area is MachineConfig::cma_bytes at the top of the zone: pfns [base_pfn, base_pfn + count).
// cma->bitmap marks the pages handed out by cma_alloc(); the rest of the area is MIGRATE_CMA
// pageblocks that movable allocations may use (__rmqueue_cma_fallback() / ALLOC_CMA). The model
// tracks the physical place of movable pages only inside the area; a page outside it has no pfn
// (kNoPfn): nothing in the model needs to know where it is.
//
// Movable pages: anonymous pages (their Lruvec frame, mm/lru.h) and page-cache pages carrying
// buffer heads (by (file, page index): placed when they get them, their place freed when the page
// leaves the cache, mm/filemap.h). Placement: a new movable page goes into
// the area while the area holds less than its share of all movable pages (count / zone pages),
// at the lowest free pfn not isolated and not in the bitmap, which spreads movable pages over
// physical memory in proportion; otherwise outside. A page migrated out of an isolated range is
// placed by the same rule (it may land elsewhere in the area, as alloc_migration_target() may).
//
// Invariants (asserted in cma.cpp):
//  (1) a pfn of the area is exactly one of: free, an anon page, a file page, cma-allocated;
//  (2) anon_slot_ (where anon_bits_ has the frame) and file_ map each page placed in the area to
//      its pfn, and pages_[pfn] back to it;
//  (3) a cma-allocated pfn has its bitmap bit set.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mmreplay::kernelsim {

inline constexpr uint64_t kNoPfn = ~uint64_t{0};

enum class PhysUse : uint8_t { kFree, kAnon, kFile, kCma };

// What occupies one pfn of the area (the model's struct page for it).
struct PhysPage {
  PhysUse use = PhysUse::kFree;
  bool isolated = false;  // MIGRATE_ISOLATE pageblock (start_isolate_page_range())
  bool bitmap = false;    // cma->bitmap bit: handed out (or being handed out) by cma_alloc()
  uint32_t frame = 0;     // kAnon: the Lruvec frame
  uint32_t file = 0;      // kFile: (file, index)
  uint64_t index = 0;
};

// A cma_alloc() result, by the handle the trace gave it.
struct CmaAllocation {
  uint64_t pfn = 0;
  uint64_t count = 0;
};

class CmaArea {
 public:
  // An area of `count` pages at the top of a zone of `zone_pages` pages (count 0: no area).
  CmaArea(uint64_t zone_pages, uint64_t count);

  uint64_t base_pfn() const { return base_; }
  uint64_t count() const { return pages_.size(); }
  bool contains(uint64_t pfn) const { return pfn >= base_ && pfn - base_ < pages_.size(); }
  const PhysPage& page(uint64_t pfn) const { return pages_[pfn - base_]; }

  // ---- Movable pages ----
  // A new anonymous page (page_add_new_anon_rmap()): placed by the rule above.
  void place_anon(uint32_t frame);
  // The anonymous page of `frame` was freed.
  void anon_freed(uint32_t frame);
  // The page-cache page `index` of `file` got its buffer heads: placed on first sight.
  void ensure_file_page(uint32_t file, uint64_t index);
  // The page-cache page `index` of `file` left the cache (__delete_from_page_cache()): its place
  // is free, and a later read of the page places it again.
  void file_page_dropped(uint32_t file, uint64_t index);
  uint64_t pfn_of_anon(uint32_t frame) const;
  uint64_t pfn_of_file(uint32_t file, uint64_t index) const;
  // Migration (mm/migrate.cpp): the page at `pfn` moves to a new page placed by the rule, never
  // into an isolated pfn. Returns the new pfn (kNoPfn: outside the area).
  uint64_t move_page(uint64_t pfn);

  // ---- cma->bitmap and isolation (mm/cma.c, mm/page_isolation.c) ----
  // The first run of `n` pfns from `from` with no bitmap bit (cma_alloc()'s
  // bitmap_find_next_zero_area()); nullopt when none.
  std::optional<uint64_t> find_free_range(uint64_t from, uint64_t n) const;
  void set_bitmap(uint64_t pfn, uint64_t n, bool on);
  void set_isolated(uint64_t pfn, uint64_t n, bool on);
  // test_pages_isolated(): every pfn of the range is free.
  bool range_free(uint64_t pfn, uint64_t n) const;
  // The range's pfns now belong to the allocation `handle`. REQUIRES: range_free().
  void take_range(uint64_t handle, uint64_t pfn, uint64_t n);
  // Ends allocation `handle`: its pfns are free, their bitmap bits clear. nullopt: unknown handle.
  std::optional<CmaAllocation> release(uint64_t handle);
  const CmaAllocation* find_allocation(uint64_t handle) const;
  uint64_t nr_allocated() const;

 private:
  bool placeable(uint64_t slot) const;
  void update_free(uint64_t slot);
  // The pfn for a new movable page, or kNoPfn; counts it in the share.
  uint64_t choose_pfn();
  void set_free(uint64_t slot);
  bool anon_placed(uint32_t frame) const {
    const size_t w = frame / 64;
    return w < anon_bits_.size() && ((anon_bits_[w] >> (frame % 64)) & 1) != 0;
  }
  void set_anon(uint32_t frame, uint64_t pfn);  // anon_slot_ and its bit; kNoPfn: erase
  uint64_t lowest_free_slot();                  // REQUIRES: free_count_ > 0

  uint64_t base_;
  uint64_t zone_pages_;
  std::vector<PhysPage> pages_;
  // Placeable slots, one bit each, and the count: the lowest is the next placement. Bits, not a
  // std::set: a node allocated and freed per page placed was 1-2% of a seed-000 replay.
  std::vector<uint64_t> free_bits_;
  uint64_t free_count_ = 0;
  size_t free_hint_ = 0;  // no word of free_bits_ below it has a bit set
  // Frame -> its slot + 1 in the area; meaningful only where anon_bits_ has the frame. One bit per
  // frame: most pages freed lie outside the area and the bit answers them from a small array
  // (a hash lookup per freed page, anon_freed(), was 5% of a seed-000 replay).
  std::vector<uint32_t> anon_slot_;
  std::vector<uint64_t> anon_bits_;
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> file_;  // (file, index) -> pfn or kNoPfn
  std::map<uint64_t, CmaAllocation> allocations_;
  uint64_t movable_total_ = 0;  // movable pages placed (inside or outside)
  uint64_t movable_in_area_ = 0;
};

}  // namespace mmreplay::kernelsim
