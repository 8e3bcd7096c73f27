#include "kernelsim/mm/mremap.h"

#include <algorithm>
#include <memory>

#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmap.h"
#include "kernelsim/mm/mmu_gather.h"
#include "kernelsim/mm/swap_count.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models move_vma() + move_page_tables(): [old, old + old_len) (one whole VMA) moves to
// [new_addr, new_addr + new_len). With MREMAP_DONTUNMAP (`dontunmap`) the old VMA stays, its
// ptes empty (the pages went with the move), so later accesses there fault in fresh pages.
// Returns false on OOM for a PTE page.
Co<bool> move_vma(Task& t, Mm& mm, Vma* vma, uint64_t new_addr, uint64_t new_len, bool dontunmap) {
  Simulation& sim = t.sim();
  t.work(sim.costs().move_vma);
  const uint64_t old_start = vma->start;
  const uint64_t old_end = vma->end;
  auto moved = std::make_unique<Vma>();
  moved->start = new_addr;
  moved->end = new_addr + new_len;
  moved->prot = vma->prot;
  moved->kind = vma->kind;
  moved->file = vma->file;
  moved->pgoff = vma->pgoff;
  moved->swap_ra = vma->swap_ra;  // copy_vma() -> vm_area_dup()
  moved->vm_flags = vma->vm_flags;
  // move_ptes(): the ptes keep their offset in the VMA (a leafless region has nothing to move).
  const uint64_t kept_end = old_start + std::min(old_end - old_start, new_len);
  for (uint64_t a = vma->ptes.next_populated(old_start, kept_end); a < kept_end;
       a = vma->ptes.next_populated(a + PAGE_SIZE, kept_end)) {
    const uint8_t p = vma->ptes.get(a);
    if (p != pte::kNone) moved->ptes.ref(new_addr + (a - old_start)) = p;
  }
  moved->lock.mark_write_locked(mm.mm_lock_seq);
  // move_ptes() flushes the old range itself once a present pte moved (flush_tlb_range(), a
  // page at a time up to the ceiling); the old range's unmap flushes its freed tables apart.
  // One flush stands for move_page_tables()' one per PMD extent.
  MmuGather moved_ptes(mm);
  for (uint64_t a = vma->ptes.next_populated(old_start, old_end); a < old_end;
       a = vma->ptes.next_populated(a + PAGE_SIZE, old_end)) {
    const uint64_t i = (a - old_start) >> PAGE_SHIFT;
    if (!pte::is_mapped(vma->ptes.get(a))) continue;
    t.work(sim.costs().pte_move);
    moved_ptes.tlb_adjust_range(old_start + i * PAGE_SIZE);
    if (mm.pte_tables.ensure(new_addr + i * PAGE_SIZE)) {
      PageAllocator& pa = sim.page_alloc();
      if (!pa.alloc_page_fast(t, PageUse::kPageTable) &&
          !co_await pa.alloc_page_slow(t, PageUse::kPageTable)) {
        mm.pte_tables.drop((new_addr + i * PAGE_SIZE) >> PMD_SHIFT);
        co_return false;
      }
      t.work(clear_page_cost(t));
    }
  }
  co_await sync_point(t);  // the move becomes visible at the end of move_page_tables()
  for (uint64_t a = vma->ptes.next_populated(old_start, kept_end); a < kept_end;
       a = vma->ptes.next_populated(a + PAGE_SIZE, kept_end)) {
    const uint8_t p = vma->ptes.get(a);
    const uint64_t to = new_addr + (a - old_start);
    if (pte::is_mapped(p) && (p & pte::kOwnPage)) {
      sim.lruvec().page_move_anon_rmap(mm, a, to);
    } else if (const bool shared = swap_entry_shared(mm, p, a);
               shared || moved->ptes.get(to) == (pte::kSwapped | pte::kCowShared)) {
      // An entry fork shares: its record follows (mm/swap_count.h). What fork peers did to the
      // old pte during the move holds for the moved one: a peer's swap-in or exit changed an
      // entry (swap_cache_share(), swap_entry_free()), a peer's reclaim made a fork-shared page
      // an entry (swap_entry_share_on_unmap()).
      moved->ptes.ref(to) = p;
      if (shared) move_swap_entry(mm, a, to);
    }
  }
  co_await tlb_finish_mmu(t, moved_ptes);
  MmuGather tlb(mm);  // do_vmi_munmap() of the old range: its freed tables
  if (dontunmap) {
    for (uint64_t a = vma->ptes.next_populated(old_start, old_end); a < old_end;
         a = vma->ptes.next_populated(a + PAGE_SIZE, old_end)) {
      vma->ptes.ref(a) = pte::kNone;
    }
  } else {
    mm.vmas.erase(vma);
    t.work(sim.costs().vma_remove);  // do_vmi_munmap() of the old range
    free_pgtables(t, mm, old_start & ~(PMD_SIZE - 1), (old_end + PMD_SIZE - 1) & ~(PMD_SIZE - 1),
                  tlb);
  }
  co_await tlb_finish_mmu(t, tlb);
  Vma* placed = mm.vmas.insert(std::move(moved));
  t.work(sim.costs().vma_alloc);
  uint64_t merges = 0;
  mm.vmas.merge_around(placed, mm.mm_lock_seq, &merges);
  co_return true;
}

