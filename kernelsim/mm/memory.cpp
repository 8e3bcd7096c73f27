#include "kernelsim/mm/memory.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/kernel/thread.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/filemap_fault.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmu_gather.h"
#include "kernelsim/mm/readahead.h"
#include "kernelsim/mm/swap_count.h"
#include "kernelsim/mm/swap_readahead.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

bool maps_page_cache(const Vma& vma, uint8_t p) {
  return !vma.is_anonymous() && pte::is_mapped(p) &&
         !(p & (pte::kOwnPage | pte::kZeroPage | pte::kCowShared));
}

uint32_t mapped_page_cache_frame(const Simulation& sim, const Vma& vma, uint64_t addr) {
  const uint32_t f = sim.page_cache().find_get_page(vma.file, linear_page_index(vma, addr));
  assert(f != kNoFrame && "PageCache invariant (3): a mapped page is not in the cache");
  return f;
}

namespace {

// The page transfers of one copy_user_highpage() from a page not in the caches: the source
// page read, the new page written back (rep movs' fast-string stores are taken to skip the
// read-for-ownership of the destination, unverified for Westmere).
constexpr int64_t kCopyPageDramTransfers = 2;

// Models copy_user_highpage() of a COW fault (do_cow_fault(), do_wp_page()) on a machine whose
// preset gives its nodes' memory bandwidth: copy_page of CPU time, or longer while the node's
// channels (mm/page_alloc.h NodeMemory) serve other CPUs' transfers. The source is taken to be on
// the copying CPU's node, as the workloads fault their files in on the CPU that copies them.
class CopyPageStep final : public SharedStep {
 public:
  explicit CopyPageStep(Task& t) : SharedStep(t) {}
  bool run_now() override {
    Simulation& sim = task_.sim();
    const CostProfile& c = sim.costs();
    const SimTime at = sim.now();
    const SimTime done = sim.page_alloc()
                             .node_memory(numa_node_id(task_))
                             .transfer(at, kCopyPageDramTransfers, c.dram_page_transfer);
    task_.advance_to(max(at + c.copy_page, done));
    return true;
  }
};

// Models lock_vma_under_rcu(): find the VMA without mmap_sem and read-trylock it. The result is
// the locked VMA, or nullptr when the fault must fall back to mmap_sem.
class LockVmaUnderRcu final : public SharedStep {
 public:
  LockVmaUnderRcu(Task& t, Mm& mm, uint64_t addr) : SharedStep(t), mm_(mm), addr_(addr) {}
  bool run_now() override {
    Vma* vma = &mm_ == task_.mm() ? mm_.vmas.vma_lookup(addr_, task_.vmacache)
                                  : mm_.vmas.vma_lookup(addr_);
    if (vma == nullptr) return true;
    const FaultLockView view{vma->is_anonymous()};
    if (!task_.sim().policies().fault_lock->try_per_vma_lock(view)) return true;
    if (vma->lock.vma_start_read_now(task_, mm_.mm_lock_seq)) {
      locked_ = vma;
    } else {
      ++task_.sim().vm().fault_vma_lock_retry;
    }
    return true;
  }
  Vma* await_resume() const noexcept { return locked_; }

 private:
  Mm& mm_;
  uint64_t addr_;
  Vma* locked_ = nullptr;
};

// Allocates one user or page-table page; false on OOM.
Co<bool> alloc_one(Task& t, PageUse use) {
  return alloc_pages(t, use);
}

Co<void> free_one(Task& t, PageUse use) {
  PageAllocator& pa = t.sim().page_alloc();
  if (const uint32_t n = pa.free_page_fast(t, use)) co_await pa.free_pcppages_bulk(t, n);
}

// A fork-shared page that `mm` (its owner) stops mapping, by a COW copy or a zap, while `other`
// still maps it: the page, its rmap and its rss move to `other` rather than being freed.
void hand_over_cow_page(Simulation& sim, Mm& mm, Mm& other, uint64_t addr) {
  sim.lruvec().page_hand_over_anon_rmap(mm, other, addr);
  other.vmas.vma_lookup(addr)->ptes.ref(addr) |= pte::kOwnPage;
  ++other.rss_anon;
}

// Models folio_put() of the last reference to an anonymous page of `mm` whose rmap the caller
// removed (Lruvec::page_remove_rmap()): __folio_put() -> __page_cache_release() takes it off its
// LRU list under its lruvec's lru_lock (irqsave), mem_cgroup_uncharge() gives back its charge
// (to mm's group, as the zap path's uncharge: a page off the LRU, still in a per-CPU batch,
// reports no group) and free_unref_page() frees it.
Co<void> put_last_anon_page(Task& t, Mm& mm, Lruvec::RemovedPage removed) {
  Simulation& sim = t.sim();
  if (removed.on_lru) {
    QSpinLock& lock = sim.lruvec().lru_lock_of(removed.nid, removed.memcg);
    co_await lock.lock_irqsave(t);
    t.work(sim.costs().lru_move_page);  // lruvec_del_folio()
    co_await lock.unlock_irqrestore(t);
  }
  co_await mem_cgroup_uncharge_list(t, sim.memcg().memcg_of(mm), 1);
  co_await free_one(t, PageUse::kUser);
}

// What handle_pte_fault() will do for this pte.
enum class FaultAction : uint8_t {
  kZeroPage,
  kNewPage,
  kCopyPage,
  kWpReuse,
  kMapFile,
  kSwapIn,
  kSwapCacheHit,
  kTouchOnly
};

}  // namespace

bool swapin_write_protects(const Simulation& sim) {
  return sim.config().swapin_pte == SwapinPte::kReadOnly;
}

bool swapin_skips_swap_cache(const Simulation& sim) {
  return sim.swap().synchronous_io() && sim.config().sync_swapin == SyncSwapin::kSkipSwapCache;
}

