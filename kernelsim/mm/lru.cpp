#include "kernelsim/mm/lru.h"

#include <algorithm>
#include <cassert>

#include "kernelsim/fs/bh_invalidate.h"
#include "kernelsim/locking/lock_classes.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

Lruvec::Node::Node(Simulation& sim) : lru_lock(sim, kPgdatLruLockClass), lists(1) {}

Lruvec::Lruvec(Simulation& sim, uint32_t nr_cpus, uint32_t nr_nodes)
    : sim_(sim), write_ends_(sim.events(), write_end_), cpu_(nr_cpus) {
  assert(nr_nodes >= 1 && nr_nodes <= UINT16_MAX);
  for (uint32_t nid = 0; nid < nr_nodes; ++nid) nodes_.push_back(std::make_unique<Node>(sim));
}

namespace {

// A memcg's first page on this node: its lruvec's lists. Out of line, so that list_of() stays
// small enough to inline into link() and unlink().
template <class Lists>
[[gnu::noinline]] void grow_lists(std::vector<Lists>& lists, uint32_t memcg) {
  lists.resize(memcg + 1);
}

}  // namespace

Lruvec::List& Lruvec::list_of(uint32_t nid, uint32_t memcg, LruList list) {
  std::vector<Lists>& lists = nodes_[nid]->lists;
  if (memcg >= lists.size()) [[unlikely]]
    grow_lists(lists, memcg);
  return lists[memcg][static_cast<int>(list)];
}

uint64_t Lruvec::size(LruList list) const {
  uint64_t n = 0;
  for (const auto& node : nodes_) n += node->size[static_cast<int>(list)];
  return n;
}

uint64_t Lruvec::size(LruList list, uint32_t nid, uint32_t memcg) const {
  const Node& node = *nodes_[nid];
  if (memcg == kAnyMemcg) return node.size[static_cast<int>(list)];
  return memcg < node.lists.size() ? node.lists[memcg][static_cast<int>(list)].size : 0;
}

// Models mem_cgroup_page_lruvec() + the lock it implies: lruvec->lru_lock (5.11+,
// 6168d0da2b47) or pgdat->lru_lock, of the page's node (3.16: page_zone(page)->lru_lock).
QSpinLock& Lruvec::lru_lock_of(uint32_t nid, uint32_t memcg) {
  Node& node = *nodes_[nid];
  if (memcg == kAnyMemcg || memcg == 0 || sim_.config().lru_lock != LruLockScope::kLruvec)
    return node.lru_lock;
  if (memcg >= node.lruvec_locks.size()) node.lruvec_locks.resize(memcg + 1);
  if (!node.lruvec_locks[memcg]) {
    node.lruvec_locks[memcg] = std::make_unique<QSpinLock>(sim_, kLruvecLruLockClass);
  }
  return *node.lruvec_locks[memcg];
}

uint32_t Lruvec::new_frame() {
  uint32_t f = 0;
  if (!free_frames_.empty()) {
    f = free_frames_.back();
    free_frames_.pop_back();
    // Host-side only: the frames of a later allocation, freed by a zap or reclaim long ago, are
    // rarely in the host cache (a 3 GiB machine has 44 MB of them). Loading the one
    // kFreeFramePrefetch allocations ahead overlaps its miss with the faults before it; a frame
    // may straddle two lines, so both are fetched.
    if (free_frames_.size() >= kFreeFramePrefetch) {
      const PageFrame& next = frames_[free_frames_[free_frames_.size() - kFreeFramePrefetch]];
      __builtin_prefetch(&next, 1);
      __builtin_prefetch(reinterpret_cast<const char*>(&next) + sizeof(PageFrame) - 1, 1);
    }
  } else {
    f = frames_.emplace_back();
  }
  assert(frames_[f].where == FrameWhere::kFree && "invariant (1)");
  return f;
}

