// Vma and VmaTree: an mm's virtual memory areas (struct vm_area_struct and the VMA tree).
//
// A Vma covers [start, end), page aligned, with one protection and one backing: anonymous
// private, file private or file shared. It carries its pages' pte state (mm/pgtable.h: sparse,
// one leaf per touched 2 MiB region) and its
// per-VMA lock. The tree keeps VMAs sorted and non-overlapping and does the structural edits of
// mm/mmap.c and mm/vma.c: split (__split_vma()) and merge (vma_merge()).
//
// Invariants (asserted in vma.cpp):
//  (1) VMAs do not overlap; start < end; both page aligned.
//  (2) every non-none pte of a VMA's PteMap lies in [start, end).
//  (3) Two adjacent VMAs with the same prot, kind, file and contiguous pgoff are merged whenever
//      the tree is asked to merge at their boundary (and their locks allow it).

#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/mm/pgtable.h"
#include "kernelsim/mm/swap_readahead.h"
#include "kernelsim/mm/vma_lock.h"
#include "kernelsim/sim/task.h"

namespace mmreplay::kernelsim {

enum class VmaKind : uint8_t { kAnonPrivate, kFilePrivate, kFileShared };

struct Vma {
  uint64_t start = 0;
  uint64_t end = 0;
  uint32_t prot = 0;
  VmaKind kind = VmaKind::kAnonPrivate;
  uint32_t file = 0;   // file id, 0 for anonymous
  uint64_t pgoff = 0;  // page offset in the file; anonymous: start >> PAGE_SHIFT at creation
  PteMap ptes;         // by address: ptes.get(addr), ptes.ref(addr)
  VmaLock lock;
  SwapRaState swap_ra;    // vma->swap_readahead_info (mm/swap_readahead.h)
  uint32_t vm_flags = 0;  // the madvise() bits of vm_flags (VM_RAND_READ, ...: constants.h)

  uint64_t nr_pages() const { return (end - start) >> PAGE_SHIFT; }
  bool contains(uint64_t addr) const { return addr >= start && addr < end; }
  // vma_is_anonymous()
  bool is_anonymous() const { return kind == VmaKind::kAnonPrivate; }
  // The fault's access check (arch/x86/mm/fault.c: access_error()).
  bool access_ok(bool write) const {
    return write ? (prot & PROT_WRITE) != 0 : (prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) != 0;
  }
};

class VmaTree {
 public:
  // First VMA with end > addr (find_vma()), or nullptr.
  Vma* find_vma(uint64_t addr) const;
  // The VMA containing addr, or nullptr (vma_lookup()).
  Vma* vma_lookup(uint64_t addr) const;
  // The same through a task's vmacache (mm/vmacache.c: vmacache_find(), vmacache_update()).
  // REQUIRES: this is the tree of the cache owner's mm.
  Vma* vma_lookup(uint64_t addr, VmaCache& cache) const;
  // True when no VMA intersects [start, end).
  bool range_is_free(uint64_t start, uint64_t end) const;
  // True when [start, end) is covered by VMAs without holes.
  bool range_is_mapped(uint64_t start, uint64_t end) const;
  // VMAs intersecting [start, end), in address order.
  std::vector<Vma*> intersecting(uint64_t start, uint64_t end) const;
  bool intersects(uint64_t start, uint64_t end) const { return !range_is_free(start, end); }

  // Inserts a VMA. REQUIRES: range_is_free(vma->start, vma->end).
  Vma* insert(std::unique_ptr<Vma> vma);
  // Removes and returns a VMA (its pages must have been zapped).
  std::unique_ptr<Vma> erase(Vma* vma);
  // Models __split_vma(): vma keeps [start, addr), the returned new VMA gets [addr, end).
  // REQUIRES: vma->start < addr < vma->end, page aligned.
  Vma* split_vma(Vma* vma, uint64_t addr, uint64_t mm_lock_seq);
  // Models vma_merge() at vma's two boundaries. Returns the VMA now covering vma's range.
  // Merges only neighbours without per-VMA readers (a fault holding one blocks the merge).
  Vma* merge_around(Vma* vma, uint64_t mm_lock_seq, uint64_t* merges);
  // Models vma_expand() / shrink of the end of vma. REQUIRES: the new range is free/owned.
  void set_end(Vma* vma, uint64_t new_end);

  // Models arch_get_unmapped_area_topdown(): highest free gap of len below `below`; 0 if none.
  uint64_t get_unmapped_area(uint64_t len, uint64_t below) const;

  size_t size() const { return by_start_.size(); }
  bool empty() const { return by_start_.empty(); }
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [s, v] : by_start_) fn(*v);
  }

 private:
  static bool can_merge(const Vma& a, const Vma& b);
  std::map<uint64_t, std::unique_ptr<Vma>> by_start_;
  // mm->vmacache_seqnum: bumped by every change of a VMA's range or of the tree (a VmaCache
  // filled before holds pointers that may dangle).
  uint64_t seq_ = 0;
};

}  // namespace mmreplay::kernelsim
