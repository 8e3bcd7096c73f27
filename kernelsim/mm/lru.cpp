#include "kernelsim/mm/lru.h"

#include <cassert>

#include "kernelsim/mm/mm_types.h"
#include "kernelsim/sim/simulation.h"

namespace mmreplay::kernelsim {

Lruvec::Lruvec(Simulation& sim, uint32_t nr_cpus) : lru_lock(sim, "&pgdat->lru_lock"), sim_(sim), cpu_(nr_cpus) {}

uint32_t Lruvec::new_frame() {
  uint32_t f = 0;
  if (!free_frames_.empty()) {
    f = free_frames_.back();
    free_frames_.pop_back();
  } else {
    f = static_cast<uint32_t>(frames_.size());
    frames_.emplace_back();
  }
  assert(frames_[f].where == FrameWhere::kFree && "invariant (1)");
  return f;
}

uint64_t Lruvec::nr_lru_pages() const {
  uint64_t n = 0;
  for (const List& l : lists_) n += l.size;
  return n;
}

uint32_t Lruvec::page_add_file_frame(uint32_t file, uint64_t index) {
  const uint32_t f = new_frame();
  PageFrame& pf = frames_[f];
  pf.mm = nullptr;
  pf.addr = index;
  pf.swapbacked = false;
  pf.pagecache = true;
  pf.dirty = false;
  pf.file = file;
  pf.dirty_token = 0;
  pf.writeback_end = SimTime::zero();
  return f;
}

uint32_t Lruvec::page_add_new_anon_rmap(Mm& mm, uint64_t addr) {
  const uint32_t f = new_frame();
  PageFrame& pf = frames_[f];
  pf.mm = &mm;
  pf.addr = addr;
  pf.swapbacked = true;
  pf.pagecache = false;
  const bool inserted = mm.anon_pages.insert(addr, f);
  assert(inserted && "invariant (3): two own pages at one address");
  (void)inserted;
  return f;
}

uint32_t Lruvec::find(const Mm& mm, uint64_t addr) const {
  return mm.anon_pages.find(addr);
}

void Lruvec::free_frame(uint32_t f) {
  PageFrame& pf = frames_[f];
  pf.mm = nullptr;
  pf.pagecache = false;
  pf.where = FrameWhere::kFree;
  pf.prev = pf.next = kNoFrame;
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

void Lruvec::page_remove_rmap(Mm& mm, uint64_t addr) {
  const uint32_t f = mm.anon_pages.erase(addr);
  assert(f != kNoFrame && "invariant (3): an own page without a frame");
  PageFrame& pf = frames_[f];
  ++unframed_;  // the caller frees the page (mmu_gather)
  if (pf.where == FrameWhere::kLru) {
    unlink(f);
    --held_;
    free_frame(f);
  } else {
    pf.mm = nullptr;  // the batch or reclaim holding it lets go later
    --held_;
  }
}

void Lruvec::page_move_anon_rmap(Mm& mm, uint64_t old_addr, uint64_t new_addr) {
  const uint32_t f = mm.anon_pages.erase(old_addr);
  if (f == kNoFrame) return;
  frames_[f].addr = new_addr;
  const bool inserted = mm.anon_pages.insert(new_addr, f);
  assert(inserted && "invariant (3): mremap onto an own page");
  (void)inserted;
}

void Lruvec::link(uint32_t f, LruList list) {
  PageFrame& pf = frames_[f];
  List& l = lists_[static_cast<int>(list)];
  pf.where = FrameWhere::kLru;
  pf.lru = list;
  pf.prev = kNoFrame;
  pf.next = l.head;
  if (l.head != kNoFrame) frames_[l.head].prev = f;
  l.head = f;
  if (l.tail == kNoFrame) l.tail = f;
  ++l.size;
}

void Lruvec::unlink(uint32_t f) {
  PageFrame& pf = frames_[f];
  assert(pf.where == FrameWhere::kLru && "invariant (1)");
  List& l = lists_[static_cast<int>(pf.lru)];
  if (pf.prev != kNoFrame) frames_[pf.prev].next = pf.next; else l.head = pf.next;
  if (pf.next != kNoFrame) frames_[pf.next].prev = pf.prev; else l.tail = pf.prev;
  pf.prev = pf.next = kNoFrame;
  assert(l.size > 0 && "invariant (2)");
  --l.size;
  pf.where = FrameWhere::kIsolated;
  ++held_;
}

std::vector<uint32_t> Lruvec::isolate_lru_pages(LruList list, uint32_t n) {
  assert(lru_lock.holder() != nullptr);
  std::vector<uint32_t> out;
  const List& l = lists_[static_cast<int>(list)];
  while (out.size() < n && l.tail != kNoFrame) {
    const uint32_t f = l.tail;
    unlink(f);
    out.push_back(f);
  }
  return out;
}

void Lruvec::putback_lru_page(uint32_t f, LruList list) {
  assert(lru_lock.holder() != nullptr);
  assert(frames_[f].where == FrameWhere::kIsolated && frames_[f].live());
  --held_;
  link(f, list);
}

// Models mm/swap.c: __pagevec_lru_add() -> pagevec_lru_move_fn(__pagevec_lru_add_fn).
Co<void> Lruvec::drain_lru_add(Task& t, std::vector<uint32_t> batch) {
  co_await lru_lock.lock(t);
  for (uint32_t f : batch) {
    PageFrame& pf = frames_[f];
    assert(pf.where == FrameWhere::kPagevec && "invariant (1)");
    if (!pf.live()) {
      free_frame(f);  // zapped while in the batch: the batch's reference was the last
      continue;
    }
    --held_;
    // New anon pages start active (lru_cache_add_active_or_unevictable()), page-cache pages
    // inactive (add_to_page_cache_lru(): use-once until referenced again).
    link(f, pf.pagecache ? LruList::kInactiveFile : LruList::kActiveAnon);
  }
  t.work(sim_.costs().lru_move_page * static_cast<int64_t>(batch.size()));
  co_await lru_lock.unlock(t);
}

// Models mm/swap.c: pagevec_lru_move_fn(lru_lazyfree_fn) (4.12+) / lru_deactivate_fn (4.5).
Co<void> Lruvec::drain_lru_lazyfree(Task& t, std::vector<std::pair<uint32_t, uint32_t>> batch) {
  const bool to_file = sim_.policies().lazyfree_lru->on_file_lru();
  co_await lru_lock.lock(t);
  for (const auto& [f, gen] : batch) {
    PageFrame& pf = frames_[f];
    if (pf.gen != gen || pf.where != FrameWhere::kLru) continue;  // freed or isolated meanwhile
    unlink(f);
    --held_;
    if (to_file) pf.swapbacked = false;  // ClearPageSwapBacked()
    link(f, pf.swapbacked ? LruList::kInactiveAnon : LruList::kInactiveFile);
    ++sim_.vm().pglazyfree;
  }
  t.work(sim_.costs().lru_move_page * static_cast<int64_t>(batch.size()));
  co_await lru_lock.unlock(t);
}

Co<void> Lruvec::lru_cache_add(Task& t, uint32_t f) {
  frames_[f].where = FrameWhere::kPagevec;
  ++held_;
  --unframed_;  // the new page now has its frame
  std::vector<uint32_t>& b = cpu_[t.cpu().id].lru_add;
  b.push_back(f);
  if (b.size() >= sim_.policies().pagevec_size->size()) co_await drain_lru_add(t, std::exchange(b, {}));
}

Co<bool> Lruvec::mark_page_lazyfree(Task& t, uint32_t f) {
  assert(f != kNoFrame && "invariant (3): an own page without a frame");
  if (frames_[f].where != FrameWhere::kLru) co_return false;  // !PageLRU(page): skipped
  auto& b = cpu_[t.cpu().id].lru_lazyfree;
  b.push_back({f, frames_[f].gen});
  if (b.size() >= sim_.policies().pagevec_size->size()) co_await drain_lru_lazyfree(t, std::exchange(b, {}));
  co_return true;
}

Co<void> Lruvec::lru_add_drain(Task& t) {
  t.work(sim_.costs().lru_add_drain);
  CpuBatches& c = cpu_[t.cpu().id];
  if (!c.lru_add.empty()) co_await drain_lru_add(t, std::exchange(c.lru_add, {}));
  if (!c.lru_lazyfree.empty()) co_await drain_lru_lazyfree(t, std::exchange(c.lru_lazyfree, {}));
}

}  // namespace mmreplay::kernelsim