uint64_t Lruvec::nr_lru_pages() const {
  uint64_t n = 0;
  for (const auto& node : nodes_) {
    for (const Lists& group : node->lists) {
      for (const List& l : group) n += l.size;
    }
  }
  return n;
}

uint32_t Lruvec::page_add_file_frame(uint32_t file, uint64_t index, uint32_t nid, uint32_t memcg) {
  assert(nid < nodes_.size());
  const uint32_t f = new_frame();
  PageFrame& pf = frames_[f];
  pf.nid = static_cast<uint16_t>(nid);
  pf.mm = nullptr;
  pf.addr = index;
  pf.swapbacked = false;
  pf.pagecache = true;
  pf.memcg = memcg;  // reclaim and truncation uncharge it from this group
  pf.dirty = false;
  pf.file = file;
  pf.dirty_token = 0;
  pf.io_end = SimTime::zero();
  pf.read_locked = false;
  return f;
}

uint32_t Lruvec::page_add_new_anon_rmap(Mm& mm, uint64_t addr, uint32_t nid) {
  assert(nid < nodes_.size());
  const uint32_t f = new_frame();
  PageFrame& pf = frames_[f];
  pf.nid = static_cast<uint16_t>(nid);
  pf.mm = &mm;
  pf.addr = addr;
  pf.swapbacked = true;
  pf.dirty = false;
  pf.io_end = SimTime::zero();  // no swap write in flight (vmscan.cpp's PageWriteback())
  pf.memcg = mm.memcg_id;
  sim_.cma().place_anon(f);  // where the page sits physically (mm/cma.h)
  pf.pagecache = false;
  const bool inserted = mm.anon_pages.insert(addr, f);
  assert(inserted && "invariant (3): two own pages at one address");
  (void)inserted;
  return f;
}

uint32_t Lruvec::find(const Mm& mm, uint64_t addr) const {
  return mm.anon_pages.find(addr);
}

void Lruvec::try_to_free_swap(uint32_t f) {
  PageFrame& pf = frames_[f];
  if (!pf.swapcache) return;
  pf.swapcache = false;
  pf.dirty = true;
  sim_.swap().free_swap_cache();
}

void Lruvec::free_frame(uint32_t f) {
  PageFrame& pf = frames_[f];
  sim_.cma().anon_freed(f);
  try_to_free_swap(f);  // free_pages_and_swap_cache() -> free_swap_cache()
  pf.mm = nullptr;
  pf.pagecache = false;
  pf.referenced = false;  // the next page in this frame starts without PG_referenced
  pf.reclaim = false;
  pf.active_on_add = false;
  pf.where = FrameWhere::kFree;
  ++pf.gen;
  free_frames_.push_back(f);
}

void Lruvec::release_frame(uint32_t f) {
  PageFrame& pf = frames_[f];
  assert(pf.where == FrameWhere::kIsolated && "release by a holder that does not hold it");
  if (pf.mm != nullptr) pf.mm->anon_pages.erase(pf.addr);
  if (pf.live()) {  // its page is about to be freed by the holder
    --held_;
    ++unframed_;
  }
  free_frame(f);
}

Lruvec::RemovedPage Lruvec::delete_from_page_cache(uint32_t f) {
  PageFrame& pf = frames_[f];
  assert(pf.pagecache && "a frame that is not a page-cache page");
  if (pf.where == FrameWhere::kLru) {
    const RemovedPage removed{true, pf.nid, pf.memcg};
    unlink(f);  // isolated, held: released as page_remove_rmap() releases an own page
    --held_;
    ++unframed_;
    free_frame(f);
    return removed;
  }
  --held_;  // the batch or reclaim holding it frees the frame (drain_lru_add(), release_frame())
  ++unframed_;
  pf.pagecache = false;
  return RemovedPage{false, pf.nid, pf.memcg};  // the caller uncharges the page it frees
}

