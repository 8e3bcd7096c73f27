#include "kernelsim/mm/vma.h"

#include <cassert>
#include <iterator>

namespace mmreplay::kernelsim {

Vma* VmaTree::find_vma(uint64_t addr) const {
  auto it = by_start_.upper_bound(addr);
  if (it != by_start_.begin()) {
    auto prev = std::prev(it);
    if (prev->second->end > addr) return prev->second.get();
  }
  return it == by_start_.end() ? nullptr : it->second.get();
}

Vma* VmaTree::vma_lookup(uint64_t addr) const {
  Vma* v = find_vma(addr);
  return v != nullptr && v->start <= addr ? v : nullptr;
}

Vma* VmaTree::vma_lookup(uint64_t addr, VmaCache& cache) const {
  if (cache.tree == this && cache.seq == seq_) {
    for (Vma* v : cache.vmas) {
      if (v != nullptr && v->contains(addr)) return v;
    }
  } else {
    cache.tree = this;
    cache.seq = seq_;
    cache.vmas.fill(nullptr);
  }
  Vma* v = vma_lookup(addr);
  if (v != nullptr) cache.vmas[(addr >> PAGE_SHIFT) % VmaCache::kSize] = v;  // VMACACHE_HASH()
  return v;
}

bool VmaTree::range_is_free(uint64_t start, uint64_t end) const {
  Vma* v = find_vma(start);
  return v == nullptr || v->start >= end;
}

bool VmaTree::range_is_mapped(uint64_t start, uint64_t end) const {
  uint64_t at = start;
  while (at < end) {
    Vma* v = vma_lookup(at);
    if (v == nullptr) return false;
    at = v->end;
  }
  return true;
}

std::vector<Vma*> VmaTree::intersecting(uint64_t start, uint64_t end) const {
  std::vector<Vma*> out;
  for (Vma* v = find_vma(start); v != nullptr && v->start < end; v = find_vma(v->end))
    out.push_back(v);
  return out;
}

Vma* VmaTree::insert(std::unique_ptr<Vma> vma) {
  assert(vma->start < vma->end && vma->start % PAGE_SIZE == 0 && vma->end % PAGE_SIZE == 0);
  assert(range_is_free(vma->start, vma->end) && "invariant (1)");
  assert(vma->ptes.next_populated(0, vma->start & ~(PMD_SIZE - 1)) ==
             (vma->start & ~(PMD_SIZE - 1)) &&
         "invariant (2): no leaf below the VMA's first 2 MiB region");
  Vma* raw = vma.get();
  by_start_.emplace(raw->start, std::move(vma));
  ++seq_;
  return raw;
}

std::unique_ptr<Vma> VmaTree::erase(Vma* vma) {
  auto it = by_start_.find(vma->start);
  assert(it != by_start_.end() && it->second.get() == vma);
  std::unique_ptr<Vma> out = std::move(it->second);
  by_start_.erase(it);
  ++seq_;
  return out;
}

Vma* VmaTree::split_vma(Vma* vma, uint64_t addr, uint64_t mm_lock_seq) {
  assert(vma->start < addr && addr < vma->end && addr % PAGE_SIZE == 0);
  auto tail = std::make_unique<Vma>();
  tail->start = addr;
  tail->end = vma->end;
  tail->prot = vma->prot;
  tail->kind = vma->kind;
  tail->file = vma->file;
  tail->pgoff = vma->pgoff + ((addr - vma->start) >> PAGE_SHIFT);
  tail->swap_ra = vma->swap_ra;  // vm_area_dup() copies swap_readahead_info
  tail->vm_flags = vma->vm_flags;
  vma->ptes.split_at(addr, &tail->ptes);
  tail->lock.mark_write_locked(mm_lock_seq);
  vma->end = addr;
  ++seq_;
  return insert(std::move(tail));
}

bool VmaTree::can_merge(const Vma& a, const Vma& b) {
  return a.end == b.start && a.prot == b.prot && a.vm_flags == b.vm_flags && a.kind == b.kind &&
         a.file == b.file && a.pgoff + a.nr_pages() == b.pgoff && a.lock.readers() == 0 &&
         b.lock.readers() == 0;
}

Vma* VmaTree::merge_around(Vma* vma, uint64_t mm_lock_seq, uint64_t* merges) {
  Vma* next = find_vma(vma->end);
  if (next != nullptr && can_merge(*vma, *next)) {
    vma->ptes.merge_from(std::move(next->ptes));
    vma->end = next->end;
    erase(next);
    vma->lock.mark_write_locked(mm_lock_seq);
    ++*merges;
  }
  auto it = by_start_.find(vma->start);
  if (it != by_start_.begin()) {
    Vma* prev = std::prev(it)->second.get();
    if (can_merge(*prev, *vma)) {
      prev->ptes.merge_from(std::move(vma->ptes));
      prev->end = vma->end;
      erase(vma);
      prev->lock.mark_write_locked(mm_lock_seq);
      ++*merges;
      return prev;
    }
  }
  return vma;
}

void VmaTree::set_end(Vma* vma, uint64_t new_end) {
  assert(new_end > vma->start && new_end % PAGE_SIZE == 0);
  assert(new_end <= vma->end || range_is_free(vma->end, new_end));
  if (new_end < vma->end) vma->ptes.truncate(new_end);
  vma->end = new_end;
  ++seq_;
}

uint64_t VmaTree::get_unmapped_area(uint64_t len, uint64_t below) const {
  uint64_t top = below;
  for (auto it = by_start_.rbegin(); it != by_start_.rend(); ++it) {
    const Vma& v = *it->second;
    if (v.start >= top) continue;
    if (v.end <= top && top - v.end >= len) return top - len;
    top = v.start;
  }
  return top >= mmap_min_addr + len ? top - len : 0;
}

}  // namespace mmreplay::kernelsim
