#include "kernelsim/mm/pgtable.h"

#include <cassert>
#include <iterator>

namespace mmreplay::kernelsim {

bool PteMap::is_empty(const Leaf& l) {
  return std::all_of(l.begin(), l.end(), [](uint8_t p) { return p == pte::kNone; });
}

PteMap::Leaf* PteMap::new_leaf(uint64_t key) {
  return adopt(key, std::make_unique<Leaf>());  // value-initialized: kNone
}

PteMap::Leaf* PteMap::adopt(uint64_t key, std::unique_ptr<Leaf> l) {
  std::unique_ptr<Dir>& d = dirs_[key >> kDirShift];
  if (d == nullptr) d = std::make_unique<Dir>();
  std::unique_ptr<Leaf>& s = d->leaves[dir_slot(key)];
  assert(s == nullptr && "adopt: a leaf is already there");
  s = std::move(l);
  ++d->used;
  ++nr_leaves_;
  last_key_ = key;
  last_ = s.get();
  last_dir_key_ = key >> kDirShift;
  last_dir_ = d.get();
  return last_;
}

std::unique_ptr<PteMap::Leaf> PteMap::release(DirMap::iterator dir, uint64_t key) {
  Dir& d = *dir->second;
  std::unique_ptr<Leaf> l = std::move(d.leaves[dir_slot(key)]);
  assert(l != nullptr && "release: no leaf there");
  --d.used;
  --nr_leaves_;
  forget();
  if (d.used == 0) dirs_.erase(dir);
  return l;
}

uint64_t PteMap::next_populated(uint64_t addr, uint64_t end) const {
  if (addr >= end) return end;
  const uint64_t key = addr >> PMD_SHIFT;
  if (find_leaf(key) != nullptr) return addr;
  const uint64_t dkey = key >> kDirShift;
  for (auto it = dirs_.lower_bound(dkey); it != dirs_.end(); ++it) {
    const uint64_t base = it->first << kDirShift;
    if ((base << PMD_SHIFT) >= end) return end;
    for (size_t i = it->first == dkey ? dir_slot(key) + 1 : 0; i < kDirEntries; ++i) {
      if (it->second->leaves[i] != nullptr) return std::min(end, (base + i) << PMD_SHIFT);
    }
  }
  return end;
}

void PteMap::split_at(uint64_t addr, PteMap* tail) {
  assert(tail->empty() && addr % PAGE_SIZE == 0);
  forget();
  tail->forget();
  const uint64_t key = addr >> PMD_SHIFT;
  uint64_t first_moved = key;  // the first region whose leaf moves whole
  if (slot(addr) != 0) {
    first_moved = key + 1;
    if (Leaf* l = find_leaf(key); l != nullptr) {
      // The leaf straddles the cut: both sides get a copy with the other side's ptes cleared.
      Leaf upper{};
      std::copy(l->begin() + static_cast<std::ptrdiff_t>(slot(addr)), l->end(),
                upper.begin() + static_cast<std::ptrdiff_t>(slot(addr)));
      std::fill(l->begin() + static_cast<std::ptrdiff_t>(slot(addr)), l->end(), pte::kNone);
      if (!is_empty(upper)) tail->adopt(key, std::make_unique<Leaf>(upper));
      if (is_empty(*l)) release(dirs_.find(key >> kDirShift), key);
    }
  }
  // The directory holding first_moved: its leaves from there on, one by one.
  const uint64_t dkey = first_moved >> kDirShift;
  if (auto it = dirs_.find(dkey); it != dirs_.end()) {
    for (uint64_t k = first_moved; k < (dkey + 1) << kDirShift; ++k) {
      if (it->second->leaves[dir_slot(k)] == nullptr) continue;
      const bool last = it->second->used == 1;
      tail->adopt(k, release(it, k));
      if (last) break;  // release() dropped the directory
    }
  }
  // Directories above it move whole: no copy.
  for (auto it = dirs_.upper_bound(dkey); it != dirs_.end();) {
    auto cur = it++;
    nr_leaves_ -= cur->second->used;
    tail->nr_leaves_ += cur->second->used;
    tail->dirs_.insert(dirs_.extract(cur));
  }
  forget();
  tail->forget();
}

void PteMap::merge_from(PteMap&& other) {
  forget();
  other.forget();
  while (!other.dirs_.empty()) {
    auto theirs = other.dirs_.begin();
    auto mine = dirs_.find(theirs->first);
    if (mine == dirs_.end()) {
      nr_leaves_ += theirs->second->used;
      other.nr_leaves_ -= theirs->second->used;
      dirs_.insert(other.dirs_.extract(theirs));
      continue;
    }
    Dir& into = *mine->second;
    for (size_t i = 0; i < kDirEntries; ++i) {
      std::unique_ptr<Leaf>& from = theirs->second->leaves[i];
      if (from == nullptr) continue;
      --other.nr_leaves_;
      std::unique_ptr<Leaf>& to = into.leaves[i];
      if (to == nullptr) {
        to = std::move(from);
        ++into.used;
        ++nr_leaves_;
        continue;
      }
      // Both sides have a leaf for the boundary region: their non-none ptes are disjoint.
      for (size_t j = 0; j < PTRS_PER_PTE; ++j) {
        if ((*from)[j] == pte::kNone) continue;
        assert((*to)[j] == pte::kNone && "merge_from: overlapping ptes");
        (*to)[j] = (*from)[j];
      }
    }
    other.dirs_.erase(theirs);
  }
  assert(other.nr_leaves_ == 0);
}

void PteMap::truncate(uint64_t addr) {
  PteMap dropped;
  split_at(addr, &dropped);
}

}  // namespace mmreplay::kernelsim
