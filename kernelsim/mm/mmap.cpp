#include "kernelsim/mm/mmap.h"

#include <cassert>
#include <memory>
#include <vector>

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmu_gather.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

VmaKind kind_of(const Op& op) {
  if ((op.flags & MAP_ANONYMOUS) != 0 || op.file == 0) {
    return (op.flags & MAP_SHARED) != 0 ? VmaKind::kFileShared : VmaKind::kAnonPrivate;
  }
  return (op.flags & MAP_SHARED) != 0 ? VmaKind::kFileShared : VmaKind::kFilePrivate;
}

// Inserts a new VMA and merges it with its neighbours (vma_merge() / vma_link()).
Vma* vma_link(Task& t, Mm& mm, uint64_t start, uint64_t end, uint32_t prot, VmaKind kind,
              uint32_t file, uint64_t pgoff) {
  auto v = std::make_unique<Vma>();
  v->start = start;
  v->end = end;
  v->prot = prot;
  v->kind = kind;
  v->file = file;
  v->pgoff = pgoff;
  v->lock.mark_write_locked(mm.mm_lock_seq);
  Vma* vma = mm.vmas.insert(std::move(v));
  t.work(t.sim().costs().vma_alloc);
  uint64_t merges = 0;
  vma = mm.vmas.merge_around(vma, mm.mm_lock_seq, &merges);
  t.work(t.sim().costs().vma_merge * static_cast<int64_t>(merges));
  return vma;
}

// Splits the VMAs at start and end so that [start, end) is made of whole VMAs.
void split_at_ends(Task& t, Mm& mm, uint64_t start, uint64_t end) {
  if (Vma* v = mm.vmas.vma_lookup(start); v != nullptr && v->start < start) {
    mm.vmas.split_vma(v, start, mm.mm_lock_seq);
    t.work(t.sim().costs().vma_split);
  }
  if (Vma* v = mm.vmas.vma_lookup(end); v != nullptr && v->start < end) {
    mm.vmas.split_vma(v, end, mm.mm_lock_seq);
    t.work(t.sim().costs().vma_split);
  }
}

}  // namespace

Co<void> mmap_write_unlock(Task& t, Mm& mm) {
  co_await mm.mmap_sem.up_write(t);
  ++mm.mm_lock_seq;
}

Co<void> vma_start_write_range(Task& t, Mm& mm, uint64_t start, uint64_t end) {
  for (Vma* v : mm.vmas.intersecting(start, end)) {
    if (v->lock.is_write_locked(mm.mm_lock_seq)) continue;
    co_await VmaLockStep(t, v->lock, VmaLockStep::Kind::kStartWrite, mm.mm_lock_seq);
  }
}

Co<void> do_munmap(Task& t, Mm& mm, uint64_t start, uint64_t end) {
  if (mm.vmas.range_is_free(start, end)) co_return;
  co_await vma_start_write_range(t, mm, start, end);
  split_at_ends(t, mm, start, end);
  const std::vector<Vma*> victims = mm.vmas.intersecting(start, end);
  co_await t.sim().lruvec().lru_add_drain_before_zap(t);  // unmap_region()
  MmuGather tlb(mm);
  for (Vma* v : victims) co_await zap_pte_range(t, *v, v->start, v->end, tlb);
  co_await sync_point(t);  // the tree changes at the end of the zap, not before
  std::vector<std::unique_ptr<Vma>> detached;
  for (Vma* v : victims) detached.push_back(mm.vmas.erase(v));
  // vms_complete_munmap_vmas(): the tree store over the range, remove_vma() of each.
  t.work(t.sim().costs().vma_remove * static_cast<int64_t>(victims.size()));
  free_pgtables(t, mm, start & ~(PMD_SIZE - 1), (end + PMD_SIZE - 1) & ~(PMD_SIZE - 1), tlb);
  co_await tlb_finish_mmu(t, tlb);
}

