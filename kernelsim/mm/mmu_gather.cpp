#include "kernelsim/mm/mmu_gather.h"

#include <algorithm>
#include <cassert>
#include <utility>
#include <vector>

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/locking/qspinlock.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

namespace {

// Models free_pages_and_swap_cache() -> release_pages() -> free_unref_page_list().
Co<void> free_gathered(Task& t, uint64_t pages, PageUse use) {
  PageAllocator& pa = t.sim().page_alloc();
  for (uint64_t i = 0; i < pages; ++i) {
    if (const uint32_t n = pa.free_page_fast(t, use)) co_await pa.free_pcppages_bulk(t, n);
  }
}

// The next gathered pages, in the order the gather queued them.
struct RunCursor {
  const std::vector<GatheredLruRun>& runs;
  size_t run = 0;
  uint64_t used = 0;  // pages of runs[run] already released

  const GatheredLruRun& next_page() {
    while (used == runs[run].pages) {
      ++run;
      used = 0;
      assert(run < runs.size() && "invariant (3): more pages freed than gathered");
    }
    ++used;
    return runs[run];
  }
};

// Models the LRU part of one release_pages() call on n gathered pages (mm/swap.c): a page that
// is PageLRU is taken off its list under its lruvec's lru_lock (3.16: zone->lru_lock), taken at
// the first such page and re-taken when the lruvec changes (spin_lock_irqsave()); from 3.17
// (aabfb57296e3, seed 001's fix) the lock is also dropped once it has been held over
// SWAP_CLUSTER_MAX pages (`lock_batch`), as the call now gets a whole gather batch.
Co<void> release_pages_lru(Task& t, RunCursor& cursor, uint64_t n, bool lock_batch_limit) {
  Simulation& sim = t.sim();
  const SimTime per_page = sim.costs().lru_move_page;  // del_page_from_lru_list()
  QSpinLock* locked = nullptr;
  int64_t removed = 0;  // pages taken off the lists under `locked`, charged at its unlock
  uint32_t lock_batch = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const GatheredLruRun& page = cursor.next_page();
    if (locked != nullptr && lock_batch_limit && ++lock_batch == SWAP_CLUSTER_MAX) {
      t.work(per_page * std::exchange(removed, 0));
      co_await locked->unlock_irqrestore(t);
      locked = nullptr;
    }
    if (!page.on_lru) continue;
    QSpinLock& lock = sim.lruvec().lru_lock_of(page.nid, page.memcg);
    if (&lock != locked) {
      if (locked != nullptr) {
        t.work(per_page * std::exchange(removed, 0));
        co_await locked->unlock_irqrestore(t);
      }
      locked = &lock;
      lock_batch = 0;
      co_await locked->lock_irqsave(t);
    }
    ++removed;
  }
  if (locked != nullptr) {
    t.work(per_page * removed);
    co_await locked->unlock_irqrestore(t);
  }
}

// Models free_pages_and_swap_cache()'s calls to release_pages() for one gather batch of n pages
// (policy release_pages): <= 3.17-rc2 one call per PAGEVEC_SIZE pages ("release_pages(pagep,
// todo, 0)" in a loop of min(nr, PAGEVEC_SIZE)), 3.17+ one call for the whole batch.
Co<void> release_gathered_lru(Task& t, RunCursor& cursor, uint64_t n) {
  Simulation& sim = t.sim();
  const ReleasePagesLock mode = sim.config().release_pages;
  if (mode == ReleasePagesLock::kOff) {
    for (uint64_t i = 0; i < n; ++i) cursor.next_page();
    co_return;
  }
  const uint64_t chunk = mode == ReleasePagesLock::kPagevec ? sim.config().pagevec_size : n;
  for (uint64_t done = 0; done < n; done += chunk) {
    co_await release_pages_lru(t, cursor, std::min(chunk, n - done),
                               mode == ReleasePagesLock::kCluster);
  }
}

// Models tlb_flush_mmu_free(): the gathered user pages go batch by batch (struct
// mmu_gather_batch: the on-stack local batch of MMU_GATHER_BUNDLE pages, then batches of
// MAX_GATHER_BATCH) to free_pages_and_swap_cache(), each batch taken off the LRU
// (release_pages()) and uncharged from its memcg (mem_cgroup_uncharge_gathered(): per batch or
// per pagevec, seed 001).
Co<void> free_gathered_user_pages(Task& t, Mm& mm, uint64_t pages,
                                  const std::vector<GatheredLruRun>& runs) {
  RunCursor cursor{runs};
  uint64_t batch = MMU_GATHER_BUNDLE;
  while (pages != 0) {
    const uint64_t n = std::min(pages, batch);
    co_await release_gathered_lru(t, cursor, n);
    co_await mem_cgroup_uncharge_gathered(t, mm, n);
    co_await free_gathered(t, n, PageUse::kUser);
    pages -= n;
    batch = MAX_GATHER_BATCH;
  }
}

}  // namespace

Co<void> tlb_flush_mmu(Task& t, MmuGather& tlb) {
  if (tlb.need_flush()) {
    FlushTlbInfo info{&tlb.mm(), tlb.start(), tlb.end(), tlb.freed_tables()};
    if (tlb.fullmm()) {  // flush_tlb_mm(): TLB_FLUSH_ALL
      info.start = 0;
      info.end = TASK_SIZE;
    } else {
      info.stride_shift = tlb.stride_shift();
    }
    co_await flush_tlb_mm_range(t, info);
    tlb.reset_range();
  }
  uint64_t pages = 0;
  uint64_t tables = 0;
  std::vector<GatheredLruRun> runs;
  tlb.take_queued(&pages, &tables, &runs);
  if (pages != 0) co_await free_gathered_user_pages(t, tlb.mm(), pages, runs);
  if (tables != 0) co_await free_gathered(t, tables, PageUse::kPageTable);
}

Co<void> tlb_finish_mmu(Task& t, MmuGather& tlb) {
  co_await tlb_flush_mmu(t, tlb);
}

}  // namespace mmreplay::kernelsim
