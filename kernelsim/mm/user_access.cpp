#include "kernelsim/mm/user_access.h"

#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// True when the MMU completes this access without a fault. Inlined into do_touch()'s loop, where
// it runs once a page (a call of its own cost 5.2M host instructions a BM_PageFaults/uncontended
// iteration).
// `swapin_wp`: swapin_write_protects() of the run's policy.
[[gnu::always_inline]] inline bool hardware_access_ok(const Vma& vma, uint8_t p, bool write,
                                                      bool swapin_wp) {
  if (!pte::is_mapped(p) || (p & pte::kSwapCache)) return false;
  if (!write) return vma.access_ok(false);
  if (!vma.access_ok(true) || (p & pte::kZeroPage)) return false;
  if (swapin_wp && pte::swapped_in_read_only(p)) return false;
  // Fork write-protected a shared private page (copy_present_pte()).
  if ((p & pte::kCowShared) && vma.kind != VmaKind::kFileShared) return false;
  // A clean pte of a shared mapping is write-protected (page_mkclean(), and a read fault maps
  // it so): the write faults, and the fault dirties the page (wp_page_shared()).
  if (vma.kind == VmaKind::kFileShared && !(p & pte::kDirty)) return false;
  return vma.kind != VmaKind::kFilePrivate || (p & pte::kOwnPage);
}

}  // namespace

Co<uint64_t> do_touch(Task& t, uint64_t addr, uint64_t len, bool write, uint64_t stride) {
  Simulation& sim = t.sim();
  const SimTime access = sim.costs().user_access;
  const SimTime pte_ad_update = sim.costs().pte_ad_update;
  const SimTime refill_walk = sim.costs().tlb_refill_walk;
  const bool swapin_wp = swapin_write_protects(sim);
  if (stride == 0) stride = PAGE_SIZE;
  uint64_t faults = 0;
  Mm* mm = t.mm();
  co_await sync_point(t);
  // Accesses the MMU completes run in user mode, where only the timer tick preempts
  // (scheduler_tick() marks the task for resched once its slice is used up; the return to user
  // mode schedules). A sync point at the tick that would end the slice (Task::user_run_until())
  // stands for it, as do_think()'s do: without them a task rewriting its resident pages kept its
  // CPU for the whole range (67 ms for 32,768 lazily freed pages) while the task queued behind it
  // waited.
  SimTime check_at = t.user_run_until();
  Vma* vma = nullptr;
  for (uint64_t a = addr; a < addr + len && !t.oom_killed; a += stride) {
    if (t.clock() >= check_at) {
      co_await sync_point(t);
      check_at = t.user_run_until();
      vma = nullptr;  // another task of the mm may have unmapped it meanwhile: look again
    }
    t.user_work(access);
    if (mm == nullptr || mm->dead) {
      const SimTime start = t.clock();
      co_await do_user_addr_fault(t, a, write);
      sim.stats().record_op(OpKind::kPageFault, t.clock() - start);
      ++faults;
      continue;
    }
    if (vma == nullptr || !vma->contains(a)) vma = mm->vmas.vma_lookup(a, t.vmacache);
    if (vma != nullptr) {
      if (hardware_access_ok(*vma, vma->ptes.get(a), write, swapin_wp)) {
        // The STLB translates it, or the walk refills the entry a flush took.
        if (Cpu& cpu = t.cpu(); !cpu.stlb.access(a >> PAGE_SHIFT)) {
          t.user_work(refill_walk);
          ++cpu.counters.tlb_refill_walks;
        }
        uint8_t& p = vma->ptes.ref(a);
        // The walk sets an accessed or dirty bit the kernel cleared (madvise_free_pte_range(),
        // page_referenced()); under shadow page tables the host rebuilds its entry first.
        if (!(p & pte::kYoung) || (write && !(p & pte::kDirty))) t.user_work(pte_ad_update);
        if (write && pte::state(p) == pte::kLazyFree) ++sim.vm().lazyfree_reused;
        p = static_cast<uint8_t>(
            write ? ((p & ~pte::kStateMask) | pte::kPresent | pte::kDirty | pte::kYoung)
                  : (p | pte::kYoung));
        continue;
      }
    }
    // Each fault the access takes is a page fault of its own in the results: what a kernel
    // engineer reads as fault latency (the touch's own latency covers the whole range).
    const SimTime start = t.clock();
    co_await do_user_addr_fault(t, a, write);
    sim.stats().record_op(OpKind::kPageFault, t.clock() - start);
    ++faults;
    // The tree may have changed while the fault waited: look again. Once the fault mapped the
    // page the access completes, and its walk puts the pte in the STLB (its time is in the
    // fault's); a fault that mapped nothing (SIGSEGV, OOM, a lost race) leaves no entry.
    vma = mm != nullptr && !mm->dead ? mm->vmas.vma_lookup(a, t.vmacache) : nullptr;
    if (vma != nullptr && hardware_access_ok(*vma, vma->ptes.get(a), write, swapin_wp))
      t.cpu().stlb.access(a >> PAGE_SHIFT);
    check_at = t.user_run_until();  // the fault's own sync points were preemption points
  }
  co_return faults;
}

}  // namespace mmreplay::kernelsim
