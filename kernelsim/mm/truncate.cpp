#include "kernelsim/mm/truncate.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/constants.h"
#include "kernelsim/fs/buffer.h"
#include "kernelsim/fs/file.h"
#include "kernelsim/kernel/thread.h"
#include "kernelsim/locking/qspinlock.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/mm/rmap_file.h"
#include "kernelsim/sim/op.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models folio_batch_release() -> release_pages() of one batch of truncated pages: their LRU
// removal under each lruvec's lru_lock in turn (lru_move_page a page on a list), then their frees.
Co<void> release_truncated_batch(Task& t, const std::vector<Lruvec::RemovedPage>& removed) {
  Simulation& sim = t.sim();
  Lruvec& lru = sim.lruvec();
  QSpinLock* locked = nullptr;
  int64_t moved = 0;  // lruvec_del_folio() each
  for (const Lruvec::RemovedPage& r : removed) {
    if (!r.on_lru) continue;  // a batch or reclaim held it: no lru_lock for it here
    if (&lru.lru_lock_of(r.nid, r.memcg) != locked)
      co_await lru.relock_lruvec(t, r.nid, r.memcg, locked, moved);
    ++moved;
  }
  if (locked != nullptr) {
    t.work(sim.costs().lru_move_page * moved);
    co_await locked->unlock_irqrestore(t);
  }
  PageAllocator& pa = sim.page_alloc();
  MemcgUnchargeList uncharge;  // folio_batch_release() -> mem_cgroup_uncharge_folios()
  for (const Lruvec::RemovedPage& r : removed) {
    uncharge.add(r.memcg);
    if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
      co_await pa.free_pcppages_bulk(t, n);
  }
  co_await uncharge.uncharge(t);
}

// The pages of a file cached at the start, from page `from` on, that the model never gave a
// frame and that the truncation drops as well: as the recording counted them (less those the
// model dropped itself), or else every such page below the file's size.
uint64_t cached_at_start_pages_dropped(const Simulation& sim, uint32_t file, uint64_t from,
                                       uint64_t recorded_pages, uint64_t dropped_with_frames) {
  if (recorded_pages != kPagesDroppedUnknown) {
    return recorded_pages > dropped_with_frames ? recorded_pages - dropped_with_frames : 0;
  }
  const PageCache& pc = sim.page_cache();
  const uint64_t size_pages = (sim.files().get(file).size_bytes + PAGE_SIZE - 1) / PAGE_SIZE;
  const uint64_t end = std::min(size_pages, pc.cached_at_start_limit(file));
  uint64_t n = 0;
  for (uint64_t index = from; index < end; ++index) {
    if (!pc.was_ever_cached(file, index)) ++n;
  }
  return n;
}

}  // namespace

// Models fs/open.c: do_truncate() -> truncate_pagecache() -> truncate_inode_pages_range()
Co<int64_t> do_truncate(Task& t, uint32_t file, uint64_t new_size, uint64_t recorded_pages) {
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  co_await sync_point(t);
  t.work(c.syscall_entry);
  if (!sim.files().uses_page_cache(file)) co_return 0;
  sim.files().truncated_to(file, new_size);  // truncate_setsize()
  PageCache& pc = sim.page_cache();
  VmCounters& vm = sim.vm();
  // The first whole page past the new size: a partial last page stays (its tail is zeroed).
  const uint64_t from = (new_size + PAGE_SIZE - 1) / PAGE_SIZE;
  const std::vector<uint64_t> indices = pc.file_pages_from(file, from);
  bool all_dropped = true;  // none left to a read in flight
  uint64_t dropped = 0;
  uint64_t on_disk = 0;  // dropped pages whose blocks the filesystem frees
  std::vector<std::pair<Mm*, uint64_t>> unmapped;
  std::vector<Lruvec::RemovedPage> removed;
  for (size_t first = 0; first < indices.size(); first += PAGEVEC_SIZE_FOLIO_BATCH) {
    t.work(c.find_get_page);  // find_lock_entries(): one walk of the mapping per batch
    const size_t end = std::min(indices.size(), first + PAGEVEC_SIZE_FOLIO_BATCH);
    for (size_t i = first; i < end; ++i) {
      co_await sync_point(t);  // the page: reclaim, readers and writers share it
      uint32_t f = pc.find_get_page(file, indices[i]);
      if (f == kNoFrame) continue;              // reclaimed meanwhile
      if (sim.lruvec().frame(f).read_locked) {  // its read is in flight: left to it
        all_dropped = false;
        continue;
      }
      if (const SimTime io_end = sim.lruvec().frame(f).io_end; io_end > t.clock()) {
        co_await do_sleep(t, io_end - t.clock());  // folio_wait_writeback()
        co_await sync_point(t);
        f = pc.find_get_page(file, indices[i]);
        if (f == kNoFrame) continue;
      }
      // truncate_pagecache()'s unmap_mapping_range(): the ptes that map it go first.
      if (pc.mapcount(f) != 0) try_to_unmap_file(sim, f, &unmapped);
      if (sim.lruvec().frame(f).dirty) {
        pc.cancel_dirty_page(f);
        ++vm.truncate_dirty_cancelled;
      } else {
        ++on_disk;  // read from the disk, written back, or cached from before the run
      }
      block_invalidate_page(sim.buffers(), file, indices[i]);
      pc.remove(file, indices[i]);
      removed.push_back(sim.lruvec().delete_from_page_cache(f));
      t.work(c.truncate_page);
      ++dropped;
    }
    for (const auto& [mm, addr] : unmapped)
      co_await flush_tlb_mm_range(t, FlushTlbInfo{mm, addr, addr + PAGE_SIZE, false});
    unmapped.clear();
    co_await release_truncated_batch(t, removed);
    removed.clear();
  }
  if (all_dropped) pc.truncated_from(file, from);
  vm.pgcache_truncated += dropped;
  if (sim.files().get(file).cached_at_start) {
    const uint64_t unframed =
        cached_at_start_pages_dropped(sim, file, from, recorded_pages, dropped);
    pc.drop_cached_at_start_from(file, from);
    // Pages the model's memory never held: their time only (no lock, no free in the model).
    t.work((c.truncate_page + c.lru_move_page + c.pcp_free) * static_cast<int64_t>(unframed));
    vm.pgcache_truncated += unframed;
    on_disk += unframed;
  }
  if (on_disk != 0) {
    // ext4_truncate() / ext4_evict_inode(): the blocks go back to the filesystem, which waits
    // for its journal and (mounted with discard) the device's discards.
    co_await do_sleep(t, c.truncate_blocks_call + c.truncate_block * static_cast<int64_t>(on_disk));
  }
  co_return 0;
}

}  // namespace mmreplay::kernelsim
