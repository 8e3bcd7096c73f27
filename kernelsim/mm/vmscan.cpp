#include "kernelsim/mm/vmscan.h"

#include <algorithm>
#include <cassert>
#include <utility>
#include <vector>

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/fs/buffer.h"
#include "kernelsim/kernel/thread.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/rmap_file.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// struct scan_control, the fields the model uses.
struct ScanControl {
  uint64_t nr_to_reclaim = SWAP_CLUSTER_MAX;
  uint64_t nr_reclaimed = 0;
  uint64_t nr_scanned = 0;  // pages isolated from the inactive lists
  // Pages kept because a write is due or in flight (reclaim_throttle()): dirty or under-writeback
  // file pages, and anon pages whose swap write this scan queued or found still in flight.
  uint64_t nr_writeback = 0;
  uint64_t nr_unqueued_dirty = 0;  // of those, dirty and not yet under writeback
  bool kswapd = false;
  uint32_t memcg = kAnyMemcg;  // target_mem_cgroup: memcg reclaim scans only this group's lruvec
  uint32_t nid = 0;            // the node shrink_node() scans (its pgdat)
  // reclaim_pages() (MADV_PAGEOUT): page_check_references() is skipped.
  bool ignore_references = false;
  // Anon pages unmapped and kept in the swap cache while their write is in flight.
  uint64_t nr_unmapped_kept = 0;
};

LruList inactive_of(bool file) {
  return file ? LruList::kInactiveFile : LruList::kInactiveAnon;
}
LruList active_of(bool file) {
  return file ? LruList::kActiveFile : LruList::kActiveAnon;
}
LruList anon_or_file(const PageFrame& pf, bool active) {
  if (pf.swapbacked) return active ? LruList::kActiveAnon : LruList::kInactiveAnon;
  return active ? LruList::kActiveFile : LruList::kInactiveFile;
}

uint64_t int_sqrt(uint64_t x) {
  uint64_t r = 0;
  while ((r + 1) * (r + 1) <= x) ++r;
  return r;
}

// Models inactive_list_is_low() (4.10+ form): inactive * inactive_ratio < active, with
// inactive_ratio = int_sqrt(10 * gb) (1 below 1 GiB), gb the node's memory (an equal share of the
// machine's: page_alloc.h).
bool inactive_list_is_low(Simulation& sim, bool file, uint32_t nid, uint32_t memcg) {
  const Lruvec& lru = sim.lruvec();
  const uint64_t node_pages = sim.page_alloc().zone().managed_pages / lru.nr_nodes();
  const uint64_t gb = (node_pages << PAGE_SHIFT) >> 30;
  const uint64_t ratio = gb != 0 ? int_sqrt(10 * gb) : 1;
  return lru.size(inactive_of(file), nid, memcg) * ratio < lru.size(active_of(file), nid, memcg);
}

// TestClearPageReferenced().
bool test_clear_page_referenced(PageFrame& pf) {
  const bool was = pf.referenced;
  pf.referenced = false;
  return was;
}

// The pte of frame f's page, or nullptr when it is no longer mapped where the frame says.
uint8_t* pte_of(const PageFrame& pf) {
  Vma* vma = pf.mm->vmas.vma_lookup(pf.addr);
  if (vma == nullptr) return nullptr;
  const uint8_t p = vma->ptes.get(pf.addr);
  return pte::is_mapped(p) && (p & pte::kOwnPage) ? &vma->ptes.ref(pf.addr) : nullptr;
}

// Models shrink_active_list(): deactivate up to n pages, clearing their references.
Co<void> shrink_active_list(Task& t, bool file, uint32_t n, uint32_t nid, uint32_t memcg) {
  Simulation& sim = t.sim();
  Lruvec& lru = sim.lruvec();
  QSpinLock& lru_lock = lru.lru_lock_of(nid, memcg);
  co_await lru_lock.lock_irqsave(t);
  std::vector<uint32_t> isolated = lru.isolate_lru_pages(active_of(file), n, nid, memcg);
  t.work(sim.costs().lru_move_page * static_cast<int64_t>(isolated.size()));
  co_await lru_lock.unlock_irqrestore(t);
  for (uint32_t f : isolated) {  // page_referenced(): clears the accessed bits
    t.work(sim.costs().shrink_page);
    if (lru.frame(f).pagecache) {  // through the file's mappings, when any pte maps it
      page_referenced_file(sim, f);
      continue;
    }
    if (lru.frame(f).mm == nullptr) continue;  // dead
    if (uint8_t* p = pte_of(lru.frame(f))) *p = static_cast<uint8_t>(*p & ~pte::kYoung);
  }
  co_await lru_lock.lock_irqsave(t);
  for (uint32_t f : isolated) {
    if (!lru.frame(f).live()) {
      lru.release_frame(f);
      continue;
    }
    lru.putback_lru_page(f, anon_or_file(lru.frame(f), false));
    ++sim.vm().pgdeactivate;
  }
  t.work(sim.costs().lru_move_page * static_cast<int64_t>(isolated.size()));
  co_await lru_lock.unlock_irqrestore(t);
}

