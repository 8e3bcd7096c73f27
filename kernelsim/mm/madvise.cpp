#include "kernelsim/mm/madvise.h"

#include <algorithm>

#include "kernelsim/mm/madvise_behavior.h"
#include "kernelsim/mm/madvise_cold.h"
#include "kernelsim/mm/madvise_populate.h"
#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmu_gather.h"
#include "kernelsim/mm/swap_count.h"
#include "kernelsim/mm/vma_lock.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// The advice run under the read lock here; the flag advice (MADV_NORMAL among them) is
// madvise_behavior.h's. Vector calls take only these.
bool is_supported(int advice) {
  return advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_WILLNEED ||
         madvise_is_cold_or_pageout(advice);
}

// Models madvise_free_pte_range() over [start, end) of an anonymous VMA: young/dirty cleared,
// the page marked lazyfree (mark_page_lazyfree()); swap entries freed (4.5+: seed 000's fix,
// policy free-swapped) or kept (the series before it, policies lazy and throttled).
Co<void> madvise_free_pte_range(Task& t, Vma& vma, uint64_t start, uint64_t end, MmuGather& tlb) {
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  Mm& mm = tlb.mm();
  const bool free_swapped = sim.policies().madv_free->free_swapped();
  // 4.5+: a hinted page in the swap cache lets go of its slot and PG_dirty (try_to_free_swap(),
  // ClearPageDirty()), so that only its pte's dirty bit keeps it from being discarded.
  const bool drops_swap_cache = sim.config().lazyfree_pgdirty == LazyfreePgDirty::kCleared;
  const bool moves_page = sim.config().lazyfree_lru != LazyfreeLru::kInPlace;
  for (uint64_t addr = start; addr < end; addr += PAGE_SIZE) {
    addr = skip_pmd_none(t, vma, addr, end);
    if (addr == end) break;
    uint8_t& p = vma.ptes.ref(addr);
    if (pte::state(p) == pte::kSwapped && free_swapped) {  // free_swap_and_cache() + pte_clear()
      swap_entry_free(sim, mm, p, addr);
      p = pte::kNone;
      ++sim.vm().madv_free_swap_freed;
      t.work(c.pte_zap);
      continue;
    }
    if (pte::is_mapped(p) && (p & pte::kSwapCache)) {
      // A page readahead read that the task has not touched: the kernel's pte still holds its
      // swap entry. With seed 000's fix that entry and its swap-cache page are freed like any
      // other (the next write zero-fills); before it the pte is skipped (the next access finds
      // the page in the swap cache).
      if (free_swapped) {
        ++sim.vm().madv_free_swap_freed;
        co_await zap_pte_range(t, vma, addr, addr + PAGE_SIZE, tlb);
      } else {
        t.work(c.pte_walk);
      }
      continue;
    }
    if (!pte::is_mapped(p) || !(p & pte::kOwnPage)) {  // none, swapped, zero page: nothing to do
      t.work(c.pte_walk);
      continue;
    }
    t.work(c.pte_lazyfree);
    if (addr + kFramePrefetchPages * PAGE_SIZE < end)
      prefetch_anon_frame(sim, mm, addr + kFramePrefetchPages * PAGE_SIZE);
    if (p & (pte::kYoung | pte::kDirty)) tlb.tlb_adjust_range(addr);  // tlb_remove_tlb_entry()
    if (pte::state(p) != pte::kLazyFree) ++sim.vm().madv_lazyfree_pages;
    p = static_cast<uint8_t>(pte::kLazyFree | pte::kOwnPage);
    if (!drops_swap_cache && !moves_page) continue;
    const uint32_t f = sim.lruvec().find(mm, addr);
    if (drops_swap_cache) {
      sim.lruvec().try_to_free_swap(f);
      sim.lruvec().frame(f).dirty = false;  // ClearPageDirty()
    }
    // The 2015 RFC moved no page: reclaim meets a hinted page where its last touch left it.
    if (moves_page) co_await sim.lruvec().mark_page_lazyfree(t, f);
  }
}

