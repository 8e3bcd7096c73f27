#include "kernelsim/mm/mprotect.h"

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmap.h"
#include "kernelsim/mm/mmu_gather.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models change_pte_range(): every present pte of the VMA gets the new protection.
void change_pte_range(Task& t, Vma& vma, MmuGather& tlb) {
  const CostProfile& c = t.sim().costs();
  for (uint64_t addr = vma.start; addr < vma.end; addr += PAGE_SIZE) {
    addr = skip_pmd_none(t, vma, addr, vma.end);
    if (addr == vma.end) break;
    if (!pte::is_mapped(vma.ptes.get(addr))) {
      t.work(c.pte_walk);
      continue;
    }
    t.work(c.pte_change_prot);
    tlb.tlb_adjust_range(addr);
  }
}

}  // namespace

Co<int64_t> sys_mprotect(Task& t, uint64_t addr, uint64_t len, uint32_t prot) {
  Simulation& sim = t.sim();
  t.work(sim.costs().syscall_entry);
  Mm* mm = t.mm();
  len = (len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
  if (mm == nullptr || mm->dead || addr % PAGE_SIZE != 0 || addr + len > TASK_SIZE)
    co_return -ERRNO_EINVAL;
  if (len == 0) co_return 0;
  const uint64_t end = addr + len;
  co_await mm->mmap_sem.down_write(t);
  if (!mm->vmas.range_is_mapped(addr, end)) {
    co_await mmap_write_unlock(t, *mm);
    co_return -ERRNO_ENOMEM;
  }
  co_await vma_start_write_range(t, *mm, addr, end);
  for (uint64_t at : {addr, end}) {
    if (Vma* v = mm->vmas.vma_lookup(at); v != nullptr && v->start < at) {
      mm->vmas.split_vma(v, at, mm->mm_lock_seq);
      t.work(sim.costs().vma_split);
    }
  }
  co_await sync_point(t);
  MmuGather tlb(*mm);
  for (Vma* v : mm->vmas.intersecting(addr, end)) {
    v->prot = prot;
    change_pte_range(t, *v, tlb);
  }
  co_await tlb_finish_mmu(t, tlb);
  uint64_t merges = 0;
  for (Vma* v = mm->vmas.vma_lookup(addr); v != nullptr && v->start < end;
       v = mm->vmas.find_vma(v->end)) {
    v = mm->vmas.merge_around(v, mm->mm_lock_seq, &merges);
  }
  t.work(sim.costs().vma_merge * static_cast<int64_t>(merges));
  co_await mmap_write_unlock(t, *mm);
  co_return 0;
}

}  // namespace mmreplay::kernelsim