// The 2015 MADV_FREE series (lazyfree_pgdirty=kept): page_check_references() found a page
// freeable only with !PageDirty and !PageSwapCache as well as a clean pte, and
// madvise_free_pte_range() cleared neither, so a page that came back from swap (PG_dirty, or
// still in the swap cache) was never discarded: reclaim swapped it out again ("mm: decouple
// PG_dirty from MADV_FREE", Minchan Kim, linux-mm, June 2015). 4.5+ drops the swap cache and
// clears PG_dirty when it hints the page, which leaves the pte's dirty bit as the only test; the
// model reads the frame's bit only here, so it need not clear it at MADV_FREE.
bool lazyfree_pgdirty_blocks(const Simulation& sim, const PageFrame& pf) {
  // The series kept a hinted page's swap cache too: one read back from swap (clean, its slot
  // current) is swapped out again onto that slot, without a write.
  return (pf.dirty || pf.swapcache) && sim.config().lazyfree_pgdirty == LazyfreePgDirty::kKept;
}

}  // namespace

PageOutcome page_check_references(PageFrame& pf, uint32_t referenced_ptes, bool exec,
                                  bool look_twice, bool* reclaim_clean) {
  const bool referenced_page = test_clear_page_referenced(pf);
  if (referenced_ptes == 0) {
    if (reclaim_clean != nullptr) *reclaim_clean = referenced_page && !pf.swapbacked;
    return PageOutcome::kFreed;
  }
  if (!look_twice) return PageOutcome::kActivate;
  pf.referenced = true;
  if (referenced_page || referenced_ptes > 1 || exec) return PageOutcome::kActivate;
  return PageOutcome::kKeep;
}

