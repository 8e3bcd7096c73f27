// Models kernel/fork.c: dup_mmap(), the mm copy of fork without CLONE_VM (copy_mm() -> dup_mm()),
// and the parent's side of kernel_clone() that starts the child.

#include "kernelsim/kernel/fork.h"

#include <cassert>
#include <memory>
#include <vector>

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmap.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

Co<bool> dup_mmap(Task& t, Mm& mm, Mm& oldmm) {
  assert(&mm != &oldmm && !oldmm.dead && mm.vmas.empty() && !mm.forked);
  Simulation& sim = t.sim();
  co_await oldmm.mmap_sem.down_write(t);  // mmap_write_lock_killable(oldmm)
  mm.forked = true;
  mm.mmap_base = oldmm.mmap_base;
  mm.start_brk = oldmm.start_brk;
  mm.brk = oldmm.brk;
  mm.memcg_id = oldmm.memcg_id;
  mm.cow_peers.push_back(&oldmm);
  oldmm.cow_peers.push_back(&mm);
  std::vector<Vma*> vmas;
  oldmm.vmas.for_each([&](Vma& v) { vmas.push_back(&v); });
  if (!vmas.empty()) {  // vma_start_write() of each: per-VMA-lock faults wait for the copy
    co_await vma_start_write_range(t, oldmm, vmas.front()->start, vmas.back()->end);
  }
  bool ok = true;
  for (Vma* src : vmas) {
    if (src->vm_flags & VM_DONTCOPY) continue;  // MADV_DONTFORK: the child has no such VMA
    t.work(sim.costs().vma_alloc);              // vm_area_dup()
    auto v = std::make_unique<Vma>();
    v->start = src->start;
    v->end = src->end;
    v->prot = src->prot;
    v->kind = src->kind;
    v->file = src->file;
    v->pgoff = src->pgoff;
    v->swap_ra = src->swap_ra;  // vm_area_dup() copies swap_readahead_info
    v->vm_flags = src->vm_flags;
    Vma* dst = mm.vmas.insert(std::move(v));
    // MADV_WIPEONFORK: the child's VMA starts empty (an anonymous one faults zero pages).
    if (src->vm_flags & VM_WIPEONFORK) continue;
    if (!co_await copy_page_range(t, mm, *dst, oldmm, *src)) {
      ok = false;
      break;
    }
  }
  // flush_tlb_mm(oldmm): the parent's ptes were write-protected. The span of its VMAs stands
  // for TLB_FLUSH_ALL (over the flush ceiling it is a full flush).
  if (!vmas.empty()) {
    co_await flush_tlb_mm_range(t, FlushTlbInfo{&oldmm, vmas.front()->start, vmas.back()->end});
  }
  co_await mmap_write_unlock(t, oldmm);
  co_return ok;
}

bool needs_dup_mmap(const Mm& mm, const Mm& oldmm) {
  return &mm != &oldmm && !oldmm.dead && !mm.forked && mm.vmas.empty();
}

Co<bool> do_clone(Task& t, uint64_t child_key) {
  Simulation& sim = t.sim();
  Task* child = sim.clone_child(child_key);
  if (child == nullptr) co_return false;
  // copy_mm(): CLONE_VM shares t's mm (the child was created in it); fork copies it now.
  if (Mm* mm = child->mm(); mm != nullptr && t.mm() != nullptr && needs_dup_mmap(*mm, *t.mm())) {
    co_await dup_mmap(t, *mm, *t.mm());
  }
  co_await sync_point(t);  // wake_up_new_task(): the child becomes runnable at the parent's time
  // copy_process(): the child joins the caller's children list (its real_parent is the caller;
  // CLONE_PARENT and CLONE_THREAD, which make it a sibling, are not told apart).
  child->parent = &t;
  t.children.push_back(child);
  sim.start_clone_child(child_key, t.clock());
  co_return true;
}

}  // namespace mmreplay::kernelsim