// Models madvise_vma() for MADV_FREE: the policy's view of free memory (seed 000's throttle).
MadvFreeAction madv_free_action(Simulation& sim, uint64_t nr_pages) {
  const Zone& z = sim.page_alloc().zone();
  const MadvFreeView view{nr_pages, z.free_pages, z.managed_pages,
                          z.min_free_kbytes >> (PAGE_SHIFT - 10), z.dma_reserved_free};
  return sim.policies().madv_free->decide(view);
}

// Advises [start, end) of one VMA into the caller's gather. Returns 0 or -ERRNO_EINVAL.
Co<int64_t> madvise_vma(Task& t, Vma& vma, uint64_t start, uint64_t end, int advice,
                        MmuGather& tlb) {
  Simulation& sim = t.sim();
  if (advice == MADV_FREE) {
    if (madv_free_action(sim, (end - start) >> PAGE_SHIFT) == MadvFreeAction::kLazyFree) {
      if (!vma.is_anonymous()) co_return -ERRNO_EINVAL;
      co_await sim.lruvec().lru_add_drain(t);  // madvise_free_single_vma()
      co_await madvise_free_pte_range(t, vma, start, end, tlb);
      co_return 0;
    }
    advice = MADV_DONTNEED;
  }
  if (madvise_is_cold_or_pageout(advice)) {  // madvise_cold(), madvise_pageout()
    co_await madvise_cold_or_pageout_vma(t, vma, start, end, advice == MADV_PAGEOUT, tlb);
    co_return 0;
  }
  if (advice == MADV_DONTNEED) {
    co_await sim.lruvec().lru_add_drain_before_zap(t);
    sim.vm().madv_dontneed_pages += co_await zap_pte_range(t, vma, start, end, tlb);
  }
  co_return 0;
}

// One VMA's part of a call into the vector's gather `shared`, or, when it is nullptr, into a
// gather of its own flushed at once (madvise_dontneed_single_vma() / madvise_free_single_vma()).
Co<int64_t> madvise_vma_gathered(Task& t, Mm& mm, Vma& vma, uint64_t start, uint64_t end,
                                 int advice, MmuGather* shared) {
  if (shared != nullptr) co_return co_await madvise_vma(t, vma, start, end, advice, *shared);
  MmuGather tlb(mm);
  const int64_t r = co_await madvise_vma(t, vma, start, end, advice, tlb);
  co_await tlb_finish_mmu(t, tlb);
  co_return r;
}

// Models madvise_walk_vmas() for one range. `shared` is the vector's gather, or nullptr for a
// gather per VMA (madvise_dontneed_single_vma() / madvise_free_single_vma()).
Co<int64_t> madvise_walk_vmas(Task& t, Mm& mm, uint64_t start, uint64_t end, int advice,
                              MmuGather* shared) {
  int64_t result = mm.vmas.range_is_mapped(start, end) ? 0 : -ERRNO_ENOMEM;
  for (Vma* v : mm.vmas.intersecting(start, end)) {
    const uint64_t s = std::max(start, v->start);
    const uint64_t e = std::min(end, v->end);
    const int64_t r = co_await madvise_vma_gathered(t, mm, *v, s, e, advice, shared);
    if (r != 0) result = r;
  }
  co_return result;
}

bool range_ok(uint64_t addr, uint64_t len) {
  return addr % PAGE_SIZE == 0 && addr + len <= TASK_SIZE && addr + len >= addr;
}

// Models get_lock_mode() == MADVISE_VMA_READ_LOCK (6.17+): the advice runs under the per-VMA
// lock, taken per range in madvise_walk_vmas(), rather than under mmap_sem.
bool vma_read_lock_mode(const Simulation& sim, int advice) {
  return sim.config().madvise_lock == MadviseLockMode::kPerVma &&
         (advice == MADV_DONTNEED || advice == MADV_FREE);
}