namespace {

FaultAction decide(const Mm& mm, const Vma& vma, uint64_t addr, uint8_t p, bool write,
                   const Simulation& sim) {
  if (pte::is_mapped(p)) {
    const bool cow = write && (p & pte::kCowShared) && vma.kind != VmaKind::kFileShared;
    if ((p & pte::kSwapCache) && !cow) return FaultAction::kSwapCacheHit;
    // do_wp_page() on a page fork write-protected: the owner reuses it once no one else maps it
    // (wp_page_reuse()); otherwise, and always for a mapper that does not own it, wp_page_copy().
    if (cow) {
      return (p & pte::kOwnPage) && cow_sharer(mm, addr) == nullptr ? FaultAction::kWpReuse
                                                                    : FaultAction::kCopyPage;
    }
    if (write && (p & pte::kZeroPage)) return FaultAction::kCopyPage;
    if (write && pte::swapped_in_read_only(p) && swapin_write_protects(sim))
      return FaultAction::kWpReuse;
    if (write && vma.kind == VmaKind::kFilePrivate && !(p & pte::kOwnPage))
      return FaultAction::kCopyPage;
    return FaultAction::kTouchOnly;
  }
  if (pte::state(p) == pte::kSwapped) return FaultAction::kSwapIn;
  if (vma.is_anonymous()) return write ? FaultAction::kNewPage : FaultAction::kZeroPage;
  if (write && vma.kind == VmaKind::kFilePrivate) return FaultAction::kCopyPage;
  return FaultAction::kMapFile;
}

// Sets the pte for a completed action and keeps rss in step.
void set_pte(Mm& mm, uint8_t& p, FaultAction a, bool write) {
  const uint8_t ad = static_cast<uint8_t>(pte::kYoung | (write ? pte::kDirty : 0));
  if (pte::is_mapped(p) && (p & pte::kOwnPage)) --mm.rss_anon;
  if (pte::is_mapped(p) && !(p & (pte::kOwnPage | pte::kZeroPage | pte::kCowShared))) --mm.rss_file;
  switch (a) {
    case FaultAction::kZeroPage:
      p = static_cast<uint8_t>(pte::kPresent | pte::kZeroPage | pte::kYoung);
      break;
    case FaultAction::kNewPage:
    case FaultAction::kSwapIn:
    case FaultAction::kCopyPage:
      p = static_cast<uint8_t>(pte::kPresent | pte::kOwnPage | ad);
      ++mm.rss_anon;
      break;
    case FaultAction::kMapFile:
      p = static_cast<uint8_t>(pte::kPresent | ad);
      ++mm.rss_file;
      break;
    case FaultAction::kWpReuse:  // still its own page
      p = static_cast<uint8_t>((p & ~(pte::kCowShared | pte::kSwapCache | pte::kStateMask)) |
                               pte::kPresent | ad);
      ++mm.rss_anon;
      break;
    case FaultAction::kSwapCacheHit:
      // do_swap_page(): the page readahead read is this pte's now, or the page a fork peer read
      // (mm/swap_count.h), which stays that peer's.
      p = static_cast<uint8_t>((p & ~pte::kSwapCache) | ad);
      if (write) p = static_cast<uint8_t>((p & ~pte::kStateMask) | pte::kPresent);
      if (p & pte::kOwnPage) ++mm.rss_anon;
      break;
    case FaultAction::kTouchOnly:
      break;
  }
}

// What readahead remembers for a swap-in in vma: the VMA's own state (4.14+) or the device's.
SwapRaState& swap_ra_state(Simulation& sim, Vma& vma) {
  return sim.config().swap_readahead == SwapReadahead::kVma ? vma.swap_ra
                                                            : sim.swap().readahead_state();
}

// The addresses [lo, hi) one swap-in read at addr covers (mm/swap_readahead.h), and how many of
// their ptes are swapped, the fault's own included.
struct SwapInWindow {
  uint64_t lo = 0;
  uint64_t hi = 0;
  uint64_t swapped = 0;
};
SwapInWindow swapin_window(Simulation& sim, Vma& vma, uint64_t addr) {
  const SwapRaWindow w =
      swap_ra_window(sim.config().swap_readahead, swap_ra_state(sim, vma), addr >> PAGE_SHIFT,
                     vma.start >> PAGE_SHIFT, vma.end >> PAGE_SHIFT);
  SwapInWindow r{w.first << PAGE_SHIFT, w.end << PAGE_SHIFT, 0};
  for (uint64_t a = r.lo; a < r.hi; a += PAGE_SIZE)
    r.swapped += pte::state(vma.ptes.get(a)) == pte::kSwapped ? 1 : 0;
  return r;
}

// The frame of a page a swap-in read brings back to mm at addr, and its swap slot: the page stays
// in the swap cache with it (`keep_slot`: a page readahead brought, or the faulting page of a read
// fault while swap is at most half full), or the slot is freed at once, as do_swap_page() does
// for a write fault (reuse_swap_page()), when vm_swap_full() (try_to_free_swap(), which sets
// PG_dirty: the only copy is the page), and on zram since 4.15 (swap_free() of an entry whose page
// never entered the swap cache; the kernel dirties that page only when reclaim's add_to_swap()
// takes it, which is when the model's PG_dirty is read). `slot_cached`: a shared entry whose slot
// a page already in the swap cache holds (mm/swap_count.h): the pte lets go of its reference and
// the page read now holds none.
uint32_t swapped_in_page(Simulation& sim, Mm& mm, uint64_t addr, uint32_t nid, bool keep_slot,
                         bool slot_cached = false) {
  const uint32_t f = sim.lruvec().page_add_new_anon_rmap(mm, addr, nid);
  PageFrame& pf = sim.lruvec().frame(f);
  --mm.swapents;
  ++sim.vm().pswpin;
  if (slot_cached) {
    sim.swap().swap_put_shared();
    pf.dirty = true;
  } else if (keep_slot) {
    sim.swap().keep_in_swap_cache();
    pf.swapcache = true;
  } else {
    sim.swap().swap_free();
    pf.dirty = true;
  }
  return f;
}

// try_to_free_swap() of the own page mapped at addr (reuse_swap_page() on a write fault, or
// do_swap_page() when vm_swap_full()).
void free_swap_slot_of(Simulation& sim, const Mm& mm, uint64_t addr) {
  if (const uint32_t f = sim.lruvec().find(mm, addr); f != kNoFrame)
    sim.lruvec().try_to_free_swap(f);
}

// Maps the other swapped pages of the readahead window, read by the same I/O, marked
// pte::kSwapCache: the first access to each takes the minor fault the kernel takes on finding it
// in the swap cache. A page is skipped when no page is free without reclaim.
Co<void> map_swap_readahead(Task& t, Vma& vma, uint64_t lo, uint64_t hi, uint64_t fault_addr) {
  Simulation& sim = t.sim();
  Mm& mm = *t.mm();
  PageAllocator& pa = sim.page_alloc();
  for (uint64_t a = lo; a < hi; a += PAGE_SIZE) {
    if (a == fault_addr || pte::state(vma.ptes.get(a)) != pte::kSwapped) continue;
    if (!pa.alloc_page_fast(t, PageUse::kUser) && !co_await pa.alloc_page_slow(t, PageUse::kUser))
      break;
    if (!co_await mem_cgroup_charge(t, mm, 1)) {  // the group is full: no more readahead
      if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
        co_await pa.free_pcppages_bulk(t, n);
      break;
    }
    co_await sync_point(t);
    uint8_t& p = vma.ptes.ref(a);
    if (pte::state(p) != pte::kSwapped) {  // freed or faulted meanwhile
      co_await mem_cgroup_cancel_charge(t, mm, 1);
      if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
        co_await pa.free_pcppages_bulk(t, n);
      continue;
    }
    // Clean, not young, and still to be faulted on (pte::kSwapCache). The page stays in the swap
    // cache with its slot however full swap is: do_swap_page() decides when it is faulted
    // (should_try_to_free_swap() in 6.x, vm_swap_full() inline before), and reclaim drops it
    // unwritten until then. The page of an entry fork shares is the other holders' too.
    const bool shared = swap_entry_shared(mm, p, a);
    p = static_cast<uint8_t>(pte::kPresent | pte::kOwnPage | pte::kSwapCache |
                             (shared ? pte::kCowShared : 0));
    const bool slot_cached = shared && swap_cache_share(sim, mm, a);
    ++mm.rss_anon;
    co_await sim.lruvec().lru_cache_add(
        t, swapped_in_page(sim, mm, a, numa_node_id(t), /*keep_slot=*/true, slot_cached));
  }
}

// Counts a fault that found no page: the allocator's OOM killer chose t's process (mm/oom_kill.h).
FaultResult fault_out_of_memory(Task& t) {
  ++t.sim().vm().fault_oom;
  return FaultResult::kOom;
}

// do_anonymous_page()'s steps in order, after the fault's bookkeeping: the PTE page (pte_alloc()),
// the page, its memcg charge and clear_page(), then (do_anonymous_page_ptl()) the recheck under
// the PTL, and the page's lru_add batching. do_anonymous_page() runs them without a frame until
// one must wait, and hands the rest to do_anonymous_page_from() from that step.
enum class AnonStep : uint8_t { kPteAlloc, kAlloc, kCharge, kLruAdd };

// After the recheck: the pte of the new page, its counters, its rmap and its lru_add batching.
Co<void> map_anon_page(Task& t, Mm& mm, Vma& vma, uint64_t addr, bool write) {
  Simulation& sim = t.sim();
  set_pte(mm, vma.ptes.ref(addr), FaultAction::kNewPage, write);
  ++sim.vm().fault_anon;
  return sim.lruvec().lru_cache_add(t,
                                    sim.lruvec().page_add_new_anon_rmap(mm, addr, numa_node_id(t)));
}

// do_anonymous_page() from the recheck under the PTL on. Its own coroutine, apart from
// do_anonymous_page_from(): with many CPUs the PTL's sync point waits on most faults, and this
// frame carries none of the pending allocation and drain the earlier steps need.
Co<FaultResult> do_anonymous_page_ptl(Task& t, Vma& vma, uint64_t addr, bool write) {
  Mm& mm = *t.mm();
  co_await sync_point(t);  // pte_offset_map_lock(): recheck under the PTL
  if (decide(mm, vma, addr, vma.ptes.get(addr), write, t.sim()) != FaultAction::kNewPage) {
    co_await mem_cgroup_cancel_charge(t, mm, 1);
    co_await free_one(t, PageUse::kUser);
    ++t.sim().vm().fault_spurious;
    co_return FaultResult::kSpurious;
  }
  co_await map_anon_page(t, mm, vma, addr, write);
  co_return FaultResult::kMapped;
}

// do_anonymous_page() from `step` on, in a coroutine frame. `page` is the allocation or charge
// made for kAlloc or kCharge, `drain` the lru_add batch's drain for kLruAdd; each is awaited
// first, as its caller would have awaited it at once (sim/co.h).
Co<FaultResult> do_anonymous_page_from(Task& t, Vma& vma, uint64_t addr, bool write, AnonStep step,
                                       Co<bool> page, Co<void> drain) {
  Simulation& sim = t.sim();
  Mm& mm = *t.mm();
  switch (step) {
    case AnonStep::kPteAlloc:  // pte_alloc(): a zeroed PTE page
      if (!co_await alloc_one(t, PageUse::kPageTable)) {
        mm.pte_tables.drop(addr >> PMD_SHIFT);
        co_return fault_out_of_memory(t);
      }
      t.work(clear_page_cost(t));
      page = alloc_one(t, PageUse::kUser);
      [[fallthrough]];
    case AnonStep::kAlloc:
      if (!co_await page) co_return fault_out_of_memory(t);
      page = mem_cgroup_charge(t, mm, 1);
      [[fallthrough]];
    case AnonStep::kCharge:
      if (!co_await page) {  // mem_cgroup_try_charge(): memcg OOM
        co_await free_one(t, PageUse::kUser);
        ++sim.vm().fault_oom;
        co_return FaultResult::kOom;
      }
      t.work(clear_page_cost(t));
      co_return co_await do_anonymous_page_ptl(t, vma, addr, write);
    case AnonStep::kLruAdd:
      co_await drain;
  }
  co_return FaultResult::kMapped;
}

// Models do_anonymous_page() for a write fault on a pte with no page. The common case (the PTE
// page present, a page on this CPU's list, the root memcg, the PTL and the lru_add batch free)
// waits for nothing: it runs here and returns a ready Co, with none of the 390 host instructions
// of a fault's frame (sim/co.h). At the first step that must wait, the rest runs in
// do_anonymous_page_from(), or from the PTL's recheck on in do_anonymous_page_ptl(). A step
// already run is not run again there: the PTL's sync point, tried here with try_enter_now(), is
// what do_anonymous_page_ptl() tries first, and trying it again changes nothing.
Co<FaultResult> do_anonymous_page(Task& t, Vma& vma, uint64_t addr, bool write) {
  Mm& mm = *t.mm();
  auto from = [&](AnonStep step, Co<bool> page = Co<bool>::ready(false),
                  Co<void> drain = Co<void>::ready()) {
    return do_anonymous_page_from(t, vma, addr, write, step, std::move(page), std::move(drain));
  };
  if (mm.pte_tables.ensure(addr)) return from(AnonStep::kPteAlloc);
  Co<bool> page = alloc_one(t, PageUse::kUser);
  if (!page.await_ready()) return from(AnonStep::kAlloc, std::move(page));
  if (!page.await_resume()) return Co<FaultResult>::ready(fault_out_of_memory(t));
  Co<bool> charge = mem_cgroup_charge(t, mm, 1);
  if (!charge.await_ready()) return from(AnonStep::kCharge, std::move(charge));
  if (!charge.await_resume()) return from(AnonStep::kCharge);  // a failed charge: ready(false)
  t.work(clear_page_cost(t));
  if (!t.try_enter_now() ||
      decide(mm, vma, addr, vma.ptes.get(addr), write, t.sim()) != FaultAction::kNewPage)
    return do_anonymous_page_ptl(t, vma, addr, write);
  Co<void> drain = map_anon_page(t, mm, vma, addr, write);
  if (!drain.await_ready())
    return from(AnonStep::kLruAdd, Co<bool>::ready(false), std::move(drain));
  return Co<FaultResult>::ready(FaultResult::kMapped);
}

// Models handle_pte_fault() for every fault but do_anonymous_page()'s, after the bookkeeping;
// `action` is decide()'s for the pte as handle_mm_fault() found it.
Co<FaultResult> handle_pte_fault(Task& t, Vma& vma, uint64_t addr, bool write, FaultAction action) {
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  Mm& mm = *t.mm();
  const uint8_t orig_pte = vma.ptes.get(addr);  // vmf->orig_pte
  const bool was_mapped = pte::is_mapped(orig_pte);
  // do_wp_page(): a write to a present, write-protected pte (a fork-shared page, the zero page,
  // a page-cache page of a private mapping) changes a pte the CPU has cached: wp_page_reuse()
  // makes it writable, wp_page_copy() replaces it.
  const bool wp_fault =
      was_mapped && (action == FaultAction::kCopyPage || action == FaultAction::kWpReuse);
  if (action == FaultAction::kSwapCacheHit) {
    // do_swap_page() -> swap_cache_get_folio(): the page readahead read is mapped under the PTL;
    // no I/O and no new page (a minor fault).
    co_await sync_point(t);  // pte_offset_map_lock(): recheck under the PTL
    uint8_t& p = vma.ptes.ref(addr);
    if (decide(mm, vma, addr, p, write, t.sim()) != action) {
      ++sim.vm().fault_spurious;
      co_return FaultResult::kSpurious;
    }
    set_pte(mm, p, action, write);
    // A readahead hit (PG_readahead); a page a fork peer's fault read is none.
    if (p & pte::kOwnPage)
      swap_ra_hit(sim.config().swap_readahead, swap_ra_state(sim, vma), addr >> PAGE_SHIFT);
    // Mapped read-only for a read (the pte clean: pte::swapped_in_read_only()), and the slot
    // freed for a write or when swap is more than half full, as for the faulting page.
    if (write || sim.swap().vm_swap_full()) free_swap_slot_of(sim, mm, addr);
    ++sim.vm().fault_swapcache;
    co_return FaultResult::kMapped;
  }
  if (action == FaultAction::kTouchOnly) {
    uint8_t& p = vma.ptes.ref(addr);
    if (write && pte::state(p) == pte::kLazyFree) ++sim.vm().lazyfree_reused;
    // wp_page_shared(): the first write through a clean pte of a shared mapping dirties the page
    // (page_mkclean() write-protected it when its writeback started).
    const bool dirties_page =
        write && vma.kind == VmaKind::kFileShared && maps_page_cache(vma, p) && !(p & pte::kDirty);
    // A read leaves a lazyfree pte lazyfree (clean and still discardable); a write makes it a
    // normal dirty one.
    p = write ? static_cast<uint8_t>((p & ~pte::kStateMask) | pte::kPresent | pte::kYoung |
                                     pte::kDirty)
              : static_cast<uint8_t>(p | pte::kYoung);
    ++sim.vm().fault_spurious;
    if (dirties_page) {
      sim.page_cache().set_page_dirty(mapped_page_cache_frame(sim, vma, addr));
      co_await balance_dirty_pages_ratelimited(t);
    }
    co_return FaultResult::kSpurious;
  }
  if (mm.pte_tables.ensure(addr)) {  // pte_alloc(): a zeroed PTE page
    if (!co_await alloc_one(t, PageUse::kPageTable)) {
      mm.pte_tables.drop(addr >> PMD_SHIFT);
      co_return fault_out_of_memory(t);
    }
    t.work(clear_page_cost(t));
  }
  const bool needs_page = action == FaultAction::kNewPage || action == FaultAction::kCopyPage ||
                          action == FaultAction::kSwapIn;
  if (needs_page && !co_await alloc_one(t, PageUse::kUser)) co_return fault_out_of_memory(t);
  if (needs_page && !co_await mem_cgroup_charge(t, mm, 1)) {  // mem_cgroup_try_charge(): memcg OOM
    co_await free_one(t, PageUse::kUser);
    ++sim.vm().fault_oom;
    co_return FaultResult::kOom;
  }
  SwapInWindow ra;
  // An entry fork shares (swap count above 1) goes through the swap cache on any device
  // (do_swap_page(): SWP_SYNCHRONOUS_IO && __swap_count(entry) == 1).
  const bool skip_swapcache = action == FaultAction::kSwapIn && swapin_skips_swap_cache(sim) &&
                              !swap_entry_shared(mm, vma.ptes.get(addr), addr);
  if (action == FaultAction::kSwapIn) {  // do_swap_page() -> swapin_readahead(): one read
    if (!skip_swapcache) ra = swapin_window(sim, vma, addr);
    const uint64_t n = skip_swapcache ? 1 : ra.swapped;
    const int64_t pages = static_cast<int64_t>(std::max<uint64_t>(n, 1));
    const SimTime read = c.swap_in_page + c.swap_in_readahead_page * (pages - 1);
    t.work(c.swap_read_submit);  // swap_readpage(): the read's submission and completion
    if (sim.swap().synchronous_io()) {
      t.work(read);  // zram_submit_bio(): each page decompressed here, before the read returns
    } else {
      // The read's latency, or later when the device is busy with I/O queued before it.
      const SimTime queued = sim.swap().queue_io(t.clock(), c.swap_io_page * pages);
      co_await do_sleep(t, max(read, queued - t.clock()));
    }
  }
  // Only a fault on a pte with no page reads the file (do_cow_fault() -> __do_fault() ->
  // filemap_fault(): the source of the copy); do_wp_page() copies the page the pte maps.
  if (action == FaultAction::kCopyPage && !was_mapped && !vma.is_anonymous() &&
      !co_await filemap_fault(t, vma, addr)) {
    co_await mem_cgroup_cancel_charge(t, mm, 1);
    co_await free_one(t, PageUse::kUser);
    ++sim.vm().fault_oom;
    co_return FaultResult::kOom;
  }
  if (action == FaultAction::kNewPage) t.work(clear_page_cost(t));
  if (action == FaultAction::kCopyPage) {
    if (c.dram_page_transfer == SimTime::zero()) {
      t.work(c.copy_page);
    } else {
      co_await CopyPageStep(t);
    }
  }
  if (wp_fault) {
    t.work(c.wp_pte_update);
    if (action == FaultAction::kCopyPage) {
      t.wp_copied = true;
      // wp_page_copy() -> ptep_clear_flush(): the old pte may be cached by any CPU running this
      // mm, so it is flushed (flush_tlb_page(): INVLPG here, IPIs to the mm's other CPUs)
      // before the new page's pte is set. The kernel flushes under the PTL after its recheck;
      // the model flushes just before the recheck, so that no pte reference spans the wait.
      const uint64_t page = addr & ~(PAGE_SIZE - 1);
      co_await flush_tlb_mm_range(t, FlushTlbInfo{&mm, page, page + PAGE_SIZE, false});
    }
  }
  co_await sync_point(t);  // pte_offset_map_lock(): recheck under the PTL
  const FaultAction now = decide(mm, vma, addr, vma.ptes.get(addr), write, t.sim());
  // wp_page_copy() rechecks pte_same() on its own pte, not the decision do_wp_page() made: when
  // the page's other mapper copied it (or unmapped it) meanwhile, this pte still maps the old
  // page write-protected, and the copy goes in. The old page then had its last mapping here and
  // goes with this fault's folio_put(): both sides of a fork that write one page at once both
  // copy it, and neither fault is spurious. The model marks the owner of a fork-shared page on its
  // pte (pte::kOwnPage, which the peer's copy may hand over: hand_over_cow_page()), so that bit
  // may differ, as may the young bit reclaim's page_referenced() clears.
  const bool copy_orphans_page =
      wp_fault && action == FaultAction::kCopyPage && now == FaultAction::kWpReuse &&
      ((vma.ptes.get(addr) ^ orig_pte) & ~(pte::kOwnPage | pte::kYoung)) == 0;
  if (now != action && !copy_orphans_page) {
    if (needs_page) {
      co_await mem_cgroup_cancel_charge(t, mm, 1);
      co_await free_one(t, PageUse::kUser);
    }
    ++sim.vm().fault_spurious;
    co_return FaultResult::kSpurious;
  }
  uint8_t& p = vma.ptes.ref(addr);
  Lruvec::RemovedPage orphaned;
  if (copy_orphans_page) {
    // folio_remove_rmap_pte() of the old page, whose last mapper this was: freed below.
    orphaned = sim.lruvec().page_remove_rmap(mm, addr);
  } else if (action == FaultAction::kCopyPage && (p & pte::kOwnPage)) {
    // wp_page_copy() by the owner of a fork-shared page: the other mapper keeps the old page.
    if (Mm* other = cow_sharer(mm, addr)) hand_over_cow_page(sim, mm, *other, addr);
  }
  if (action == FaultAction::kCopyPage && maps_page_cache(vma, p)) {
    // wp_page_copy() of a private mapping's page-cache page: the pte leaves it for the copy.
    sim.page_cache().page_remove_file_rmap(mapped_page_cache_frame(sim, vma, addr));
  }
  // The page of an entry fork shares stays in the swap cache, mapped read-only and fork-shared:
  // the other holders map it too (swap_cache_share()), and a write copies it below.
  const bool shared_entry = action == FaultAction::kSwapIn && swap_entry_shared(mm, p, addr);
  set_pte(mm, p, action, write && !shared_entry);
  bool slot_cached = false;
  if (shared_entry) {
    p |= pte::kCowShared;
    slot_cached = swap_cache_share(sim, mm, addr);
  }
  VmCounters& vm = sim.vm();
  if (action == FaultAction::kSwapIn) {
    ++vm.pgmajfault;
  } else {
    ++(action == FaultAction::kZeroPage   ? vm.fault_zero_page
       : action == FaultAction::kNewPage  ? vm.fault_anon
       : action == FaultAction::kCopyPage ? vm.fault_cow
       : action == FaultAction::kWpReuse  ? vm.fault_wp_reuse
                                          : vm.fault_file);
  }
  if (action == FaultAction::kWpReuse) free_swap_slot_of(sim, mm, addr);  // reuse_swap_page()
  if (action == FaultAction::kSwapIn) {
    const bool keep_slot =
        shared_entry || (!write && !sim.swap().vm_swap_full() && !skip_swapcache);
    co_await sim.lruvec().lru_cache_add(
        t, swapped_in_page(sim, mm, addr, numa_node_id(t), keep_slot, slot_cached));
    if (!skip_swapcache) co_await map_swap_readahead(t, vma, ra.lo, ra.hi, addr);
    // do_swap_page() -> do_wp_page(): a write to the page it shares copies it.
    if (shared_entry && write)
      co_return co_await handle_pte_fault(t, vma, addr, write, FaultAction::kCopyPage);
  } else if (needs_page) {
    co_await sim.lruvec().lru_cache_add(
        t, sim.lruvec().page_add_new_anon_rmap(mm, addr, numa_node_id(t)));
  }
  if (copy_orphans_page) co_await put_last_anon_page(t, mm, orphaned);
  co_return FaultResult::kMapped;
}

// Models do_fault_around() -> filemap_map_pages() (3.15+) for a read fault at addr, under the PTL:
// the window of `nr_pages` pages aligned to its size (from the VMA's start when that is later),
// inside the fault's PTE page and the VMA, has each cached, uptodate page whose pte is none
// mapped as the fault would map it (find_mappable_page()); each pays back a miss of the
// mappings' read-around (mmap_miss). The pages are mapped young (x86 does not prefault old).
// Returns whether addr's own page was among them: then the fault is done.
bool do_fault_around(Task& t, Vma& vma, uint64_t addr, uint64_t nr_pages) {
  Simulation& sim = t.sim();
  PageCache& pc = sim.page_cache();
  Mm& mm = *t.mm();
  const uint64_t window = nr_pages * PAGE_SIZE;
  const uint64_t start = std::max(addr & ~(window - 1), vma.start);
  const uint64_t end = std::min({(addr & ~(PMD_SIZE - 1)) + PMD_SIZE, vma.end, start + window});
  FileRaState& ra = pc.mmap_ra_state(vma.file);
  bool mapped_own = false;
  for (uint64_t a = start; a < end; a += PAGE_SIZE) {
    if (vma.ptes.get(a) != pte::kNone) continue;
    const uint32_t f = find_mappable_page(t, vma.file, linear_page_index(vma, a));
    if (f == kNoFrame) continue;
    set_pte(mm, vma.ptes.ref(a), FaultAction::kMapFile, /*write=*/false);
    pc.page_add_file_rmap(f);
    if (ra.mmap_miss > 0) --ra.mmap_miss;
    if (a == addr) {
      mapped_own = true;
    } else {
      ++sim.vm().fault_around_pages;
    }
  }
  return mapped_own;
}

// fault_around_bytes as do_fault_around() reads it: whole pages, a power of two, at most a PTE
// page's worth; 1 or 0 means none.
uint64_t fault_around_pages(const Simulation& sim) {
  const uint64_t pages = sim.config().fault_around_bytes / PAGE_SIZE;
  return pages == 0 ? 0 : std::min<uint64_t>(std::bit_floor(pages), PTRS_PER_PTE);
}

// Models do_read_fault() and do_shared_fault() after the bookkeeping: a page-cache page of the
// VMA's file, found or read by filemap_fault(), mapped at addr. A write (a shared mapping's)
// dirties the page (fault_dirty_shared_page()).
Co<FaultResult> do_file_fault(Task& t, Vma& vma, uint64_t addr, bool write) {
  Simulation& sim = t.sim();
  Mm& mm = *t.mm();
  PageCache& pc = sim.page_cache();
  if (mm.pte_tables.ensure(addr)) {  // pte_alloc(): a zeroed PTE page
    if (!co_await alloc_one(t, PageUse::kPageTable)) {
      mm.pte_tables.drop(addr >> PMD_SHIFT);
      co_return fault_out_of_memory(t);
    }
    t.work(clear_page_cost(t));
  }
  // do_read_fault(): fault-around first; the fault reads its own page only when that did not map
  // it (not cached, a read in flight, or the readahead mark whose fault starts the next window).
  if (const uint64_t around = fault_around_pages(sim); !write && around > 1) {
    co_await sync_point(t);  // pte_offset_map_lock(), and the mapping's xarray under RCU
    if (do_fault_around(t, vma, addr, around)) {
      t.work(sim.costs().page_cache_lookup);  // per file fault, fault-around included
      ++sim.vm().fault_file;
      co_return FaultResult::kMapped;
    }
  }
  for (;;) {
    if (!co_await filemap_fault(t, vma, addr)) {  // OOM: the task was killed
      ++sim.vm().fault_oom;
      co_return FaultResult::kOom;
    }
    co_await sync_point(t);  // pte_offset_map_lock(): recheck under the PTL
    if (decide(mm, vma, addr, vma.ptes.get(addr), write, t.sim()) != FaultAction::kMapFile) {
      ++sim.vm().fault_spurious;
      co_return FaultResult::kSpurious;
    }
    const uint32_t f = pc.find_get_page(vma.file, linear_page_index(vma, addr));
    // Reclaim took the page since filemap_fault() found it (the kernel's page reference would
    // have kept it): fault it again.
    if (f == kNoFrame ||
        (pc.reads_in_flight(t.clock()) && page_read_in_flight(sim.lruvec().frame(f), t.clock())))
      continue;
    set_pte(mm, vma.ptes.ref(addr), FaultAction::kMapFile, write);
    pc.page_add_file_rmap(f);
    ++sim.vm().fault_file;
    if (write) {
      pc.set_page_dirty(f);
      co_await balance_dirty_pages_ratelimited(t);
    }
    co_return FaultResult::kMapped;
  }
}

}  // namespace