// Models vma_expand() as mremap uses it: the VMA ending at addr + old_len grows in place.
// `recorded`: the kernel grew it here, so a mapping in the way in the model is stale: it goes.
Co<void> mremap_expand(Task& t, Mm& mm, uint64_t addr, uint64_t old_len, uint64_t new_len,
                       bool recorded) {
  if (recorded && !mm.vmas.range_is_free(addr + old_len, addr + new_len)) {
    ++t.sim().vm().addr_mismatch;
    co_await do_munmap(t, mm, addr + old_len, addr + new_len);
  }
  Vma* vma = mm.vmas.vma_lookup(addr);
  co_await vma_start_write_range(t, mm, vma->start, vma->end);
  mm.vmas.set_end(vma, addr + new_len);
  t.work(t.sim().costs().vma_expand);
}

// Where a moving mremap goes: the recorded address (the kernel's result, with the model's
// mappings there unmapped as by MREMAP_FIXED, and counted), or get_unmapped_area().
// Returns 0 when there is no room.
Co<uint64_t> mremap_target(Task& t, Mm& mm, const Op& op, uint64_t old_len, uint64_t new_len) {
  // The kernel searched (get_unmapped_area() in mremap_to()/move path) whether or not the trace
  // says where it found room.
  t.work(t.sim().costs().get_unmapped_area);
  const uint64_t want = op.new_addr;
  if (op.addr_recorded && want != 0 && want % PAGE_SIZE == 0 && want + new_len <= TASK_SIZE) {
    const bool on_source = want < op.addr + old_len && op.addr < want + new_len;
    if (!on_source) {
      if (!mm.vmas.range_is_free(want, want + new_len)) {
        ++t.sim().vm().addr_mismatch;
        co_await do_munmap(t, mm, want, want + new_len);
      }
      co_return want;
    }
    ++t.sim().vm().addr_mismatch;  // the kernel cannot have moved it onto itself
  }
  co_return mm.vmas.get_unmapped_area(new_len, mm.mmap_base);
}

// The locked part of sys_mremap(). Returns the new address or -errno.
Co<int64_t> mremap_locked(Task& t, Mm& mm, const Op& op, uint64_t old_len, uint64_t new_len) {
  const uint64_t addr = op.addr;
  Vma* vma = mm.vmas.vma_lookup(addr);
  if (vma == nullptr || addr + old_len > vma->end) co_return -ERRNO_EFAULT;
  const bool fixed = (op.flags & MREMAP_FIXED) != 0;
  // MREMAP_DONTUNMAP always moves (the kernel requires MAYMOVE and old_len == new_len).
  const bool dontunmap = (op.flags & MREMAP_DONTUNMAP) != 0;
  if (dontunmap && (old_len != new_len || (op.flags & MREMAP_MAYMOVE) == 0)) {
    co_return -ERRNO_EINVAL;
  }
  // A recorded result says whether the kernel moved it; without one the model decides.
  const bool recorded = op.addr_recorded && op.new_addr != 0 && !fixed;
  const bool stays = recorded && op.new_addr == addr;
  if (!dontunmap && !fixed && new_len <= old_len && (!recorded || stays)) {
    if (new_len < old_len) co_await do_munmap(t, mm, addr + new_len, addr + old_len);
    co_return static_cast<int64_t>(addr);
  }
  const bool expandable = new_len > old_len && vma->end == addr + old_len &&
                          mm.vmas.range_is_free(addr + old_len, addr + new_len);
  if (!dontunmap && (stays || (!fixed && !recorded && expandable))) {
    if (stays && vma->end != addr + old_len) {  // the model's VMA goes on: mremap_expand()
      co_await vma_start_write_range(t, mm, vma->start, vma->end);
      mm.vmas.split_vma(vma, addr + old_len, mm.mm_lock_seq);
    }
    co_await mremap_expand(t, mm, addr, old_len, new_len, stays);
    co_return static_cast<int64_t>(addr);
  }
  if (recorded && expandable) ++t.sim().vm().addr_mismatch;  // the kernel found no room here
  if (!fixed && !recorded && (op.flags & MREMAP_MAYMOVE) == 0) co_return -ERRNO_ENOMEM;
  uint64_t target = op.new_addr;
  if (fixed) {
    if (target % PAGE_SIZE != 0 || target + new_len > TASK_SIZE) co_return -ERRNO_EINVAL;
    co_await do_munmap(t, mm, target, target + new_len);
  } else {
    target = co_await mremap_target(t, mm, op, old_len, new_len);
    if (target == 0) co_return -ERRNO_ENOMEM;
  }
  co_await vma_start_write_range(t, mm, addr, addr + old_len);
  for (uint64_t at : {addr, addr + old_len}) {
    if (Vma* v = mm.vmas.vma_lookup(at); v != nullptr && v->start < at)
      mm.vmas.split_vma(v, at, mm.mm_lock_seq);
  }
  vma = mm.vmas.vma_lookup(addr);
  if (!co_await move_vma(t, mm, vma, target, new_len, dontunmap)) co_return -ERRNO_ENOMEM;
  co_return static_cast<int64_t>(target);
}

}  // namespace

Co<int64_t> sys_mremap(Task& t, const Op& op) {
  t.work(t.sim().costs().syscall_entry);
  Mm* mm = t.mm();
  const uint64_t old_len = PAGE_ALIGN(op.len);
  const uint64_t new_len = PAGE_ALIGN(op.new_len);
  if (mm == nullptr || mm->dead || op.addr % PAGE_SIZE != 0 || old_len == 0 || new_len == 0 ||
      op.addr + old_len > TASK_SIZE || new_len > TASK_SIZE) {
    co_return -ERRNO_EINVAL;
  }
  co_await mm->mmap_sem.down_write(t);
  const int64_t result = co_await mremap_locked(t, *mm, op, old_len, new_len);
  co_await mmap_write_unlock(t, *mm);
  co_return result;
}

}  // namespace mmreplay::kernelsim