Lruvec::RemovedPage Lruvec::page_remove_rmap(Mm& mm, uint64_t addr) {
  const uint32_t f = mm.anon_pages.erase(addr);
  assert(f != kNoFrame && "invariant (3): an own page without a frame");
  PageFrame& pf = frames_[f];
  ++unframed_;  // the caller frees the page (mmu_gather)
  --held_;
  if (pf.where == FrameWhere::kLru) {
    const RemovedPage removed{true, pf.nid, pf.memcg};
    unlink(f);
    free_frame(f);
    return removed;
  }
  pf.mm = nullptr;  // the batch or reclaim holding it lets go later
  // Its swap slot goes now: free_pages_and_swap_cache() -> free_swap_cache() drops the swap cache
  // of every page the gather frees, whoever else still holds a reference to it.
  try_to_free_swap(f);
  return RemovedPage{};
}

void Lruvec::page_move_anon_rmap(Mm& mm, uint64_t old_addr, uint64_t new_addr) {
  const uint32_t f = mm.anon_pages.erase(old_addr);
  if (f == kNoFrame) return;
  frames_[f].addr = new_addr;
  const bool inserted = mm.anon_pages.insert(new_addr, f);
  assert(inserted && "invariant (3): mremap onto an own page");
  (void)inserted;
}

void Lruvec::page_hand_over_anon_rmap(Mm& from, Mm& to, uint64_t addr) {
  const uint32_t f = from.anon_pages.erase(addr);
  assert(f != kNoFrame && "invariant (3): an own page without a frame");
  frames_[f].mm = &to;
  const bool inserted = to.anon_pages.insert(addr, f);
  assert(inserted && "invariant (3): hand-over onto an own page");
  (void)inserted;
}

void Lruvec::link(uint32_t f, LruList list) {
  PageFrame& pf = frames_[f];
  List& l = list_of(pf.nid, pf.memcg, list);
  ++nodes_[pf.nid]->size[static_cast<int>(list)];
  pf.where = FrameWhere::kLru;
  pf.lru = list;
  pf.lru_pos = l.base + l.slots.size();
  l.slots.push_back(f);
  ++l.size;
}

// Inlined into unlink() and isolate_lru_pages(), both hot.
inline void Lruvec::unlink_slot(List& l, uint32_t nid, LruList list, uint32_t& slot,
                                PageFrame& pf) {
  [[maybe_unused]] const uint32_t f = slot;
  assert(&pf == &frames_[f] && pf.where == FrameWhere::kLru && pf.nid == nid && pf.lru == list &&
         "invariant (1): the frame is not where its list says");
  assert(pf.lru_pos == l.base + static_cast<uint64_t>(&slot - l.slots.data()));
  --nodes_[nid]->size[static_cast<int>(list)];
  slot = kNoFrame;
  assert(l.size > 0 && "invariant (2)");
  --l.size;
  pf.where = FrameWhere::kIsolated;
  ++held_;
  if (const size_t holes = l.slots.size() - l.size;
      l.size == 0 || (holes >= kCompactMinHoles && holes >= l.size))
    compact(l);
}

void Lruvec::unlink(uint32_t f) {
  PageFrame& pf = frames_[f];
  assert(pf.where == FrameWhere::kLru && "invariant (1)");
  List& l = list_of(pf.nid, pf.memcg, pf.lru);
  assert(pf.lru_pos >= l.base && pf.lru_pos - l.base < l.slots.size());
  unlink_slot(l, pf.nid, pf.lru, l.slots[pf.lru_pos - l.base], pf);
}