Co<FaultResult> handle_mm_fault(Task& t, Vma& vma, uint64_t addr, bool write) {
  t.work(t.sim().costs().fault_bookkeeping);
  const FaultAction action = decide(*t.mm(), vma, addr, vma.ptes.get(addr), write, t.sim());
  if (action == FaultAction::kNewPage) return do_anonymous_page(t, vma, addr, write);
  if (action == FaultAction::kMapFile) return do_file_fault(t, vma, addr, write);
  return handle_pte_fault(t, vma, addr, write, action);
}

namespace {

// do_user_addr_fault() after lock_vma_under_rcu() or lock_mm_and_find_vma(): the fault under the
// lock it took, then the unlock. Each runs without a frame until a step must wait, and hands the
// rest to a coroutine from that step (sim/co.h); a step already run is not run again there.
enum class LockedFaultStep : uint8_t { kLock, kFault, kUnlock };

// The per-VMA half from `step` on. kLock does not occur (lock_vma_under_rcu() takes the lock in
// the step that finds the VMA); at kUnlock, `tried` is what vma_end_read()'s try found.
Co<FaultResult> fault_under_vma_lock_from(Task& t, Vma& vma, LockedFaultStep step,
                                          SharedStep::Outcome tried, Co<FaultResult> fault,
                                          FaultResult r) {
  assert(step != LockedFaultStep::kLock);
  if (step == LockedFaultStep::kFault) {
    r = co_await fault;
    co_await VmaLockStep(t, vma.lock, VmaLockStep::Kind::kEndRead, 0);
  } else {
    co_await after_try(VmaLockStep(t, vma.lock, VmaLockStep::Kind::kEndRead, 0), tried);
  }
  co_return r;
}

// The fault on a VMA that lock_vma_under_rcu() read-locked, when the access is allowed.
Co<FaultResult> fault_on_locked_vma(Task& t, Vma& vma, uint64_t addr, bool write) {
  VmCounters& vm = t.sim().vm();
  if (vma.access_ok(write)) {
    ++vm.fault_vma_lock;
    return handle_mm_fault(t, vma, addr, write);
  }
  ++vm.fault_segv;
  return Co<FaultResult>::ready(FaultResult::kSegv);
}

// The fault on a VMA that lock_vma_under_rcu() read-locked, and vma_end_read().
Co<FaultResult> fault_under_vma_lock(Task& t, Vma& vma, uint64_t addr, bool write) {
  Co<FaultResult> fault = fault_on_locked_vma(t, vma, addr, write);
  if (!fault.await_ready()) {
    return fault_under_vma_lock_from(t, vma, LockedFaultStep::kFault, SharedStep::Outcome::kDone,
                                     std::move(fault), FaultResult::kSegv);
  }
  const FaultResult r = fault.await_resume();
  VmaLockStep end(t, vma.lock, VmaLockStep::Kind::kEndRead, 0);
  if (const auto o = end.try_run(); o != SharedStep::Outcome::kDone) {
    return fault_under_vma_lock_from(t, vma, LockedFaultStep::kUnlock, o, Co<FaultResult>::ready(r),
                                     r);
  }
  return Co<FaultResult>::ready(r);
}

// find_vma() under mmap_sem and the fault on what it found.
Co<FaultResult> find_vma_and_fault(Task& t, Mm& mm, uint64_t addr, bool write) {
  Simulation& sim = t.sim();
  t.work(sim.costs().find_vma);
  Vma* vma = mm.vmas.vma_lookup(addr, t.vmacache);
  if (vma != nullptr && vma->access_ok(write)) return handle_mm_fault(t, *vma, addr, write);
  ++sim.vm().fault_segv;
  return Co<FaultResult>::ready(FaultResult::kSegv);
}

// The mmap_sem half from `step` on; at kLock and kUnlock, `tried` is what that step's try found.
Co<FaultResult> fault_under_mmap_sem_from(Task& t, Mm& mm, uint64_t addr, bool write,
                                          LockedFaultStep step, SharedStep::Outcome tried,
                                          Co<FaultResult> fault, FaultResult r) {
  switch (step) {
    case LockedFaultStep::kLock:
      co_await after_try(mm.mmap_sem.down_read(t), tried);
      fault = find_vma_and_fault(t, mm, addr, write);
      [[fallthrough]];
    case LockedFaultStep::kFault:
      r = co_await fault;
      co_await mm.mmap_sem.up_read(t);
      break;
    case LockedFaultStep::kUnlock:
      co_await after_try(mm.mmap_sem.up_read(t), tried);
  }
  co_return r;
}

// lock_mm_and_find_vma() (mmap_sem for read), the fault, and up_read().
Co<FaultResult> fault_under_mmap_sem(Task& t, Mm& mm, uint64_t addr, bool write) {
  auto from = [&](LockedFaultStep step, SharedStep::Outcome o, Co<FaultResult> fault,
                  FaultResult r) {
    return fault_under_mmap_sem_from(t, mm, addr, write, step, o, std::move(fault), r);
  };
  RwsemDownRead down = mm.mmap_sem.down_read(t);
  if (const auto o = down.try_run(); o != SharedStep::Outcome::kDone)
    return from(LockedFaultStep::kLock, o, Co<FaultResult>::ready(FaultResult::kSegv),
                FaultResult::kSegv);
  Co<FaultResult> fault = find_vma_and_fault(t, mm, addr, write);
  if (!fault.await_ready())
    return from(LockedFaultStep::kFault, SharedStep::Outcome::kDone, std::move(fault),
                FaultResult::kSegv);
  const FaultResult r = fault.await_resume();
  RwsemUp up = mm.mmap_sem.up_read(t);
  if (const auto o = up.try_run(); o != SharedStep::Outcome::kDone)
    return from(LockedFaultStep::kUnlock, o, Co<FaultResult>::ready(r), r);
  return Co<FaultResult>::ready(r);
}

// do_user_addr_fault() from lock_vma_under_rcu() on, in one frame: its step had to queue, as it
// does on most faults of a contended run, where the frameless halves above would each make a
// frame of their own at their next wait. The caller tried the step; it is queued at once.
Co<FaultResult> lock_and_fault(Task& t, Mm& mm, uint64_t addr, bool write) {
  FaultResult r = FaultResult::kSegv;
  if (Vma* vma = co_await after_try(LockVmaUnderRcu(t, mm, addr), SharedStep::Outcome::kDeferred)) {
    r = co_await fault_on_locked_vma(t, *vma, addr, write);
    co_await VmaLockStep(t, vma->lock, VmaLockStep::Kind::kEndRead, 0);
    co_return r;
  }
  co_await mm.mmap_sem.down_read(t);  // lock_mm_and_find_vma()
  r = co_await find_vma_and_fault(t, mm, addr, write);
  co_await mm.mmap_sem.up_read(t);
  co_return r;
}

}  // namespace