// Models try_vma_read_lock(): lock_vma_under_rcu() on the VMA holding `start`, kept only when
// is_vma_lock_sufficient() (the range ends inside that VMA; the model's mm is always the
// caller's own and has no userfaultfd). The result is the read-locked VMA, or nullptr when the
// range must fall back to mmap_sem.
class TryVmaReadLock final : public SharedStep {
 public:
  TryVmaReadLock(Task& t, Mm& mm, uint64_t start, uint64_t end)
      : SharedStep(t), mm_(mm), start_(start), end_(end) {}
  bool run_now() override {
    Vma* vma = &mm_ == task_.mm() ? mm_.vmas.vma_lookup(start_, task_.vmacache)
                                  : mm_.vmas.vma_lookup(start_);
    if (vma == nullptr || !vma->lock.vma_start_read_now(task_, mm_.mm_lock_seq)) return true;
    if (end_ > vma->end) {
      vma->lock.vma_end_read_now(task_);
      return true;
    }
    locked_ = vma;
    return true;
  }
  Vma* await_resume() const noexcept { return locked_; }

 private:
  Mm& mm_;
  uint64_t start_;
  uint64_t end_;
  Vma* locked_ = nullptr;
};

// The lock one madvise() or one process_madvise() holds (struct madvise_behavior's lock_mode).
struct MadviseLock {
  bool vma_mode = false;  // MADVISE_VMA_READ_LOCK: nothing held between ranges
};

// Models madvise_lock(): mmap_sem for read, or nothing in VMA read-lock mode.
Co<void> madvise_lock(Task& t, Mm& mm, int advice, MadviseLock& lock) {
  lock.vma_mode = vma_read_lock_mode(t.sim(), advice);
  if (!lock.vma_mode) co_await mm.mmap_sem.down_read(t);  // madvise_need_mmap_write() == false
}

// Models madvise_unlock().
Co<void> madvise_unlock(Task& t, Mm& mm, const MadviseLock& lock) {
  if (!lock.vma_mode) co_await mm.mmap_sem.up_read(t);
}

// Models madvise_do_behavior() for one range: in VMA read-lock mode, the range's one VMA under
// its read lock; otherwise (or when that fails, which switches the call to mmap_sem for read
// until madvise_unlock(), as try_vma_read_lock() does) the VMA walk.
Co<int64_t> madvise_do_behavior(Task& t, Mm& mm, uint64_t start, uint64_t end, int advice,
                                MmuGather* shared, MadviseLock& lock) {
  if (lock.vma_mode) {
    if (Vma* vma = co_await TryVmaReadLock(t, mm, start, end)) {
      const int64_t r = co_await madvise_vma_gathered(t, mm, *vma, start, end, advice, shared);
      co_await VmaLockStep(t, vma->lock, VmaLockStep::Kind::kEndRead, 0);
      co_return r;
    }
    co_await mm.mmap_sem.down_read(t);
    lock.vma_mode = false;
  }
  co_return co_await madvise_walk_vmas(t, mm, start, end, advice, shared);
}