void Lruvec::link_tail(uint32_t f, LruList list) {
  PageFrame& pf = frames_[f];
  List& l = list_of(pf.nid, pf.memcg, list);
  tail_of(l);  // skip the holes at the old end: the slot before the oldest frame is free
  if (l.oldest == 0) {
    // No hole before it: open a quarter of the list's slots there (kCompactMinHoles at least),
    // so that rotations in a row cost one move of the array between them. Positions stay as
    // they were when base can go down by as much; otherwise the frames are renumbered.
    const size_t room = std::max<size_t>(kCompactMinHoles, l.slots.size() / 4);
    l.slots.insert(l.slots.begin(), room, kNoFrame);
    l.oldest = room;
    if (l.base >= room) {
      l.base -= room;
    } else {
      for (size_t i = room; i < l.slots.size(); ++i) {
        if (const uint32_t g = l.slots[i]; g != kNoFrame) frames_[g].lru_pos = l.base + i;
      }
    }
  }
  ++nodes_[pf.nid]->size[static_cast<int>(list)];
  pf.where = FrameWhere::kLru;
  pf.lru = list;
  --l.oldest;
  l.slots[l.oldest] = f;
  pf.lru_pos = l.base + l.oldest;
  ++l.size;
}

uint32_t Lruvec::tail_of(List& l) {
  while (l.oldest < l.slots.size() && l.slots[l.oldest] == kNoFrame) ++l.oldest;
  return l.oldest < l.slots.size() ? l.slots[l.oldest] : kNoFrame;
}

// REQUIRES: the list is empty, or its holes number kCompactMinHoles and at least its frames.
void Lruvec::compact(List& l) {
  if (l.size == 0) {  // positions go on from where they were: no frame needs renumbering
    l.base += l.slots.size();
    l.slots.clear();
    l.oldest = 0;
    return;
  }
  const size_t holes = l.slots.size() - l.size;
  tail_of(l);                   // count the holes at the old end
  if (2 * l.oldest >= holes) {  // mostly taken from the old end (reclaim): drop those only
    l.slots.erase(l.slots.begin(), l.slots.begin() + static_cast<std::ptrdiff_t>(l.oldest));
    l.base += l.oldest;
    l.oldest = 0;
    return;
  }
  // Mostly holes in the middle (zaps, lazyfree moves): close them up, renumbering the frames.
  size_t kept = 0;
  for (size_t i = l.oldest; i < l.slots.size(); ++i) {
    const uint32_t f = l.slots[i];
    if (f == kNoFrame) continue;
    l.slots[kept] = f;
    frames_[f].lru_pos = l.base + kept;
    ++kept;
  }
  l.slots.resize(kept);
  l.oldest = 0;
}

std::vector<uint32_t> Lruvec::isolate_lru_pages(LruList list, uint32_t n, uint32_t nid,
                                                uint32_t memcg) {
  assert(lru_lock_of(nid, memcg).holder() != nullptr);
  std::vector<uint32_t> out;
  out.reserve(n);
  const auto take_from = [&](uint32_t g) {
    List& l = list_of(nid, g, list);
    // The frames of a long list are out of the host's caches, and the caller reads each one it
    // is given: load all the frames this call will take at once, so that their misses overlap
    // (Lruvec::unlink, which read each frame's node, memcg and list first thing, prefetching 8
    // ahead, was 9-11% of seed 000's replay, nearly all of it that first load).
    size_t wanted = n - out.size();
    for (size_t i = l.oldest; i < l.slots.size() && wanted > 0; ++i) {
      if (const uint32_t a = l.slots[i]; a != kNoFrame) {
        __builtin_prefetch(&frames_[a]);
        --wanted;
      }
    }
    // The list, node and kind are known here: unlink_slot() reads nothing from the frame (in a
    // release build), only marks it isolated (&frames_[f] is an address, not a load).
    for (uint32_t f = tail_of(l); out.size() < n && f != kNoFrame; f = tail_of(l)) {
      unlink_slot(l, nid, list, l.slots[l.oldest], frames_[f]);
      out.push_back(f);
    }
  };
  if (memcg != kAnyMemcg) {
    take_from(memcg);
    return out;
  }
  Node& node = *nodes_[nid];
  const uint32_t nr = static_cast<uint32_t>(node.lists.size());  // mem_cgroup_iter(): in turn
  for (uint32_t i = 0; i < nr && out.size() < n; ++i) take_from((node.scan_cursor + i) % nr);
  node.scan_cursor = (node.scan_cursor + 1) % nr;
  return out;
}