// The common case (the VMA lock or mmap_sem, the fault and the unlock all free to run now) makes
// no coroutine frame: a fault's frame was 150-190 host instructions of ~3,200 (sim/co.h).
Co<FaultResult> do_user_addr_fault(Task& t, uint64_t addr, bool write) {
  Simulation& sim = t.sim();
  t.work(sim.costs().fault_entry);
  ++sim.vm().pgfault;
  Mm* mm = t.mm();
  if (mm == nullptr || mm->dead) {
    ++sim.vm().fault_segv;
    return Co<FaultResult>::ready(FaultResult::kSegv);
  }
  LockVmaUnderRcu lock(t, *mm, addr);
  const SharedStep::Outcome o = lock.try_run();
  assert(o != SharedStep::Outcome::kParked && "lock_vma_under_rcu() only trylocks");
  if (o == SharedStep::Outcome::kDeferred) return lock_and_fault(t, *mm, addr, write);
  if (Vma* vma = lock.await_resume()) return fault_under_vma_lock(t, *vma, addr, write);
  return fault_under_mmap_sem(t, *mm, addr, write);
}

SimTime wp_copy_surplus(const CostProfile& c) {
  return max(c.copy_page + c.wp_pte_update + c.tlb_flush_single - c.clear_page, SimTime::zero());
}