namespace {

// Models the page-cache part of shrink_page_list() for one isolated file page:
// locked -> keep; PageWriteback -> keep; page_check_references() (the ptes of a mapped page,
// PG_referenced of any); mapped -> try_to_unmap() (its ptes cleared, each (mm, address) added to
// `unmapped` for the caller's TLB flush; a dirty pte dirties the page); PageDirty -> left to the
// flusher by direct reclaim (since 3.2), kept by kswapd when PG_referenced was set
// (PAGEREF_RECLAIM_CLEAN), else pageout(); clean -> try_to_release_page() (buffer heads) and
// __remove_mapping().
PageOutcome shrink_file_page(Task& t, PageFrame& pf, uint32_t f, ScanControl& sc,
                             std::vector<std::pair<Mm*, uint64_t>>* unmapped) {
  Simulation& sim = t.sim();
  PageCache& pc = sim.page_cache();
  // trylock_page() fails on a page whose read is in flight (mm/readahead.h): kept as it is.
  if (page_read_in_flight(pf, t.clock())) return PageOutcome::kKeep;
  if (pf.io_end > t.clock()) {
    // A memcg's reclaim under cgroup v1 (!writeback_throttling_sane(): no per-memcg dirty limits
    // keep a group from filling with dirty pages) waits for the write of a page it already asked
    // for (PG_reclaim: shrink_page_list()'s case 3, wait_on_page_writeback()) and then tries the
    // page again; the first time it marks it (case 2). The kernel also activates a case-2 page;
    // the model keeps it on the inactive list.
    const bool memcg_reclaim = sc.memcg != kAnyMemcg;
    if (memcg_reclaim && pf.reclaim) return PageOutcome::kWaitWriteback;
    if (memcg_reclaim) pf.reclaim = true;
    ++sc.nr_writeback;
    return PageOutcome::kKeep;
  }
  const bool mapped = pc.mapcount(f) != 0;
  bool exec = false;
  const uint32_t referenced_ptes = mapped ? page_referenced_file(sim, f, &exec) : 0;
  bool reclaim_clean = false;
  if (!sc.ignore_references) {
    if (const PageOutcome o =
            page_check_references(pf, referenced_ptes, exec, true, &reclaim_clean);
        o != PageOutcome::kFreed)
      return o;
  }
  if (mapped) try_to_unmap_file(sim, f, unmapped);
  if (pf.dirty) {
    ++sc.nr_writeback;
    ++sc.nr_unqueued_dirty;
    if (!sc.kswapd) {
      if (sc.memcg != kAnyMemcg) pf.reclaim = true;  // SetPageReclaim(): wanted back when written
      wakeup_flusher_threads(t);
      return PageOutcome::kKeep;
    }
    if (reclaim_clean) return PageOutcome::kKeep;  // referenced: not worth a write yet
    pc.start_page_writeback(f, t.clock());         // pageout(): the write completes later
    t.work(sim.costs().writeback_submit);
    ++sim.vm().nr_vmscan_write;
    return PageOutcome::kKeep;
  }
  if (!try_to_free_buffers(sim.buffers(), pf.file, pf.addr)) return PageOutcome::kActivate;
  pc.remove(pf.file, pf.addr);
  ++sim.vm().pgcache_drop;
  return PageOutcome::kFreed;
}

// Models the per-page part of shrink_page_list() / try_to_unmap_one() for one isolated frame.
// A fork-shared page swapped out sets *written to when its write completes (SimTime::zero()
// otherwise: any other page written stays in the swap cache, kKeepUnmapped); the
// ptes it clears besides *unmapped_mm's (a page-cache page's mappers, a fork-shared page's fork
// peers) go to *peers_unmapped, for the caller to flush.
// REQUIRES: now() == t.clock() (called right after a sync point).
PageOutcome shrink_page(Task& t, uint32_t f, ScanControl& sc, Mm** unmapped_mm,
                        uint64_t* unmapped_addr, SimTime* written,
                        std::vector<std::pair<Mm*, uint64_t>>* peers_unmapped) {
  Simulation& sim = t.sim();
  Lruvec& lru = sim.lruvec();
  PageFrame& pf = lru.frame(f);
  if (pf.pagecache) return shrink_file_page(t, pf, f, sc, peers_unmapped);
  if (pf.mm == nullptr) return PageOutcome::kGone;  // zapped while isolated: already freed
  uint8_t* p = pte_of(pf);
  if (p == nullptr) return PageOutcome::kActivate;  // mid-mremap (no VMA maps it yet): keep
  if (pf.swapcache && pf.io_end > t.clock()) {
    // PageWriteback(): its swap write is still in flight; the write's end rotates it back to
    // the tail (shrink_page_list()'s case 2; the model keeps it on the inactive list).
    ++sc.nr_writeback;
    return PageOutcome::kKeep;
  }
  VmCounters& vm = sim.vm();
  // page_referenced(): every pte mapping the page, young bits cleared; a fork-shared page's fork
  // peers map it too (mm/swap_count.h).
  const bool fork_shared = (*p & pte::kCowShared) != 0;
  const uint32_t referenced_ptes =
      ((*p & pte::kYoung) ? 1 : 0) + (fork_shared ? fork_peers_referenced(*pf.mm, pf.addr) : 0);
  *p = static_cast<uint8_t>(*p & ~pte::kYoung);
  const bool look_twice = sim.config().anon_lru == AnonLruMode::kInactiveFirst;
  if (!sc.ignore_references) {
    if (const PageOutcome o = page_check_references(pf, referenced_ptes, false, look_twice);
        o != PageOutcome::kFreed)
      return o;
  }
  Mm& mm = *pf.mm;
  const bool was_unmapped = (*p & pte::kSwapCache) != 0;
  // A clean lazyfree page is discarded: 4.12+ only once it lost PG_swapbacked on the lazyfree
  // list (one still in a batch is swapped as anon); 4.5-4.11 (and the 2015 RFC, in-place) by its
  // clean ptes (TTU_LZFREE).
  const bool lazyfree = sim.config().lazyfree_lru == LazyfreeLru::kInactiveFile
                            ? !pf.swapbacked
                            : pte::state(*p) == pte::kLazyFree;
  if (lazyfree && pte::state(*p) == pte::kLazyFree && !(*p & pte::kDirty) &&
      !lazyfree_pgdirty_blocks(sim, pf)) {  // discard
    ++vm.pglazyfreed;
    *p = pte::kNone;
  } else if (!pf.swapbacked) {  // written after MADV_FREE: SetPageSwapBacked()
    pf.swapbacked = true;
    ++vm.lazyfree_redirtied;
    return PageOutcome::kActivate;
  } else {
    // try_to_unmap() points the pte at a slot: the page's own when it is in the swap cache
    // (add_to_swap() skipped), else add_to_swap()'s. pageout() -> swap_writepage() writes it
    // unless its copy there is current (read back from swap and not written since: PageDirty
    // clear, and __remove_mapping() frees it at once).
    const bool copy_current = pf.swapcache && !(*p & pte::kDirty);
    // A page written to a block device stays in the swap cache while the write is in flight
    // (pageout() returns with PG_writeback: `goto keep`), its pte a swap entry whose page is
    // still cached (pte::kSwapCache: the next access takes a minor fault), and goes back to the
    // inactive list; the write's end moves it to the list's tail (Lruvec::rotate_at_write_end()),
    // and the next scan frees it unwritten, as it frees any clean swap-cache page. Known
    // simplification: a fork-shared page's reclaimer waits for its write and frees it
    // (shrink_page_list()), as every swapped-out page's did before 2026-12-06.
    const bool keep_cached = !copy_current && !fork_shared && !sim.swap().synchronous_io();
    if (!pf.swapcache && !sim.swap().get_swap_page()) {
      ++vm.swap_full;
      return PageOutcome::kActivate;
    }
    if (!copy_current) {
      t.work(sim.costs().swap_out_page);
      // zram_submit_bio(): the compression above is the whole write, done when it returns.
      if (!sim.swap().synchronous_io()) {
        const SimTime done = sim.swap().queue_io(t.clock(), sim.costs().swap_io_page);
        if (keep_cached) {
          pf.io_end = done;  // PG_writeback until then
          sim.lruvec().rotate_at_write_end(done, f);
        } else {
          *written = done;
        }
      }
      ++vm.pswpout;
    }
    if (keep_cached) {
      if (!pf.swapcache) {
        sim.swap().keep_in_swap_cache();
        pf.swapcache = true;
      }
      *p = pte::kPresent | pte::kOwnPage | pte::kSwapCache;
      *unmapped_mm = &mm;
      *unmapped_addr = pf.addr;
      return PageOutcome::kKeepUnmapped;
    }
    if (pf.swapcache) {
      pf.swapcache = false;
      sim.swap().swap_cache_slot_to_pte();
    }
    ++mm.swapents;
    *p = pte::kSwapped;
    // try_to_unmap(): the fork peers' ptes get the entry too, and their TLBs are flushed.
    if (fork_shared)
      vm.fork_swap_entries_unmapped += swap_entry_share_on_unmap(sim, mm, pf.addr, peers_unmapped);
  }
  --mm.rss_anon;
  // A page its pte no longer maps (pte::kSwapCache: unmapped while its write was in flight, or
  // read ahead and not faulted yet) is freed without try_to_unmap(), so without a TLB flush.
  if (!was_unmapped) {
    *unmapped_mm = &mm;
    *unmapped_addr = pf.addr;
  }
  return PageOutcome::kFreed;
}

// shrink_page() of a page it found under writeback for a memcg's reclaim: folio_wait_writeback(),
// then the page again (cgroup v1, shrink_page_list()'s case 3). A coroutine of its own, so that
// shrink_page_list()'s frame and its common path stay as they were.
Co<PageOutcome> shrink_page_after_writeback(Task& t, uint32_t f, ScanControl& sc, Mm** mm,
                                            uint64_t* addr, SimTime* written,
                                            std::vector<std::pair<Mm*, uint64_t>>* peers_unmapped) {
  Simulation& sim = t.sim();
  PageOutcome o = PageOutcome::kWaitWriteback;
  while (o == PageOutcome::kWaitWriteback) {
    ++sim.vm().memcg_writeback_waits;
    co_await do_sleep(t, sim.lruvec().frame(f).io_end - t.clock());
    co_await sync_point(t);
    o = shrink_page(t, f, sc, mm, addr, written, peers_unmapped);
  }
  co_return o;
}

// Models shrink_page_list(): returns the pages freed; the frames to keep go to `keep`.
// A kept frame and whether it goes to the active list.
using Kept = std::pair<uint32_t, bool>;

// struct tlbflush_unmap_batch (4.3+, reclaim_tlb_flush=batched): the mms whose ptes
// try_to_unmap() cleared without a flush while another CPU was in their mm_cpumask, and the union
// of those masks as they were then (mm_cpumask=lazy: 6.14+'s, which keeps the CPUs that ran the
// mm and now run another). Known simplification: under tlb=broadcast and tlb=pv the batch flushes
// each mm in turn (flush_tlb_mm_range() of the whole mm), not the kernel's one flush of the union.
class UnmapFlushBatch {
 public:
  // Models the choice try_to_unmap_one() makes for the pte of (mm, addr) it cleared: a flush
  // now (ptep_clear_flush(): every page before 4.3, and since then a page of an mm no other CPU
  // is in the mask of, whose flush is local), or later for the batch (should_defer_flush() ->
  // set_tlb_ubc_flush_pending() -> arch_tlbbatch_add_pending(): the mm's tlb_gen moves on, its
  // mask joins the batch's). Returns whether it is deferred.
  bool defer(const Task& t, Mm* mm) {
    const KernelConfig& config = t.sim().config();
    if (config.reclaim_tlb_flush != ReclaimTlbFlush::kBatched) return false;
    const CpuMask& mask = config.mm_cpumask == MmCpumaskMode::kLazy ? mm->ran_on : mm->cpumask;
    if (!mask.any_but(t.cpu().id)) return false;
    ++mm->tlb_gen;
    targets_.or_with(mask);
    if (std::find(mms_.begin(), mms_.end(), mm) == mms_.end()) mms_.push_back(mm);
    return true;
  }
  bool pending() const { return !mms_.empty(); }
  // Models try_to_unmap_flush(): one full flush (TLB_FLUSH_ALL) on the batch's CPUs.
  Co<void> flush(Task& t) {
    const CpuMask targets = std::exchange(targets_, CpuMask());
    const std::vector<Mm*> mms = std::exchange(mms_, {});
    if (t.sim().config().tlb == TlbFlushMethod::kIpi) {
      co_await arch_tlbbatch_flush(t, targets);
    } else {
      for (Mm* mm : mms) co_await flush_tlb_mm_range(t, FlushTlbInfo{mm, 0, TASK_SIZE, false});
    }
    ++t.sim().vm().reclaim_tlb_batch_flushes;
  }

