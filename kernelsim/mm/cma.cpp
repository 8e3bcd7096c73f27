#include "kernelsim/mm/cma.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace mmreplay::kernelsim {

CmaArea::CmaArea(uint64_t zone_pages, uint64_t count)
    : base_(zone_pages - count), zone_pages_(zone_pages), pages_(count) {
  assert(count <= zone_pages);
  free_bits_.assign((count + 63) / 64, 0);
  for (uint64_t i = 0; i < count; ++i) free_bits_[i / 64] |= uint64_t{1} << (i % 64);
  free_count_ = count;
}

bool CmaArea::placeable(uint64_t slot) const {
  const PhysPage& p = pages_[slot];
  return p.use == PhysUse::kFree && !p.isolated && !p.bitmap;
}

void CmaArea::update_free(uint64_t slot) {
  uint64_t& word = free_bits_[slot / 64];
  const uint64_t bit = uint64_t{1} << (slot % 64);
  if (placeable(slot)) {
    if ((word & bit) != 0) return;
    word |= bit;
    ++free_count_;
    free_hint_ = std::min(free_hint_, static_cast<size_t>(slot / 64));
  } else if ((word & bit) != 0) {
    word &= ~bit;
    --free_count_;
  }
}

uint64_t CmaArea::lowest_free_slot() {
  assert(free_count_ > 0);
  while (free_bits_[free_hint_] == 0) ++free_hint_;
  return free_hint_ * 64 + static_cast<uint64_t>(std::countr_zero(free_bits_[free_hint_]));
}

uint64_t CmaArea::choose_pfn() {
  // The area holds less than its share (count / zone_pages) of the movable pages, this one counted.
  const bool want = movable_in_area_ * zone_pages_ < (movable_total_ + 1) * pages_.size();
  ++movable_total_;
  if (!want || free_count_ == 0) return kNoPfn;
  ++movable_in_area_;
  return base_ + lowest_free_slot();
}

void CmaArea::place_anon(uint32_t frame) {
  const uint64_t pfn = choose_pfn();
  if (pfn == kNoPfn) return;
  PhysPage& p = pages_[pfn - base_];
  p.use = PhysUse::kAnon;
  p.frame = frame;
  update_free(pfn - base_);
  set_anon(frame, pfn);
}

void CmaArea::set_anon(uint32_t frame, uint64_t pfn) {
  const size_t w = frame / 64;
  const uint64_t bit = uint64_t{1} << (frame % 64);
  if (pfn == kNoPfn) {
    if (w < anon_bits_.size()) anon_bits_[w] &= ~bit;
    return;
  }
  if (frame >= anon_slot_.size()) anon_slot_.resize(frame + size_t{1}, 0);
  anon_slot_[frame] = static_cast<uint32_t>(pfn - base_ + 1);
  if (w >= anon_bits_.size()) anon_bits_.resize(w + 1, 0);
  anon_bits_[w] |= bit;
}

void CmaArea::set_free(uint64_t slot) {
  pages_[slot].use = PhysUse::kFree;
  update_free(slot);
}

void CmaArea::anon_freed(uint32_t frame) {
  --movable_total_;
  if (!anon_placed(frame)) return;
  const uint64_t slot = anon_slot_[frame] - uint64_t{1};
  assert(pages_[slot].use == PhysUse::kAnon && pages_[slot].frame == frame && "invariant (2)");
  set_free(slot);
  set_anon(frame, kNoPfn);
  --movable_in_area_;
}

void CmaArea::ensure_file_page(uint32_t file, uint64_t index) {
  auto [it, inserted] = file_.try_emplace({file, index}, kNoPfn);
  if (!inserted) return;
  const uint64_t pfn = choose_pfn();
  it->second = pfn;
  if (pfn == kNoPfn) return;
  PhysPage& p = pages_[pfn - base_];
  p.use = PhysUse::kFile;
  p.file = file;
  p.index = index;
  update_free(pfn - base_);
}