Co<FaultResult> do_kernel_copy_fault(Task& t, uint64_t addr, bool write) {
  const FaultResult r = co_await do_user_addr_fault(t, addr, write);
  const CostProfile& c = t.sim().costs();
  t.work(c.fault_from_kernel);
  if (write && r == FaultResult::kMapped && c.copy_page_cold > c.file_copy_page)
    t.work(c.copy_page_cold - c.file_copy_page);
  co_return r;
}

void prefetch_anon_frame(Simulation& sim, const Mm& mm, uint64_t addr) {
  const uint32_t f = mm.anon_pages.find(addr);
  if (f != kNoFrame) __builtin_prefetch(&sim.lruvec().frame(f));
}

uint64_t skip_pmd_none(Task& t, const Vma& vma, uint64_t addr, uint64_t end) {
  const uint64_t next = vma.ptes.next_populated(addr, end);
  if (next != addr) {
    t.work(t.sim().costs().pte_walk * static_cast<int64_t>(PteMap::pmd_entries(addr, next)));
  }
  return next;
}

Co<uint64_t> zap_pte_range(Task& t, Vma& vma, uint64_t start, uint64_t end, MmuGather& tlb) {
  assert(start >= vma.start && end <= vma.end && start < end);
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  Mm& mm = tlb.mm();
  uint64_t zapped = 0;
  for (uint64_t addr = start; addr < end; addr += PAGE_SIZE) {
    addr = skip_pmd_none(t, vma, addr, end);
    if (addr == end) break;
    uint8_t& p = vma.ptes.ref(addr);
    if (!pte::is_mapped(p)) {
      t.work(c.pte_walk);
      if (pte::state(p) == pte::kSwapped) swap_entry_free(sim, mm, p, addr);
      p = pte::kNone;
      continue;
    }
    t.work(c.pte_zap);
    tlb.tlb_adjust_range(addr);
    ++zapped;
    if (addr + kFramePrefetchPages * PAGE_SIZE < end)
      prefetch_anon_frame(sim, mm, addr + kFramePrefetchPages * PAGE_SIZE);
    const bool own = (p & pte::kOwnPage) != 0;
    const bool cow_shared = (p & pte::kCowShared) != 0;
    if (maps_page_cache(vma, p)) {  // page_remove_rmap() of a page-cache page
      --mm.rss_file;
      const uint32_t f = mapped_page_cache_frame(sim, vma, addr);
      if (p & pte::kDirty) sim.page_cache().set_page_dirty(f);  // "if (pte_dirty(ptent))"
      sim.page_cache().page_remove_file_rmap(f);
    }
    p = pte::kNone;
    if (!own) continue;
    --mm.rss_anon;
    if (Mm* other = cow_shared ? cow_sharer(mm, addr) : nullptr) {
      // The page stays mapped by the other side of the fork (page_mapcount() > 1): it takes it.
      hand_over_cow_page(sim, mm, *other, addr);
      continue;
    }
    const Lruvec::RemovedPage removed = sim.lruvec().page_remove_rmap(mm, addr);
    tlb.note_page_lru(removed.on_lru, removed.nid, removed.memcg);
    if (tlb.tlb_remove_page()) {
      ++sim.vm().gather_forced_flushes;
      co_await tlb_flush_mmu(t, tlb);
    }
  }
  co_return zapped;
}