// Models vector_madvise() on the caller's mm as 6.16+ runs it: the lock as for one madvise(),
// one mmu_gather for all ranges when the advice batches its flushes (madvise_batch_tlb_flush():
// MADV_DONTNEED and MADV_FREE), stopping at the first range that fails.
Co<int64_t> vector_madvise(Task& t, const std::vector<AddrRange>& ranges, int advice) {
  Simulation& sim = t.sim();
  t.work(sim.costs().syscall_entry);
  Mm* mm = t.mm();
  if (mm == nullptr || mm->dead || !is_supported(advice)) co_return -ERRNO_EINVAL;
  MadviseLock lock;
  co_await madvise_lock(t, *mm, advice, lock);
  const bool batch = advice == MADV_DONTNEED || advice == MADV_FREE;
  MmuGather tlb(*mm);  // madvise_init_tlb()
  int64_t result = 0;
  uint64_t advised = 0;
  for (const AddrRange& r : ranges) {
    const uint64_t len = PAGE_ALIGN(r.len);
    if (!range_ok(r.addr, len)) {
      result = -ERRNO_EINVAL;
      break;
    }
    if (len == 0) continue;
    result = co_await madvise_do_behavior(t, *mm, r.addr, r.addr + len, advice,
                                          batch ? &tlb : nullptr, lock);
    if (result != 0) break;
    ++advised;
  }
  co_await tlb_finish_mmu(t, tlb);  // madvise_finish_tlb()
  co_await madvise_unlock(t, *mm, lock);
  // The syscall returns the bytes advised before the failing range, if any.
  co_return advised > 0 ? 0 : result;
}

}  // namespace

Co<int64_t> sys_madvise(Task& t, uint64_t addr, uint64_t len, int advice) {
  t.work(t.sim().costs().syscall_entry);
  Mm* mm = t.mm();
  len = PAGE_ALIGN(len);
  if (mm == nullptr || mm->dead || !range_ok(addr, len)) co_return -ERRNO_EINVAL;
  if (madvise_changes_vm_flags(advice)) {  // mmap_sem for write (mm/madvise_behavior.h)
    if (len == 0) co_return 0;
    co_return co_await madvise_update_vmas(t, *mm, addr, addr + len, advice);
  }
  if (madvise_is_populate(advice)) {  // mmap_sem for read, no VMA walk of madvise's own
    if (len == 0) co_return 0;
    co_await mm->mmap_sem.down_read(t);
    const int64_t r =
        co_await madvise_populate(t, *mm, addr, addr + len, advice == MADV_POPULATE_WRITE);
    co_await mm->mmap_sem.up_read(t);
    co_return r;
  }
  if (!is_supported(advice)) co_return -ERRNO_EINVAL;
  if (len == 0) co_return 0;
  MadviseLock lock;
  co_await madvise_lock(t, *mm, advice, lock);
  const int64_t r = co_await madvise_do_behavior(t, *mm, addr, addr + len, advice, nullptr, lock);
  co_await madvise_unlock(t, *mm, lock);
  co_return r;
}

Co<int64_t> sys_madvise_vec(Task& t, const std::vector<AddrRange>& ranges, int advice) {
  Simulation& sim = t.sim();
  if (sim.config().madvise == MadviseVectorMode::kProcessMadvise) {
    co_return co_await vector_madvise(t, ranges, advice);
  }
  if (sim.config().madvise != MadviseVectorMode::kVector) {
    int64_t result = 0;
    for (const AddrRange& r : ranges) {
      const int64_t e = co_await sys_madvise(t, r.addr, r.len, advice);
      if (e != 0 && result == 0) result = e;
    }
    co_return result;
  }
  t.work(sim.costs().syscall_entry);
  Mm* mm = t.mm();
  if (mm == nullptr || mm->dead || !is_supported(advice)) co_return -ERRNO_EINVAL;
  for (const AddrRange& r : ranges) {
    if (!range_ok(r.addr, PAGE_ALIGN(r.len))) co_return -ERRNO_EINVAL;
  }
  co_await mm->mmap_sem.down_read(t);
  MmuGather tlb(*mm);
  int64_t result = 0;
  for (const AddrRange& r : ranges) {
    const uint64_t len = PAGE_ALIGN(r.len);
    if (len == 0) continue;
    const int64_t e = co_await madvise_walk_vmas(t, *mm, r.addr, r.addr + len, advice, &tlb);
    if (e != 0 && result == 0) result = e;
  }
  co_await tlb_finish_mmu(t, tlb);
  co_await mm->mmap_sem.up_read(t);
  co_return result;
}

}  // namespace mmreplay::kernelsim