void Lruvec::putback_lru_page(uint32_t f, LruList list) {
  assert(lru_lock_of(frames_[f].nid, frames_[f].memcg).holder() != nullptr ||
         node_lru_lock(frames_[f].nid).holder() != nullptr);
  assert(frames_[f].where == FrameWhere::kIsolated && frames_[f].live());
  --held_;
  link(f, list);
}

Co<void> Lruvec::relock_lruvec(Task& t, uint32_t nid, uint32_t memcg, QSpinLock*& locked,
                               int64_t& moved) {
  if (locked != nullptr) {
    t.work(sim_.costs().lru_move_page * std::exchange(moved, 0));
    co_await locked->unlock_irqrestore(t);
  }
  locked = &lru_lock_of(nid, memcg);
  co_await locked->lock_irqsave(t);
}

// Models mm/swap.c: __pagevec_lru_add() -> pagevec_lru_move_fn(__pagevec_lru_add_fn).
Co<void> Lruvec::drain_lru_add(Task& t, std::vector<uint32_t> batch) {
  // Page-cache pages start inactive (add_to_page_cache_lru(): use-once until referenced again);
  // new and swapped-in anon pages active before 5.9 (lru_cache_add_active_or_unevictable()),
  // inactive since (b518154e59aa: lru_cache_add_inactive_or_unevictable()).
  const LruList new_anon = sim_.config().anon_lru == AnonLruMode::kInactiveFirst
                               ? LruList::kInactiveAnon
                               : LruList::kActiveAnon;
  QSpinLock* locked = nullptr;
  int64_t moved = 0;
  for (uint32_t f : batch) {
    assert(frames_[f].where == FrameWhere::kPagevec && "invariant (1)");
    if (const PageFrame& pf = frames_[f]; &lru_lock_of(pf.nid, pf.memcg) != locked) {
      // The batch reached another lruvec (another memcg's or another node's).
      co_await relock_lruvec(t, pf.nid, pf.memcg, locked, moved);
    }
    // Read after the lock: other tasks may change the frame while this one waits for it.
    PageFrame& pf = frames_[f];
    ++moved;
    if (!pf.live()) {
      free_frame(f);  // zapped while in the batch: the batch's reference was the last
      continue;
    }
    --held_;
    // __pagevec_lru_add_fn(): a page-cache page goes on the list its PG_active names.
    const LruList file_list = pf.active_on_add ? LruList::kActiveFile : LruList::kInactiveFile;
    pf.active_on_add = false;
    link(f, pf.pagecache ? file_list : new_anon);
  }
  if (locked == nullptr) co_return;
  t.work(sim_.costs().lru_move_page * moved);
  co_await locked->unlock_irqrestore(t);
}

// Models mm/swap.c: pagevec_lru_move_fn(): `move` on each page of the batch still on an LRU list
// (not freed, not isolated), under the lru_lock of its lruvec.
Co<void> Lruvec::pagevec_lru_move_fn(Task& t, std::vector<std::pair<uint32_t, uint32_t>> batch,
                                     void (Lruvec::*move)(uint32_t f)) {
  QSpinLock* locked = nullptr;
  int64_t moved = 0;
  for (const auto& [f, gen] : batch) {
    if (const PageFrame& pf = frames_[f]; &lru_lock_of(pf.nid, pf.memcg) != locked) {
      co_await relock_lruvec(t, pf.nid, pf.memcg, locked, moved);  // another lruvec
    }
    const PageFrame& pf = frames_[f];  // after the lock: the wait may have changed it
    ++moved;
    if (pf.gen != gen || pf.where != FrameWhere::kLru) continue;  // freed or isolated meanwhile
    (this->*move)(f);
  }
  if (locked == nullptr) co_return;
  t.work(sim_.costs().lru_move_page * moved);
  co_await locked->unlock_irqrestore(t);
}