void free_pgtables(Task& t, Mm& mm, uint64_t start, uint64_t end, MmuGather& tlb) {
  for (uint64_t pmd : mm.pte_tables.in_range(start, end)) {
    const uint64_t lo = pmd << PMD_SHIFT;
    if (mm.vmas.intersects(lo, lo + PMD_SIZE)) continue;
    mm.pte_tables.drop(pmd);
    tlb.tlb_remove_table(lo);
    t.work(t.sim().costs().pte_walk);
  }
}

Mm* cow_sharer(const Mm& mm, uint64_t addr) {
  for (Mm* peer : mm.cow_peers) {
    if (peer->dead) continue;
    const Vma* v = peer->vmas.vma_lookup(addr);
    if (v == nullptr) continue;
    const uint8_t p = v->ptes.get(addr);
    if (pte::is_mapped(p) && (p & pte::kCowShared) && !(p & pte::kOwnPage)) return peer;
  }
  return nullptr;
}

namespace {

// Models copy_present_pte(): the child's pte for a present parent pte p (which it may
// write-protect), and the child's rss.
uint8_t copy_present_pte(Mm& dst_mm, uint8_t& p) {
  if (p & (pte::kOwnPage | pte::kCowShared)) {
    // An anonymous page: shared, write-protected in both (ptep_set_wrprotect()); the child's
    // pte is old (pte_mkold()). A page still to be faulted from the swap cache (kSwapCache) is a
    // swap entry in the kernel's pte, which the child copies: its first access faults too.
    p = static_cast<uint8_t>(p | pte::kCowShared);
    return static_cast<uint8_t>(pte::kPresent | pte::kCowShared | (p & pte::kSwapCache));
  }
  if (!(p & pte::kZeroPage)) ++dst_mm.rss_file;  // a page-cache page (get_page(), rss)
  return static_cast<uint8_t>(pte::kPresent | (p & (pte::kZeroPage | pte::kDirty)));
}

}  // namespace