Co<int64_t> sys_mmap(Task& t, const Op& op) {
  Simulation& sim = t.sim();
  t.work(sim.costs().syscall_entry);
  Mm* mm = t.mm();
  const uint64_t len = PAGE_ALIGN(op.len);
  const bool fixed = (op.flags & MAP_FIXED) != 0;
  if (mm == nullptr || mm->dead || len == 0 || len > TASK_SIZE ||
      (fixed && op.addr % PAGE_SIZE != 0)) {
    co_return -ERRNO_EINVAL;
  }
  co_await mm->mmap_sem.down_write(t);
  t.work(sim.costs().get_unmapped_area);
  uint64_t addr = 0;
  const bool hint_ok =
      op.addr % PAGE_SIZE == 0 && op.addr >= mmap_min_addr && op.addr + len <= TASK_SIZE;
  if (fixed) {
    addr = op.addr;
    co_await do_munmap(t, *mm, addr, addr + len);
  } else if (hint_ok && mm->vmas.range_is_free(op.addr, op.addr + len)) {
    addr = op.addr;
  } else if (hint_ok && op.addr_recorded) {
    // The kernel put it here, so the range was free there: what the model has in it is stale
    // (a mapping the trace did not show going away). Follow the trace, as MAP_FIXED would.
    ++sim.vm().addr_mismatch;
    addr = op.addr;
    co_await do_munmap(t, *mm, addr, addr + len);
  } else {
    addr = mm->vmas.get_unmapped_area(len, mm->mmap_base);
  }
  if (addr == 0) {
    co_await mmap_write_unlock(t, *mm);
    co_return -ERRNO_ENOMEM;
  }
  co_await sync_point(t);  // lockless (per-VMA) lookups see the VMA from here on
  const VmaKind kind = kind_of(op);
  const uint64_t pgoff =
      kind == VmaKind::kAnonPrivate ? addr >> PAGE_SHIFT : op.offset >> PAGE_SHIFT;
  vma_link(t, *mm, addr, addr + len, op.prot, kind, op.file, pgoff);
  co_await mmap_write_unlock(t, *mm);
  co_return static_cast<int64_t>(addr);
}

Co<void> mmap_write_downgrade(Task& t, Mm& mm) {
  ++mm.mm_lock_seq;  // vma_end_write_all()
  co_await mm.mmap_sem.downgrade_write(t);
}

Co<void> do_munmap_downgrade(Task& t, Mm& mm, uint64_t start, uint64_t end) {
  if (mm.vmas.range_is_free(start, end)) {
    co_await mmap_write_unlock(t, mm);
    co_return;
  }
  // vms_gather_munmap_vmas(): write-lock, split and detach the VMAs under the write lock.
  co_await vma_start_write_range(t, mm, start, end);
  split_at_ends(t, mm, start, end);
  std::vector<std::unique_ptr<Vma>> detached;
  for (Vma* v : mm.vmas.intersecting(start, end)) detached.push_back(mm.vmas.erase(v));
  co_await sync_point(t);  // lockless (per-VMA) lookups stop finding them from here on
  // vms_complete_munmap_vmas(): downgrade, then vms_clear_ptes() under the read lock.
  co_await mmap_write_downgrade(t, mm);
  co_await t.sim().lruvec().lru_add_drain_before_zap(t);
  MmuGather tlb(mm);
  for (const std::unique_ptr<Vma>& v : detached)
    co_await zap_pte_range(t, *v, v->start, v->end, tlb);
  free_pgtables(t, mm, start & ~(PMD_SIZE - 1), (end + PMD_SIZE - 1) & ~(PMD_SIZE - 1), tlb);
  co_await tlb_finish_mmu(t, tlb);
  co_await mm.mmap_sem.up_read(t);  // mmap_read_unlock()
}

Co<int64_t> sys_munmap(Task& t, uint64_t addr, uint64_t len) {
  t.work(t.sim().costs().syscall_entry);
  Mm* mm = t.mm();
  len = PAGE_ALIGN(len);
  if (mm == nullptr || mm->dead || addr % PAGE_SIZE != 0 || len == 0 || addr + len > TASK_SIZE) {
    co_return -ERRNO_EINVAL;
  }
  co_await mm->mmap_sem.down_write(t);
  if (t.sim().config().munmap_lock == MunmapLockMode::kDowngrade) {  // __vm_munmap(unlock=true)
    co_await do_munmap_downgrade(t, *mm, addr, addr + len);
    co_return 0;
  }
  co_await do_munmap(t, *mm, addr, addr + len);
  co_await mmap_write_unlock(t, *mm);
  co_return 0;
}