// Models lru_lazyfree_fn() (4.12+) / lru_deactivate_fn() (4.5-4.11).
void Lruvec::lazyfree_move(uint32_t f) {
  PageFrame& pf = frames_[f];
  const bool to_file = sim_.config().lazyfree_lru == LazyfreeLru::kInactiveFile;
  // 4.5-4.11 deactivate_page() -> lru_deactivate_fn(): only a page on the active list moves;
  // one already inactive keeps its place (4.12+ lru_lazyfree_fn() moves either).
  if (!to_file && pf.lru != LruList::kActiveAnon) return;
  unlink(f);
  --held_;
  if (to_file) pf.swapbacked = false;  // ClearPageSwapBacked()
  link(f, pf.swapbacked ? LruList::kInactiveAnon : LruList::kInactiveFile);
  ++sim_.vm().pglazyfree;
}

Co<void> Lruvec::drain_lru_lazyfree(Task& t, std::vector<std::pair<uint32_t, uint32_t>> batch) {
  return pagevec_lru_move_fn(t, std::move(batch), &Lruvec::lazyfree_move);
}

// A batch that is not full yet takes the page with no frame (sim/co.h).
Co<void> Lruvec::lru_cache_add(Task& t, uint32_t f) {
  frames_[f].where = FrameWhere::kPagevec;
  ++held_;
  --unframed_;  // the new page now has its frame
  std::vector<uint32_t>& b = cpu_[t.cpu().id].lru_add;
  b.push_back(f);
  if (b.size() >= sim_.config().pagevec_size) return drain_lru_add(t, std::exchange(b, {}));
  return Co<void>::ready();
}

void Lruvec::add_cached_at_start(uint32_t f) {
  assert(frames_[f].pagecache && "only page-cache pages were cached at the start");
  --unframed_;  // the page now has its frame
  link(f, LruList::kInactiveFile);
}

Co<void> Lruvec::mark_page_lazyfree(Task& t, uint32_t f) {
  assert(f != kNoFrame && "invariant (3): an own page without a frame");
  if (frames_[f].where != FrameWhere::kLru) return Co<void>::ready();  // !PageLRU(page): skipped
  auto& b = cpu_[t.cpu().id].lru_lazyfree;
  b.push_back({f, frames_[f].gen});
  if (b.size() >= sim_.config().pagevec_size) return drain_lru_lazyfree(t, std::exchange(b, {}));
  return Co<void>::ready();
}

Co<void> Lruvec::mark_page_accessed(Task& t, uint32_t f) {
  PageFrame& pf = frames_[f];
  assert(pf.pagecache && "mark_page_accessed() of a page that is not in the page cache");
  // PageActive(): on (or isolated from) the active file list, or marked in a batch.
  const bool active =
      pf.where == FrameWhere::kPagevec ? pf.active_on_add : pf.lru == LruList::kActiveFile;
  if (active || !pf.referenced) {
    if (!active) pf.referenced = true;  // SetPageReferenced(): the first access
    return Co<void>::ready();
  }
  pf.referenced = false;  // ClearPageReferenced(): active from here
  CpuBatches& c = cpu_[t.cpu().id];
  if (pf.where == FrameWhere::kPagevec) {
    // __lru_cache_activate_page(): only a page in this CPU's lru_add batch is marked; one in
    // another CPU's batch stays inactive.
    if (std::find(c.lru_add.begin(), c.lru_add.end(), f) != c.lru_add.end())
      pf.active_on_add = true;
    return Co<void>::ready();
  }
  if (pf.where != FrameWhere::kLru) return Co<void>::ready();  // isolated: !PageLRU()
  c.activate.push_back({f, pf.gen});                           // activate_page()
  if (c.activate.size() >= sim_.config().pagevec_size)
    return drain_activate(t, std::exchange(c.activate, {}));
  return Co<void>::ready();
}

