#include "kernelsim/mm/pgtable.h"

#include <cassert>
#include <iterator>

namespace mmreplay::kernelsim {

bool PteMap::is_empty(const Leaf& l) {
  return std::all_of(l.begin(), l.end(), [](uint8_t p) { return p == pte::kNone; });
}

uint64_t PteMap::next_populated(uint64_t addr, uint64_t end) const {
  if (addr >= end) return end;
  const uint64_t key = addr >> PMD_SHIFT;
  if (find_leaf(key) != nullptr) return addr;
  auto it = leaves_.upper_bound(key);
  if (it == leaves_.end()) return end;
  return std::min(end, it->first << PMD_SHIFT);
}

void PteMap::split_at(uint64_t addr, PteMap* tail) {
  assert(tail->empty() && addr % PAGE_SIZE == 0);
  forget();
  tail->forget();
  const uint64_t key = addr >> PMD_SHIFT;
  auto it = leaves_.lower_bound(key);
  if (it != leaves_.end() && it->first == key && slot(addr) != 0) {
    // The leaf straddles the cut: both sides get a copy with the other side's ptes cleared.
    Leaf upper{};
    std::copy(it->second.begin() + static_cast<std::ptrdiff_t>(slot(addr)), it->second.end(),
              upper.begin() + static_cast<std::ptrdiff_t>(slot(addr)));
    std::fill(it->second.begin() + static_cast<std::ptrdiff_t>(slot(addr)), it->second.end(),
              pte::kNone);
    if (!is_empty(upper)) tail->leaves_.emplace(key, upper);
    it = is_empty(it->second) ? leaves_.erase(it) : std::next(it);
  }
  while (it != leaves_.end()) {
    auto cur = it++;
    tail->leaves_.insert(leaves_.extract(cur));  // moves the node: no copy
  }
}

void PteMap::merge_from(PteMap&& other) {
  forget();
  other.forget();
  while (!other.leaves_.empty()) {
    auto node = other.leaves_.extract(other.leaves_.begin());
    auto [pos, inserted, rest] = leaves_.insert(std::move(node));
    if (inserted) continue;
    // Both sides have a leaf for the boundary region: their non-none ptes are disjoint.
    for (size_t i = 0; i < PTRS_PER_PTE; ++i) {
      if (rest.mapped()[i] == pte::kNone) continue;
      assert(pos->second[i] == pte::kNone && "merge_from: overlapping ptes");
      pos->second[i] = rest.mapped()[i];
    }
  }
}

void PteMap::truncate(uint64_t addr) {
  PteMap dropped;
  split_at(addr, &dropped);
}

}  // namespace mmreplay::kernelsim
