#include "kernelsim/mm/madvise_behavior.h"

#include <algorithm>
#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmap.h"
#include "kernelsim/mm/vma_lock.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// What an advice sets and clears.
struct FlagChange {
  uint32_t set = 0;
  uint32_t clear = 0;
};

// Models madvise_vma_behavior()'s switch: the new_flags of each advice.
FlagChange flag_change(int advice) {
  switch (advice) {
    case MADV_NORMAL:
      return {0, VM_RAND_READ | VM_SEQ_READ};
    case MADV_RANDOM:
      return {VM_RAND_READ, VM_SEQ_READ};
    case MADV_SEQUENTIAL:
      return {VM_SEQ_READ, VM_RAND_READ};
    case MADV_DONTFORK:
      return {VM_DONTCOPY, 0};
    case MADV_DOFORK:
      return {0, VM_DONTCOPY};
    case MADV_HUGEPAGE:  // hugepage_madvise()
      return {VM_HUGEPAGE, VM_NOHUGEPAGE};
    case MADV_NOHUGEPAGE:
      return {VM_NOHUGEPAGE, VM_HUGEPAGE};
    case MADV_DONTDUMP:
      return {VM_DONTDUMP, 0};
    case MADV_DODUMP:
      return {0, VM_DONTDUMP};
    case MADV_WIPEONFORK:
      return {VM_WIPEONFORK, 0};
    case MADV_KEEPONFORK:
      return {0, VM_WIPEONFORK};
    case MADV_MERGEABLE:  // ksm_madvise()
      return {VM_MERGEABLE, 0};
    case MADV_UNMERGEABLE:
      return {0, VM_MERGEABLE};
    default:
      return {};
  }
}

}  // namespace

bool madvise_changes_vm_flags(int advice) {
  const FlagChange c = flag_change(advice);
  return (c.set | c.clear) != 0;
}

Co<int64_t> madvise_update_vmas(Task& t, Mm& mm, uint64_t start, uint64_t end, int advice) {
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  const FlagChange change = flag_change(advice);
  co_await mm.mmap_sem.down_write(t);  // madvise_need_mmap_write()
  int64_t result = mm.vmas.range_is_mapped(start, end) ? 0 : -ERRNO_ENOMEM;
  const std::vector<Vma*> vmas = mm.vmas.intersecting(start, end);
  const auto new_flags = [&change, advice](const Vma& v) {
    // ksm_madvise(): KSM leaves shared mappings alone, and the call still succeeds.
    if (advice == MADV_MERGEABLE && v.kind == VmaKind::kFileShared) return v.vm_flags;
    return (v.vm_flags & ~change.clear) | change.set;
  };
  const bool changes = std::any_of(vmas.begin(), vmas.end(), [&new_flags](const Vma* v) {
    return new_flags(*v) != v->vm_flags;
  });
  if (changes) co_await vma_start_write_range(t, mm, start, end);
  co_await sync_point(t);
  for (Vma* v : vmas) {
    // madvise_vma_behavior() -> madvise_update_vma() for the part of v in the range.
    if (advice == MADV_WIPEONFORK && !v->is_anonymous()) {  // VM_SHARED or a file: -EINVAL
      result = -ERRNO_EINVAL;
      break;
    }
    const uint32_t flags = new_flags(*v);
    if (flags == v->vm_flags) continue;
    if (v->start < start) {
      v = mm.vmas.split_vma(v, start, mm.mm_lock_seq);
      t.work(c.vma_split);
    }
    if (v->end > end) {
      mm.vmas.split_vma(v, end, mm.mm_lock_seq);
      t.work(c.vma_split);
    }
    v->vm_flags = flags;
  }
  // vma_merge() at the changed VMAs' boundaries, once every VMA of the range has its flags.
  uint64_t merges = 0;
  if (changes) {
    for (Vma* v = mm.vmas.find_vma(start); v != nullptr && v->start < end;
         v = mm.vmas.find_vma(v->end)) {
      v = mm.vmas.merge_around(v, mm.mm_lock_seq, &merges);
    }
  }
  t.work(c.vma_merge * static_cast<int64_t>(merges));
  co_await mmap_write_unlock(t, mm);
  co_return result;
}

}  // namespace mmreplay::kernelsim