// Models __activate_page(): a page still on the inactive file list moves to the active one
// (PGACTIVATE).
void Lruvec::activate_move(uint32_t f) {
  if (frames_[f].lru != LruList::kInactiveFile) return;  // activated meanwhile
  unlink(f);
  --held_;
  link(f, LruList::kActiveFile);
  ++sim_.vm().pgactivate;
}

Co<void> Lruvec::drain_activate(Task& t, std::vector<std::pair<uint32_t, uint32_t>> batch) {
  return pagevec_lru_move_fn(t, std::move(batch), &Lruvec::activate_move);
}

Co<void> Lruvec::deactivate_page(Task& t, uint32_t f) {
  const PageFrame& pf = frames_[f];
  const bool active = pf.lru == LruList::kActiveAnon || pf.lru == LruList::kActiveFile;
  if (pf.where != FrameWhere::kLru || !active) return Co<void>::ready();
  auto& b = cpu_[t.cpu().id].deactivate;
  b.push_back({f, pf.gen});
  if (b.size() >= sim_.config().pagevec_size)
    return pagevec_lru_move_fn(t, std::exchange(b, {}), &Lruvec::deactivate_move);
  return Co<void>::ready();
}

// Models lru_deactivate_fn() (5.4+): an active page goes to the head of its inactive list,
// PG_active and PG_referenced cleared.
void Lruvec::deactivate_move(uint32_t f) {
  PageFrame& pf = frames_[f];
  if (pf.lru != LruList::kActiveAnon && pf.lru != LruList::kActiveFile) return;  // moved meanwhile
  const LruList inactive =
      pf.lru == LruList::kActiveAnon ? LruList::kInactiveAnon : LruList::kInactiveFile;
  unlink(f);
  --held_;
  pf.referenced = false;
  link(f, inactive);
  ++sim_.vm().pgdeactivate;
}

bool Lruvec::isolate_lru_page(uint32_t f) {
  if (frames_[f].where != FrameWhere::kLru) return false;
  unlink(f);
  return true;
}

Co<void> Lruvec::lru_add_drain(Task& t) {
  t.work(sim_.costs().lru_add_drain);
  // 5.13-5.14 (8cc621d2f45d): lru_add_drain_cpu() also invalidates this CPU's bh_lru.
  if (sim_.config().bh_invalidate == BhInvalidateMode::kDrain) invalidate_bh_lrus_cpu(t);
  CpuBatches& c = cpu_[t.cpu().id];
  if (!c.lru_add.empty()) co_await drain_lru_add(t, std::exchange(c.lru_add, {}));
  if (!c.lru_lazyfree.empty()) co_await drain_lru_lazyfree(t, std::exchange(c.lru_lazyfree, {}));
  if (!c.activate.empty()) co_await drain_activate(t, std::exchange(c.activate, {}));
  if (!c.deactivate.empty())
    co_await pagevec_lru_move_fn(t, std::exchange(c.deactivate, {}), &Lruvec::deactivate_move);
}

Co<void> Lruvec::lru_add_drain_before_zap(Task& t) {
  if (sim_.config().zap_lru_drain) co_await lru_add_drain(t);
}

void Lruvec::rotate_at_write_end(SimTime done, uint32_t f) {
  write_ends_.schedule(done, uint64_t{frames_[f].gen} << 32 | f);
}

// Models folio_rotate_reclaimable() (mm/swap.c): only a page on an LRU list moves, whichever list
// a refault put it on meanwhile (lru_move_tail_fn() clears PG_active).
void Lruvec::rotate_reclaimable_page(uint32_t f, uint32_t gen) {
  PageFrame& pf = frames_[f];
  if (pf.gen != gen || pf.where != FrameWhere::kLru || !pf.live()) return;
  const LruList inactive = pf.swapbacked ? LruList::kInactiveAnon : LruList::kInactiveFile;
  unlink(f);
  --held_;
  link_tail(f, inactive);
  ++sim_.vm().pgrotated;
}

}  // namespace mmreplay::kernelsim