 private:
  std::vector<Mm*> mms_;
  CpuMask targets_;
};

// A swapped-out page is unmapped at once but freed only when its write completes: the kernel
// keeps it in the swap cache (pageout() returns PAGE_SUCCESS with PageWriteback() set: `goto
// keep`) and a later scan frees it (__remove_mapping()) after end_page_writeback(), as the model
// does (shrink_page()). A fork-shared page, whose peers' ptes the model points at the slot, is
// the exception: its reclaimer waits for its batch's writes before it frees them.
Co<uint64_t> shrink_page_list(Task& t, const std::vector<uint32_t>& isolated, ScanControl& sc,
                              std::vector<Kept>* keep) {
  Simulation& sim = t.sim();
  Lruvec& lru = sim.lruvec();
  PageAllocator& pa = sim.page_alloc();
  uint64_t freed = 0;
  uint64_t written_pages = 0;  // swapped out: freed once the device has written them
  SimTime written_end = SimTime::zero();
  MemcgUnchargeList uncharge;
  std::vector<std::pair<Mm*, uint64_t>> peers_unmapped;  // other mappers' ptes cleared
  UnmapFlushBatch unmap_batch;
  // Pages whose flush the batch deferred, freed once it is done (try_to_unmap_flush() before
  // free_unref_page_list()). Known simplification: the kernel frees every page of the list
  // there, at the end; the model frees the others as it goes, as it always has.
  uint64_t freed_after_flush = 0;
  VmCounters& vm = sim.vm();
  for (uint32_t f : isolated) {
    t.work(sim.costs().shrink_page);
    co_await sync_point(t);  // the page's PTL (rmap walk)
    Mm* mm = nullptr;
    uint64_t addr = 0;
    SimTime written = SimTime::zero();
    const uint64_t writes_before = vm.pswpout + vm.nr_vmscan_write;
    PageOutcome o = shrink_page(t, f, sc, &mm, &addr, &written, &peers_unmapped);
    if (o == PageOutcome::kWaitWriteback)
      o = co_await shrink_page_after_writeback(t, f, sc, &mm, &addr, &written, &peers_unmapped);
    // try_to_unmap_one(): ptep_clear_flush(), or the flush left to the batch.
    for (const auto& [m, a] : peers_unmapped) {
      if (!unmap_batch.defer(t, m))
        co_await flush_tlb_mm_range(t, FlushTlbInfo{m, a, a + PAGE_SIZE, false});
    }
    peers_unmapped.clear();
    const bool own_deferred = mm != nullptr && o != PageOutcome::kGone && unmap_batch.defer(t, mm);
    // try_to_unmap_flush_dirty(): before pageout() writes a page, no CPU may still write it
    // through a stale TLB entry. The pages written here are the ones whose ptes were dirty.
    if (vm.pswpout + vm.nr_vmscan_write != writes_before && unmap_batch.pending())
      co_await unmap_batch.flush(t);
    if (o == PageOutcome::kKeepUnmapped) {  // unmapped, kept in the swap cache
      ++sc.nr_unmapped_kept;
      ++sc.nr_writeback;
      if (!own_deferred)
        co_await flush_tlb_mm_range(t, FlushTlbInfo{mm, addr, addr + PAGE_SIZE, false});
      keep->emplace_back(f, false);
      // Its write took a request of the device's queue: with the queue full, the next write's
      // submit_bio() sleeps for a request, which bounds how far reclaim writes ahead. Known
      // simplification: each page's write is a request of its own, where the kernel's plug
      // (shrink_lruvec()) merges a batch's writes to neighbouring slots into one.
      if (const SimTime free = sim.swap().request_slot_free(t.clock()); free > t.clock()) {
        ++sim.vm().swap_write_queue_waits;
        co_await do_sleep(t, free - t.clock());
      }
      continue;
    }
    if (o == PageOutcome::kActivate || o == PageOutcome::kKeep) {
      if (o == PageOutcome::kActivate) {
        ++sim.vm().pgactivate;
        // activate_locked: a page kept in memory need not hold a slot a nearly full swap wants
        // (PageSwapCache && vm_swap_full() -> try_to_free_swap(), which sets PG_dirty).
        if (sim.swap().vm_swap_full()) lru.try_to_free_swap(f);
      }
      keep->emplace_back(f, o == PageOutcome::kActivate);
      continue;
    }
    if (o == PageOutcome::kFreed) uncharge.add(lru.frame(f).memcg);
    lru.release_frame(f);
    if (o == PageOutcome::kGone) continue;
    if (mm != nullptr && !own_deferred)
      co_await flush_tlb_mm_range(t, FlushTlbInfo{mm, addr, addr + PAGE_SIZE, false});
    if (written > t.clock()) {  // PageWriteback(): freed after end_page_writeback()
      ++written_pages;
      written_end = max(written_end, written);
      continue;
    }
    if (own_deferred) {  // a CPU may still reach it through its TLB until the batch's flush
      ++freed_after_flush;
      continue;
    }
    if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
      co_await pa.free_pcppages_bulk(t, n);
    ++freed;
  }
  if (unmap_batch.pending()) co_await unmap_batch.flush(t);  // try_to_unmap_flush()
  for (uint64_t i = 0; i < freed_after_flush; ++i) {
    if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
      co_await pa.free_pcppages_bulk(t, n);
  }
  freed += freed_after_flush;
  if (written_pages != 0) {
    ++sim.vm().reclaim_swap_write_waits;
    if (written_end > t.clock()) co_await do_sleep(t, written_end - t.clock());
    for (uint64_t i = 0; i < written_pages; ++i) {
      if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
        co_await pa.free_pcppages_bulk(t, n);
    }
    freed += written_pages;
  }
  co_await uncharge.uncharge(t);  // mem_cgroup_uncharge_list(&free_pages) (3.17+)
  co_return freed;
}

// Models the test of find_folios_written_back() (6.14+) for a kept frame: its write has
// completed and nothing else keeps it (not active, referenced, mapped, locked or dirty), so it
// may have missed folio_rotate_reclaimable() while reclaim held it.
bool written_back_while_isolated(Simulation& sim, const Kept& k, SimTime now) {
  const auto& [f, active] = k;
  const PageFrame& pf = sim.lruvec().frame(f);
  if (active || !pf.live() || pf.referenced || pf.io_end > now) return false;
  if (pf.pagecache) return !pf.dirty && !pf.read_locked && sim.page_cache().mapcount(f) == 0;
  const uint8_t* p = pte_of(pf);
  return pf.swapcache && p != nullptr && (*p & pte::kSwapCache);  // unmapped, in the swap cache
}

// Models putback_inactive_pages() (move_folios_to_lru()) of the frames reclaim keeps.
Co<void> putback_inactive_pages(Task& t, QSpinLock& lru_lock, const std::vector<Kept>& keep) {
  if (keep.empty()) co_return;
  Lruvec& lru = t.sim().lruvec();
  co_await lru_lock.lock_irqsave(t);
  for (const auto& [f, active] : keep) {
    if (!lru.frame(f).live()) {
      lru.release_frame(f);
      continue;
    }
    lru.putback_lru_page(f, anon_or_file(lru.frame(f), active));
  }
  t.work(t.sim().costs().lru_move_page * static_cast<int64_t>(keep.size()));
  co_await lru_lock.unlock_irqrestore(t);
}

// Models shrink_inactive_list().
Co<uint64_t> shrink_inactive_list(Task& t, bool file, ScanControl& sc) {
  Simulation& sim = t.sim();
  Lruvec& lru = sim.lruvec();
  QSpinLock& lru_lock = lru.lru_lock_of(sc.nid, sc.memcg);
  co_await lru_lock.lock_irqsave(t);
  std::vector<uint32_t> isolated =
      lru.isolate_lru_pages(inactive_of(file), SWAP_CLUSTER_MAX, sc.nid, sc.memcg);
  t.work(sim.costs().lru_move_page * static_cast<int64_t>(isolated.size()));
  co_await lru_lock.unlock_irqrestore(t);
  (sc.kswapd ? sim.vm().pgscan_kswapd : sim.vm().pgscan_direct) += isolated.size();
  sc.nr_scanned += isolated.size();
  std::vector<Kept> keep;
  const uint64_t unqueued_dirty_before = sc.nr_unqueued_dirty;
  uint64_t freed = co_await shrink_page_list(t, isolated, sc, &keep);
  // "If dirty pages are scanned that are not queued for IO, it implies that flushers are not
  // doing their job": every page isolated was such a page (shrink_inactive_list(), 4.11+).
  if (file && !isolated.empty() &&
      sc.nr_unqueued_dirty - unqueued_dirty_before == isolated.size()) {
    co_await sync_point(t);
    wakeup_flusher_threads(t, WbReason::kVmscan);
  }
  // written_back_retry=on (6.14+): the pages whose writes completed while the batch held them
  // are shrunk again, once, after the rest are put back.
  std::vector<uint32_t> retry;
  if (sim.config().written_back_retry == WrittenBackRetry::kOn) {
    std::erase_if(keep, [&](const Kept& k) {
      if (!written_back_while_isolated(sim, k, t.clock())) return false;
      retry.push_back(k.first);
      return true;
    });
  }
  co_await putback_inactive_pages(t, lru_lock, keep);
  if (!retry.empty()) {
    sim.vm().pgretry_written += retry.size();
    keep.clear();
    freed += co_await shrink_page_list(t, retry, sc, &keep);
    co_await putback_inactive_pages(t, lru_lock, keep);
  }
  (sc.kswapd ? sim.vm().pgsteal_kswapd : sim.vm().pgsteal_direct) += freed;
  co_return freed;
}

// Models get_scan_count()'s SCAN_FILE case: "if there is enough inactive page cache ... we do
// not reclaim anything from the anonymous working set right now" (3.x-4.x: the inactive file
// list not low and lru_size >> priority non-zero; 5.x-6.x cache_trim_mode, the same test).
// The model's priority is DEF_PRIORITY's first pass.
bool scan_file_only(Simulation& sim, const ScanControl& sc) {
  const uint64_t inactive_file = sim.lruvec().size(LruList::kInactiveFile, sc.nid, sc.memcg);
  return (inactive_file >> DEF_PRIORITY) != 0 && !inactive_list_is_low(sim, true, sc.nid, sc.memcg);
}

// Models shrink_node() -> shrink_lruvec() with get_scan_count() reduced to: file lists first,
// anon lists only while a swap slot is free, one SWAP_CLUSTER_MAX batch of each a round. Rounds go
// on until enough is reclaimed or each list's budget is scanned: the scans of the caller's priority
// loop (do_try_to_free_pages(), balance_pgdat(): lru_size >> priority a pass from DEF_PRIORITY
// down to 0), about twice the list, so a call that meets only referenced pages goes on past them
// as the kernel's does instead of returning with nothing. With enough inactive file
// (scan_file_only()) the anon lists wait and the file list's budget is one whole-list scan, so
// pages reclaim rotates (referenced ones) do not send it to swap while reclaimable ones lie behind
// them.
Co<uint64_t> shrink_node(Task& t, ScanControl& sc) {
  Simulation& sim = t.sim();
  const bool file_only = scan_file_only(sim, sc);
  constexpr uint64_t kUnset = ~uint64_t{0};
  const uint64_t passes = file_only ? 1 : 2;
  uint64_t left[2] = {kUnset, kUnset};  // each list's scan budget, by `file`
  for (bool scanned_any = true; scanned_any;) {
    scanned_any = false;
    for (const bool file : {true, false}) {
      if (!file && (file_only || sim.swap().nr_swap_pages() == 0)) continue;
      if (left[file] == 0) continue;
      if (inactive_list_is_low(sim, file, sc.nid, sc.memcg)) {
        co_await shrink_active_list(t, file, SWAP_CLUSTER_MAX, sc.nid, sc.memcg);
      }
      if (left[file] == kUnset)
        left[file] = passes * sim.lruvec().size(inactive_of(file), sc.nid, sc.memcg);
      if (left[file] == 0) continue;
      const uint64_t scanned_before = sc.nr_scanned;
      sc.nr_reclaimed += co_await shrink_inactive_list(t, file, sc);
      const uint64_t scanned = sc.nr_scanned - scanned_before;
      left[file] = scanned == 0 ? 0 : left[file] - std::min(left[file], scanned);
      scanned_any = scanned_any || scanned != 0;
      if (sc.nr_reclaimed >= sc.nr_to_reclaim) co_return sc.nr_reclaimed;
    }
  }
  co_return sc.nr_reclaimed;
}

// Models shrink_zones() (3.x do_try_to_free_pages(): the zonelist's zones in turn, the local
// node's first): shrink_node() on each node from `first_nid` until enough is reclaimed. One node:
// shrink_node() alone.
Co<uint64_t> shrink_zones(Task& t, ScanControl& sc, uint32_t first_nid) {
  const uint32_t nr_nodes = t.sim().lruvec().nr_nodes();
  for (uint32_t i = 0; i < nr_nodes; ++i) {
    sc.nid = (first_nid + i) % nr_nodes;
    co_await shrink_node(t, sc);
    if (sc.nr_reclaimed >= sc.nr_to_reclaim) break;
  }
  co_return sc.nr_reclaimed;
}

bool pgdat_balanced(const Simulation& sim) {
  const Zone& z = sim.page_alloc().zone();
  return z.free_pages > z.wmark_high;
}

bool kswapd_gave_up(Simulation& sim) {
  return sim.lruvec().kswapd_failures >= MAX_RECLAIM_RETRIES;
}

// Models prepare_kswapd_sleep(): balanced (or given up), and, under reclaim=predictive, no
// shortage in sight (seed 003 patch 2: the sample taken here can keep kswapd reclaiming).
bool prepare_kswapd_sleep(Simulation& sim, SimTime now) {
  if (kswapd_gave_up(sim)) return true;
  if (sim.config().reclaim == ReclaimMode::kPredictive) {
    sim.kswapd_data().trend.add_sample(now, sim.page_alloc().zone().free_pages);
    if (kswapd_predicts_shortage(sim, now)) return false;
  }
  return pgdat_balanced(sim);
}

// Models balance_pgdat(): reclaim until the zone is above its high watermark (and, under
// reclaim=predictive, while the trend predicts a shortage). Pages queued for writeback count as
// progress for kswapd_failures: they become reclaimable when the write completes.
Co<void> balance_pgdat(Task& t) {
  Simulation& sim = t.sim();
  Lruvec& lru = sim.lruvec();
  KswapdData& kd = sim.kswapd_data();
  // set_reclaim_active(): while kswapd reclaims, the pcp lists keep few pages (5.14+,
  // pcp_high.h), so that what it frees reaches the buddy lists.
  Zone& zone = sim.page_alloc().zone();
  zone.flags.reclaim_active = true;
  while (!kswapd_gave_up(sim) && !prepare_kswapd_sleep(sim, t.clock())) {
    ScanControl sc;
    sc.kswapd = true;
    const SimTime start = t.clock();
    const uint64_t n = co_await shrink_zones(t, sc, kd.next_nid);
    kd.next_nid = (kd.next_nid + 1) % lru.nr_nodes();  // the next round starts one node on
    kd.rate.record(n, t.clock() - start);
    lru.kswapd_failures = n == 0 && sc.nr_writeback == 0 ? lru.kswapd_failures + 1 : 0;
    if (n == 0 && sc.nr_writeback != 0) {  // all under writeback: wait for some to complete
      co_await do_sleep(t, sim.costs().writeback_page * static_cast<int64_t>(SWAP_CLUSTER_MAX));
    }
    co_await sync_point(t);  // cond_resched()
    check_page_conservation(sim);
  }
  zone.flags.reclaim_active = false;  // clear_reclaim_active()
}

// The first half of kswapd_try_to_sleep(): the HZ/10 nap when kswapd may sleep.
class KswapdNap final : public SharedStep {
 public:
  explicit KswapdNap(Task& t) : SharedStep(t) {}
  bool run_now() override {
    Simulation& sim = task_.sim();
    KswapdData& kd = sim.kswapd_data();
    kd.nap_timed_out = false;
    if (!prepare_kswapd_sleep(sim, task_.clock())) return true;
    kd.napping = true;
    kd.waiting = true;
    sim.events().schedule(task_.clock() + SimTime::ns(KSWAPD_NAP_NS), &kd, ++kd.nap_seq);
    sim.sched().sleep(task_);
    return false;
  }
};

// The second half: after a nap that timed out with the node still balanced, sleep until woken.
class KswapdFullSleep final : public SharedStep {
 public:
  explicit KswapdFullSleep(Task& t) : SharedStep(t) {}
  bool run_now() override {
    Simulation& sim = task_.sim();
    if (!prepare_kswapd_sleep(sim, task_.clock())) return true;
    ++sim.vm().kswapd_high_wmark_hit_quickly;
    sim.kswapd_data().waiting = true;
    sim.sched().sleep(task_);
    return false;
  }
};

// Models kswapd_try_to_sleep().
Co<void> kswapd_try_to_sleep(Task& t) {
  co_await KswapdNap(t);
  if (t.sim().kswapd_data().nap_timed_out) co_await KswapdFullSleep(t);
}

// Models kswapd(): the thread's main loop.
Co<void> kswapd(Task& t) {
  for (;;) {
    trace_task_begin(t.sim().trace(), t.id(), "balance_pgdat", TraceCat::kReclaim, t.clock());
    co_await balance_pgdat(t);
    trace_task_end(t.sim().trace(), t.id(), "balance_pgdat", TraceCat::kReclaim, t.clock());
    co_await kswapd_try_to_sleep(t);
  }
}

}  // namespace