Co<bool> copy_page_range(Task& t, Mm& dst_mm, Vma& dst, Mm& src_mm, Vma& src) {
  if (src.kind == VmaKind::kFileShared) co_return true;  // vma_needs_copy()
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  uint64_t copied = 0;
  for (uint64_t addr = src.start; addr < src.end; addr += PAGE_SIZE) {
    addr = skip_pmd_none(t, src, addr, src.end);
    if (addr == src.end) break;
    if (src.ptes.get(addr) == pte::kNone) {
      t.work(c.pte_walk);
      continue;
    }
    if (dst_mm.pte_tables.ensure(addr)) {  // copy_pte_range() -> pte_alloc_map_lock()
      if (!co_await alloc_one(t, PageUse::kPageTable)) {
        dst_mm.pte_tables.drop(addr >> PMD_SHIFT);
        co_return false;
      }
    }
    uint8_t& p = src.ptes.ref(addr);
    if (pte::state(p) == pte::kSwapped) {  // copy_nonpresent_pte(): the child holds the entry too
      dst.ptes.ref(addr) = swap_duplicate(sim, src_mm, p, dst_mm, addr);
      t.work(c.fork_pte_copy);
      ++sim.vm().fork_swap_entries_copied;
      continue;
    }
    if (!pte::is_mapped(p)) continue;  // zapped while the PTE page was allocated
    dst.ptes.ref(addr) = copy_present_pte(dst_mm, p);
    if (maps_page_cache(src, p))  // page_dup_file_rmap(): the child maps the page-cache page too
      sim.page_cache().page_add_file_rmap(mapped_page_cache_frame(sim, src, addr));
    t.work(c.fork_pte_copy);
    ++copied;
  }
  sim.vm().fork_ptes_copied += copied;
  co_return true;
}

}  // namespace mmreplay::kernelsim
