#include "kernelsim/arch/x86/stlb.h"

#include <algorithm>
#include <cassert>

namespace mmreplay::kernelsim {

const char* check_stlb_geometry(const StlbGeometry& g) {
  if (g.entries == 0) return "";
  if (g.ways == 0 || g.entries % g.ways != 0) return "stlb entries must be a multiple of its ways";
  const uint32_t sets = g.entries / g.ways;
  if ((sets & (sets - 1)) != 0) return "stlb entries / ways must be a power of two";
  return "";
}

void Stlb::configure(const StlbGeometry& g) {
  assert(*check_stlb_geometry(g) == '\0');
  entries_.assign(g.entries, 0);
  ways_ = g.entries == 0 ? 0 : g.ways;
  set_mask_ = g.entries == 0 ? 0 : g.entries / g.ways - 1;
}

bool Stlb::access(uint64_t vpn) {
  if (ways_ == 0 || vpn > kVpnMask) return true;
  uint64_t* set = &entries_[(vpn & set_mask_) * ways_];
  const uint64_t want = valid(vpn);
  uint32_t victim = ways_ - 1;  // the least recently used, or the first invalid entry
  for (uint32_t i = 0; i < ways_; ++i) {
    if (set[i] == want) {
      std::rotate(set, set + i, set + i + 1);  // most recently used first
      return true;
    }
    if (!is_valid(set[i])) {
      victim = i;
      break;
    }
  }
  // Valid entries sit before invalid ones (a hit or a fill moves to the front, an invalidation
  // closes the gap): past the first invalid entry the page cannot be (invariant (1)).
  std::move_backward(set, set + victim, set + victim + 1);
  set[0] = want;
  filled_ |= filter_bit(vpn);
  return false;
}

void Stlb::invalidate(uint64_t vpn) {
  if ((filled_ & filter_bit(vpn)) == 0) return;  // never filled since the last full flush
  uint64_t* set = &entries_[(vpn & set_mask_) * ways_];
  const uint64_t want = valid(vpn);
  for (uint32_t i = 0; i < ways_ && is_valid(set[i]); ++i) {
    if (set[i] != want) continue;
    // Keep the valid entries first: the rest of the set moves up over the hole.
    std::move(set + i + 1, set + ways_, set + i);
    set[ways_ - 1] = 0;
    return;
  }
}

void Stlb::flush_range(uint64_t start_vpn, uint64_t end_vpn) {
  if (ways_ == 0 || start_vpn >= end_vpn) return;
  if (end_vpn - start_vpn <= set_mask_ + 1) {
    for (uint64_t v = start_vpn; v < end_vpn && v <= kVpnMask; ++v) invalidate(v);
    return;
  }
  // A range wider than the sets: look at every valid entry once instead.
  for (uint64_t s = 0; s <= set_mask_; ++s) {
    uint64_t* set = &entries_[s * ways_];
    uint32_t kept = 0;
    for (uint32_t i = 0; i < ways_ && is_valid(set[i]); ++i) {
      const uint64_t vpn = set[i] & kVpnMask;
      if (vpn < start_vpn || vpn >= end_vpn) set[kept++] = set[i];
    }
    for (uint32_t i = kept; i < ways_; ++i) set[i] = 0;
  }
}

uint32_t Stlb::nr_valid() const {
  return static_cast<uint32_t>(
      std::count_if(entries_.begin(), entries_.end(), [&](uint64_t e) { return is_valid(e); }));
}

}  // namespace mmreplay::kernelsim