Co<uint64_t> try_to_free_pages(Task& t, bool* throttled) {
  Simulation& sim = t.sim();
  ++sim.vm().allocstall;
  ScanControl sc;
  const uint64_t n = co_await shrink_zones(t, sc, numa_node_id(t));
  if (n != 0) sim.lruvec().kswapd_failures = 0;  // kswapd may help again
  if (n == 0 && sc.nr_writeback != 0) {
    // Models reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK): wait for a cluster's writeback.
    ++sim.vm().reclaim_throttled;
    co_await do_sleep(t, sim.costs().writeback_page * static_cast<int64_t>(SWAP_CLUSTER_MAX));
  }
  if (throttled != nullptr) *throttled = sc.nr_writeback != 0;
  check_page_conservation(sim);
  co_return n;
}

Co<uint64_t> try_to_free_mem_cgroup_pages(Task& t, uint32_t memcg, uint64_t nr_pages) {
  ScanControl sc;
  sc.memcg = memcg;
  sc.nr_to_reclaim = std::max<uint64_t>(nr_pages, SWAP_CLUSTER_MAX);
  co_return co_await shrink_zones(t, sc, numa_node_id(t));
}

Co<uint64_t> reclaim_pages(Task& t, const std::vector<uint32_t>& isolated) {
  Simulation& sim = t.sim();
  Lruvec& lru = sim.lruvec();
  ScanControl sc;
  sc.nr_to_reclaim = isolated.size();
  sc.ignore_references = true;
  std::vector<Kept> keep;
  const uint64_t freed = co_await shrink_page_list(t, isolated, sc, &keep);
  // putback_lru_page() of the rest, under each lruvec's lock in turn.
  QSpinLock* locked = nullptr;
  int64_t moved = 0;
  for (const auto& [f, active] : keep) {
    if (const PageFrame& pf = lru.frame(f); &lru.lru_lock_of(pf.nid, pf.memcg) != locked)
      co_await lru.relock_lruvec(t, pf.nid, pf.memcg, locked, moved);
    ++moved;
    if (!lru.frame(f).live()) {  // zapped while isolated
      lru.release_frame(f);
      continue;
    }
    lru.putback_lru_page(f, anon_or_file(lru.frame(f), active));
  }
  if (locked != nullptr) {
    t.work(sim.costs().lru_move_page * moved);
    co_await locked->unlock_irqrestore(t);
  }
  check_page_conservation(sim);
  co_return freed + sc.nr_unmapped_kept;
}