// Models do_brk_flags(): grow the brk VMA in place or add one. A recorded break (the kernel
// grew it) takes the range even where the model has a mapping there, and counts the mismatch.
static Co<bool> do_brk_flags(Task& t, Mm& mm, uint64_t start, uint64_t end, bool recorded) {
  co_await sync_point(t);
  if (!mm.vmas.range_is_free(start, end)) {
    if (!recorded) co_return false;
    ++t.sim().vm().addr_mismatch;
    co_await do_munmap(t, mm, start, end);
  }
  Vma* prev = start > 0 ? mm.vmas.vma_lookup(start - 1) : nullptr;
  if (prev != nullptr && prev->end == start && prev->is_anonymous() &&
      prev->prot == (PROT_READ | PROT_WRITE)) {
    co_await vma_start_write_range(t, mm, prev->start, prev->end);
    mm.vmas.set_end(prev, end);
    t.work(t.sim().costs().vma_expand);  // vma_expand() of the brk VMA
    co_return true;
  }
  vma_link(t, mm, start, end, PROT_READ | PROT_WRITE, VmaKind::kAnonPrivate, 0,
           start >> PAGE_SHIFT);
  co_return true;
}

Co<int64_t> sys_brk(Task& t, uint64_t new_brk, bool recorded) {
  t.work(t.sim().costs().syscall_entry);
  Mm* mm = t.mm();
  if (mm == nullptr || mm->dead) co_return -ERRNO_EINVAL;
  co_await mm->mmap_sem.down_write(t);
  int64_t result = static_cast<int64_t>(mm->brk);
  if (mm->start_brk == 0) {
    mm->start_brk = mm->brk = PAGE_ALIGN(new_brk);
    result = static_cast<int64_t>(mm->brk);
  } else if (new_brk >= mm->start_brk) {
    const uint64_t old_end = PAGE_ALIGN(mm->brk);
    const uint64_t new_end = PAGE_ALIGN(new_brk);
    bool ok = true;
    if (new_end < old_end) co_await do_munmap(t, *mm, new_end, old_end);
    if (new_end > old_end) ok = co_await do_brk_flags(t, *mm, old_end, new_end, recorded);
    if (ok) mm->brk = new_brk;
    result = static_cast<int64_t>(mm->brk);
  }
  co_await mmap_write_unlock(t, *mm);
  co_return result;
}

Co<void> exit_mmap(Task& t, Mm& mm) {
  if (mm.dead) co_return;
  co_await mm.mmap_sem.down_write(t);
  co_await vma_start_write_range(t, mm, 0, TASK_SIZE);
  std::vector<Vma*> all;
  mm.vmas.for_each([&all](Vma& v) { all.push_back(&v); });
  MmuGather tlb(mm);
  tlb.set_fullmm();  // tlb_gather_mmu_fullmm()
  for (Vma* v : all) co_await zap_pte_range(t, *v, v->start, v->end, tlb);
  co_await sync_point(t);
  for (Vma* v : all) mm.vmas.erase(v);
  for (uint64_t pmd : mm.pte_tables.in_range(0, TASK_SIZE)) {
    mm.pte_tables.drop(pmd);
    tlb.tlb_remove_table(pmd << PMD_SHIFT);
  }
  co_await tlb_finish_mmu(t, tlb);
  assert(mm.rss_anon == 0 && mm.rss_file == 0 && mm.pte_tables.size() == 0 && "Mm invariant (3)");
  assert(mm.anon_pages.empty() && mm.swapents == 0 && "Mm invariant (1)");
  assert(mm.shared_swap.empty() && "Mm invariant (5)");
  mm.dead = true;
  co_await mmap_write_unlock(t, mm);
  // Lazy CPUs drop the dead mm (the kernel's mmdrop() of their lazy reference).
  mm.cpumask.for_each([&t, &mm](uint32_t id) {
    Cpu& c = t.sim().cpu(id);
    if (c.is_lazy && c.loaded_mm == &mm) leave_mm(t.sim(), c);
  });
}

}  // namespace mmreplay::kernelsim