void CmaArea::file_page_dropped(uint32_t file, uint64_t index) {
  auto it = file_.find({file, index});
  if (it == file_.end()) return;
  const uint64_t pfn = it->second;
  file_.erase(it);
  --movable_total_;
  if (pfn == kNoPfn) return;
  const uint64_t slot = pfn - base_;
  assert(pages_[slot].use == PhysUse::kFile && pages_[slot].file == file &&
         pages_[slot].index == index && "invariant (2)");
  set_free(slot);
  --movable_in_area_;
}

uint64_t CmaArea::pfn_of_anon(uint32_t frame) const {
  return anon_placed(frame) ? base_ + anon_slot_[frame] - 1 : kNoPfn;
}

uint64_t CmaArea::pfn_of_file(uint32_t file, uint64_t index) const {
  auto it = file_.find({file, index});
  return it == file_.end() ? kNoPfn : it->second;
}

uint64_t CmaArea::move_page(uint64_t pfn) {
  assert(contains(pfn));
  const PhysPage old = pages_[pfn - base_];
  assert(old.use == PhysUse::kAnon || old.use == PhysUse::kFile);
  set_free(pfn - base_);
  --movable_in_area_;
  --movable_total_;
  const uint64_t to = choose_pfn();
  if (to != kNoPfn) {
    PhysPage& p = pages_[to - base_];
    p.use = old.use;
    p.frame = old.frame;
    p.file = old.file;
    p.index = old.index;
    update_free(to - base_);
  }
  if (old.use == PhysUse::kAnon) {
    set_anon(old.frame, to);
  } else {
    file_[{old.file, old.index}] = to;
  }
  return to;
}

std::optional<uint64_t> CmaArea::find_free_range(uint64_t from, uint64_t n) const {
  uint64_t run = 0;
  for (uint64_t slot = from < base_ ? 0 : from - base_; slot < pages_.size(); ++slot) {
    run = pages_[slot].bitmap ? 0 : run + 1;
    if (run == n) return base_ + slot + 1 - n;
  }
  return std::nullopt;
}

void CmaArea::set_bitmap(uint64_t pfn, uint64_t n, bool on) {
  for (uint64_t s = pfn - base_; s < pfn - base_ + n; ++s) {
    pages_[s].bitmap = on;
    update_free(s);
  }
}

void CmaArea::set_isolated(uint64_t pfn, uint64_t n, bool on) {
  for (uint64_t s = pfn - base_; s < pfn - base_ + n; ++s) {
    pages_[s].isolated = on;
    update_free(s);
  }
}

bool CmaArea::range_free(uint64_t pfn, uint64_t n) const {
  for (uint64_t s = pfn - base_; s < pfn - base_ + n; ++s) {
    if (pages_[s].use != PhysUse::kFree) return false;
  }
  return true;
}

void CmaArea::take_range(uint64_t handle, uint64_t pfn, uint64_t n) {
  assert(range_free(pfn, n));
  for (uint64_t s = pfn - base_; s < pfn - base_ + n; ++s) {
    assert(pages_[s].bitmap && "invariant (3)");
    pages_[s].use = PhysUse::kCma;
    update_free(s);
  }
  allocations_[handle] = {pfn, n};
}

std::optional<CmaAllocation> CmaArea::release(uint64_t handle) {
  auto it = allocations_.find(handle);
  if (it == allocations_.end()) return std::nullopt;
  const CmaAllocation a = it->second;
  allocations_.erase(it);
  for (uint64_t s = a.pfn - base_; s < a.pfn - base_ + a.count; ++s) {
    pages_[s].use = PhysUse::kFree;
    pages_[s].bitmap = false;
    update_free(s);
  }
  return a;
}

const CmaAllocation* CmaArea::find_allocation(uint64_t handle) const {
  auto it = allocations_.find(handle);
  return it == allocations_.end() ? nullptr : &it->second;
}

uint64_t CmaArea::nr_allocated() const {
  uint64_t n = 0;
  for (const auto& [h, a] : allocations_) n += a.count;
  return n;
}

}  // namespace mmreplay::kernelsim