void KswapdData::fire(uint64_t arg) {
  if (arg != nap_seq || !napping) return;  // a nap cut short by a wakeup
  napping = false;
  waiting = false;
  nap_timed_out = true;
  Task* k = sim_.kswapd();
  if (k != nullptr && k->state() == TaskState::kSleeping)
    sim_.sched().wake_up_process(*k, sim_.now());
}

bool wakeup_kswapd(Task& t) {
  Simulation& sim = t.sim();
  if (sim.lruvec().kswapd_failures >= MAX_RECLAIM_RETRIES) return false;
  Task* k = sim.kswapd();
  if (k == nullptr) {
    k = &sim.create_task(sim.nr_cpus() - 1, nullptr);
    k->kthread = true;
    sim.set_kswapd(k);
    k->start(kswapd(*k), t.clock());
    ++sim.vm().kswapd_wakeups;
    return true;
  }
  KswapdData& kd = sim.kswapd_data();
  if (!kd.waiting) return false;  // running, runnable, in an I/O wait or already woken
  assert(k->state() == TaskState::kSleeping);
  kd.waiting = false;
  if (kd.napping) {
    kd.napping = false;  // the nap's timer will find it cut short
    ++sim.vm().kswapd_low_wmark_hit_quickly;
  }
  sim.sched().try_to_wake_up(t, *k);
  ++sim.vm().kswapd_wakeups;
  return true;
}

}  // namespace mmreplay::kernelsim
