// Lruvec: the nodes' LRU lists, their lru_locks and the per-CPU LRU batches (mm/swap.c,
// include/linux/mmzone.h). Each NUMA node (sched/topology.h: one per socket) has its own lists
// and its own lru_lock (3.16: zone->lru_lock of the node's Normal zone; 4.8+ pgdat->lru_lock), and
// a page sits on the lists of the node it was allocated on (frame.nid, page_to_nid()): the
// allocating CPU's node, as the page allocator serves a fault node-local first (mm/page_alloc.h).
// With memcg on, each memcg has its own set of the four lists on each node (its lruvec,
// mem_cgroup_per_node; frame.memcg says which, mm/memcontrol.h) and, under policy
// `lru_lock=lruvec` (5.11+), its own lru_lock per node (lock class "&lruvec->lru_lock");
// `lru_lock=node` or memcg=off: every lruvec uses its node's lock ("&pgdat->lru_lock", one lock
// class for all nodes, as lockdep counts them). Node reclaim visits the groups' lists in turn
// (mem_cgroup_iter()); known simplification: it takes the node lock even under lru_lock=lruvec.
//
// Own pages (anonymous and COW pages, pgtable.h bit kOwnPage) get a PageFrame when they are
// mapped: the frame records which mm and address map the page (the anon rmap) and where the page
// is: in a per-CPU lru_add batch, on one of four LRU lists, or isolated by reclaim. Mm::anon_pages
// leads from a pte to its frame. Page-table pages and page-cache pages (resident, not allocated
// here) are not on the LRU. Page-cache pages of read/write (mm/filemap.h) get a frame too
// (add_to_page_cache_lru()): `pagecache` set, `file` and `addr` = page index give (mapping, index);
// they go to the inactive file list through the same lru_add batch.
//
// Batches: a new page goes to this CPU's lru_add batch (lru_cache_add()); MADV_FREE queues a page
// on the lru_lazyfree batch (mark_page_lazyfree()), a page-cache page read or written a second
// time on the activate batch (mark_page_accessed()); a batch of PAGEVEC_SIZE (policy
// `pagevec_size`: 14, 15 or 31) drains under
// lru_lock (pagevec_lru_move_fn()), as does lru_add_drain(). New anon pages go on the active anon
// list (3.x-5.8 lru_cache_add_active_or_unevictable()) or the inactive one (5.9+), per policy
// `anon_lru`; new page-cache pages on the inactive file list, or the active one when
// mark_page_accessed() activated them in the batch. Lazyfree pages move to the inactive anon
// list from the active one (4.5-4.11: an inactive page keeps its place) or to the inactive file
// list from either (4.12+), per policy `lazyfree_lru`.
//
// A frame whose page is zapped while a batch or reclaim holds it is marked dead (mm == nullptr)
// and released by the holder, as the kernel's extra page reference defers the final put.
// The LRU removal itself happens at page_remove_rmap() here; the lru_lock round release_pages()
// makes for it is charged when the gather frees the page (mm/mmu_gather.cpp).
//
// Invariants (asserted in lru.cpp):
//  (1) a frame is in exactly one place: free, a lru_add batch, one LRU list, or isolated;
//  (2) size(list) == the number of frames linked on that list;
//  (3) a live frame f of mm at addr has mm->anon_pages.find(addr) == f;
//  (4) nr_held() == live frames in lru_add batches or isolated; nr_unframed() == user pages
//      allocated that no live frame holds (between the allocation and lru_cache_add(), or between
//      the rmap removal and the free): see check_page_conservation() (page_alloc.h).

#pragma once

#include <array>
#include <cassert>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "kernelsim/locking/qspinlock.h"
#include "kernelsim/mm/rmap.h"
#include "kernelsim/sim/chunked_store.h"
#include "kernelsim/sim/co.h"
#include "kernelsim/sim/event_queue.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Mm;
class Simulation;
class Task;

enum class LruList : uint8_t { kInactiveAnon, kActiveAnon, kInactiveFile, kActiveFile };
inline constexpr int NR_LRU_LISTS = 4;
inline constexpr uint32_t kNoFrame = ~uint32_t{0};
static_assert(kNoFrame == AnonRmap::kNone);

enum class FrameWhere : uint8_t { kFree, kPagevec, kLru, kIsolated };

struct PageFrame {
  Mm* mm = nullptr;      // the mapping mm; nullptr once the page was freed while held
  uint64_t addr = 0;     // user address it is mapped at
  uint64_t lru_pos = 0;  // its position on its LRU list (Lruvec::List), while where == kLru
  uint32_t gen = 0;      // bumped when the frame is reused (stale batch entries)
  FrameWhere where = FrameWhere::kFree;
  LruList lru = LruList::kActiveAnon;
  bool swapbacked = true;  // PG_swapbacked
  // PG_locked for a read in flight (mm/readahead.h): the page is not uptodate until io_end, and
  // io_end is infinite until the read is submitted. Page-cache pages.
  bool read_locked = false;
  uint32_t memcg = 0;  // the memcg (lruvec) it is charged to; 0: root
  // Bits, so that PG_referenced fits beside the others: 56 bytes a frame, as before it.
  bool pagecache : 1 = false;  // a page-cache page of `file`, index `addr` (mm/filemap.h)
  // PG_dirty: a page-cache page's; an anon page's once it came back from swap (reuse_swap_page()
  // and try_to_free_swap() set it as the page leaves the swap cache), read only by the 2015
  // MADV_FREE series' discard test (vmscan.cpp, lazyfree_pgdirty=kept).
  bool dirty : 1 = false;
  // PG_referenced: set by reclaim's page_check_references() at a page's first referenced scan
  // (mapped file pages; anon pages too with anon_lru=inactive-first). Cleared by free_frame().
  bool referenced : 1 = false;
  // PG_active of a page still in an lru_add batch: mark_page_accessed() found it referenced
  // there (__lru_cache_activate_page()), and the batch's drain puts it on the active list.
  bool active_on_add : 1 = false;
  // PG_swapcache of an anon page: it holds its swap slot (a read fault or the readahead with it
  // brought it back from swap: mm/swapfile.h), whose copy is current while its pte is clean; a
  // write the MMU lets through (swapin_pte=writable) makes it stale, and reclaim rewrites the slot.
  // Freeing the frame frees the slot (free_swap_cache()).
  bool swapcache : 1 = false;
  // PG_reclaim of a page-cache page: a memcg's reclaim met it dirty or under writeback and asked
  // for it back (SetPageReclaim()); the next such meeting waits for its write (vmscan.cpp).
  bool reclaim : 1 = false;
  uint16_t nid = 0;  // page_to_nid(): the node whose lists and lru_lock it is on
  uint32_t file = 0;
  uint32_t dirty_token = 0;  // PageCache's mark of its latest set_page_dirty() (b_dirty order)
  // PG_writeback (or, with read_locked, PG_locked) until then: a page-cache page's write or read,
  // or an anon page's swap write (vmscan.cpp: kept in the swap cache meanwhile).
  SimTime io_end;

  // Holds a page: an anon page still mapped by mm, or a page-cache page.
  bool live() const { return mm != nullptr || pagecache; }
};
static_assert(sizeof(PageFrame) <= 56, "a frame's size is host memory per simulated page");

inline constexpr uint32_t kAnyMemcg = ~uint32_t{0};  // node-wide: every memcg's lists

class Lruvec {
 public:
  // `nr_nodes` NUMA nodes (sched/topology.h), each with its lists and lru_lock.
  Lruvec(Simulation& sim, uint32_t nr_cpus, uint32_t nr_nodes);

  // Models page_add_new_anon_rmap(): a frame for mm's new own page at addr, allocated on node
  // `nid`.
  uint32_t page_add_new_anon_rmap(Mm& mm, uint64_t addr, uint32_t nid);
  // Where a zapped page was: on node nid's lists of memcg's lruvec (PageLRU), or held by a
  // batch or reclaim (release_pages() then takes no lru_lock for it).
  struct RemovedPage {
    bool on_lru = false;
    uint16_t nid = 0;
    uint32_t memcg = 0;
  };
  // Models page_remove_rmap() for a zapped own page (the caller frees the page itself).
  RemovedPage page_remove_rmap(Mm& mm, uint64_t addr);
  // Models the frame side of filemap_remove_folio() for truncation: page-cache frame f leaves the
  // page cache (the caller removed it from the index and frees the page itself). A frame on an
  // LRU list comes off it; one in a batch or isolated by reclaim is marked dead for its holder.
  RemovedPage delete_from_page_cache(uint32_t f);
  // mremap's move_ptes(): the page at old_addr is now mapped at new_addr.
  void page_move_anon_rmap(Mm& mm, uint64_t old_addr, uint64_t new_addr);
  // A fork-shared page (pgtable.h kCowShared) at addr passes from `from`, which stops mapping
  // it (its copy on write, its zap), to `to`, the mm left mapping it: the frame's rmap follows.
  void page_hand_over_anon_rmap(Mm& from, Mm& to, uint64_t addr);
  // Models add_to_page_cache_lru()'s frame: page `index` of `file` (the caller inserts it into
  // the PageCache and calls lru_cache_add()), allocated on node `nid`, charged to `memcg`
  // (kRootMemcg: to none).
  uint32_t page_add_file_frame(uint32_t file, uint64_t index, uint32_t nid, uint32_t memcg);
  // The frame of mm's own page at addr, or kNoFrame.
  uint32_t find(const Mm& mm, uint64_t addr) const;
  // Models try_to_free_swap() of frame f: a page in the swap cache lets go of its slot and is
  // PG_dirty, the only copy of its data now. No-op for a page not in the swap cache.
  void try_to_free_swap(uint32_t f);

  // Models lru_cache_add(): to t's CPU lru_add batch; drains it under lru_lock when full.
  Co<void> lru_cache_add(Task& t, uint32_t f);
  // Puts new frame `f` of a page cached before the run began straight on the inactive file list,
  // where the kernel's add_to_page_cache_lru() had put it: no batch, no lru_lock, no time.
  void add_cached_at_start(uint32_t f);
  // Models mark_page_lazyfree(): to t's CPU lru_lazyfree batch (only pages on an LRU list);
  // drains it when full. Not a coroutine: the common case queues the page and returns ready()
  // (sim/co.h), so the caller must await it at once.
  Co<void> mark_page_lazyfree(Task& t, uint32_t f);
  // Models mark_page_accessed() of page-cache frame f, read or written through the page cache:
  // an inactive, unreferenced page gets PG_referenced; an inactive, referenced one is activated
  // (activate_page(): through t's CPU activate batch, drained under lru_lock when full; or, still
  // in t's CPU lru_add batch, put on the active list when that drains) and loses PG_referenced.
  // Not a coroutine: the common case returns ready() (sim/co.h), so the caller must await it at
  // once.
  Co<void> mark_page_accessed(Task& t, uint32_t f);
  // Models deactivate_page() (5.4+, MADV_COLD): a page on an active list goes to t's CPU
  // lru_deactivate batch, drained under lru_lock when full; lru_deactivate_fn() then puts it at
  // the head of its inactive list without PG_referenced (PGDEACTIVATE). A page in a batch or
  // isolated (!PageLRU) or already inactive is left alone. Not a coroutine: the common case
  // returns ready() (sim/co.h), so the caller must await it at once.
  Co<void> deactivate_page(Task& t, uint32_t f);
  // Models lru_add_drain(): drains t's CPU batches (lru_lock taken only when one is non-empty).
  Co<void> lru_add_drain(Task& t);
  // The lru_add_drain() the zap paths make before tlb_gather_mmu() (madvise_dontneed_single_vma(),
  // unmap_region()), so the pages about to be freed are on the LRU; knob zap_lru_drain=off skips
  // it (an experiment: pages still batched are then released when their batch drains).
  Co<void> lru_add_drain_before_zap(Task& t);

  // ---- Reclaim side. REQUIRES: lru_lock held by the caller. ----
  // Models isolate_lru_pages(): up to n frames from the tail of `list` of memcg's lruvec on
  // node nid, or of the groups' lists there in turn (kAnyMemcg).
  std::vector<uint32_t> isolate_lru_pages(LruList list, uint32_t n, uint32_t nid,
                                          uint32_t memcg = kAnyMemcg);
  // Models putback_lru_page() / move to the head of `list`. REQUIRES: f isolated and live.
  void putback_lru_page(uint32_t f, LruList list);
  // Models isolate_lru_page() of one page (MADV_PAGEOUT): takes frame f off its LRU list for
  // the caller to hold. False when it is not on one (in a batch, or isolated already).
  bool isolate_lru_page(uint32_t f);

  // Models what end_page_writeback() does for a page reclaim wrote to swap (pageout() sets
  // PG_reclaim first): at `done`, when the write completes, folio_rotate_reclaimable() moves the
  // page, if it is still on an LRU list (not isolated, not in a batch, not freed and reused), to
  // the tail of its inactive list without PG_active (lru_move_tail_fn(): PGROTATED), so that the
  // next scan frees it at once, clean in the swap cache. Known simplification: the kernel batches
  // the move per CPU (lru_rotate) and takes lru_lock in the completion interrupt; here the page
  // moves when its write completes and no CPU pays for it.
  void rotate_at_write_end(SimTime done, uint32_t f);

  // A holder (reclaim) is done with frame f: its page was freed or unmapped. Drops the rmap.
  void release_frame(uint32_t f);
  PageFrame& frame(uint32_t f) { return frames_[f]; }
  const PageFrame& frame(uint32_t f) const { return frames_[f]; }
  // Pages on `list`, all nodes and groups.
  uint64_t size(LruList list) const;
  // Pages on `list` of node nid, memcg's lruvec or every group's (kAnyMemcg).
  uint64_t size(LruList list, uint32_t nid, uint32_t memcg) const;
  uint32_t nr_nodes() const { return static_cast<uint32_t>(nodes_.size()); }
  // The lru_lock that guards memcg's lruvec on node nid (policy lru_lock); the node's for
  // kAnyMemcg.
  QSpinLock& lru_lock_of(uint32_t nid, uint32_t memcg);
  // A batch's relock when it reaches a page of another lruvec (pagevec_lru_move_fn(),
  // release_pages()): charges the `moved` pages (lru_move_page each) to the lock held, drops it,
  // takes the lock of memcg's lruvec on node nid. Callers test first that it changes.
  Co<void> relock_lruvec(Task& t, uint32_t nid, uint32_t memcg, QSpinLock*& locked, int64_t& moved);
  // The node's own lock (pgdat->lru_lock; 3.x zone->lru_lock).
  QSpinLock& node_lru_lock(uint32_t nid) { return nodes_[nid]->lru_lock; }
  uint64_t nr_frames_in_use() const { return frames_.size() - free_frames_.size(); }
  // Frame numbers run from 0 to nr_frames() - 1, free frames included (for checks that walk them).
  uint32_t nr_frames() const { return static_cast<uint32_t>(frames_.size()); }
  // Pages on the four lists.
  uint64_t nr_lru_pages() const;
  // Invariant (4).
  uint64_t nr_held() const { return held_; }
  uint64_t nr_unframed() const { return unframed_; }
  // The page allocator's side of invariant (4): a user page was allocated / freed.
  void page_allocated() { ++unframed_; }
  void page_freed() {
    assert(unframed_ > 0 && "invariant (4): a user page freed while a frame still holds it");
    --unframed_;
  }

  uint32_t kswapd_failures = 0;  // pgdat->kswapd_failures (4.11+), one kswapd for all nodes

 private:
  // One LRU list as an array of frame numbers in the order they were added: reclaim takes from
  // the oldest end (the kernel list's tail), link() appends at the newest (its head), and a frame
  // that leaves from the middle leaves kNoFrame behind. The order, and so every isolation, is the
  // doubly linked list's; what changes is the memory it walks. Linked through the frames, each
  // unlink read both neighbours' frames and reclaim's walk from the tail was a chain of dependent
  // cache misses, one per page (perf: Lruvec::unlink 20-24% of seed 000 at full size); here the
  // frames a walk reads next are known ahead and prefetched, and an unlink touches no neighbour.
  // A frame's lru_pos is base + its index in slots. Holes are squeezed out once they outnumber
  // the frames (compact()), so the array stays within twice the list plus kCompactMinHoles.
  struct List {
    std::vector<uint32_t> slots;
    uint64_t base = 0;  // the position of slots[0]
    size_t oldest = 0;  // every slot before it is a hole
    uint64_t size = 0;  // frames on the list
  };
  static constexpr size_t kCompactMinHoles = 64;
  struct CpuBatches {
    std::vector<uint32_t> lru_add;
    std::vector<std::pair<uint32_t, uint32_t>> lru_lazyfree;  // frame, gen
    std::vector<std::pair<uint32_t, uint32_t>> activate;      // frame, gen (activate_page_pvecs)
    std::vector<std::pair<uint32_t, uint32_t>> deactivate;    // frame, gen (lru_deactivate_pvecs)
  };

  // How many allocations ahead new_frame() loads a free frame into the host cache.
  static constexpr size_t kFreeFramePrefetch = 2;
  uint32_t new_frame();
  void link(uint32_t f, LruList list);
  // link() at the oldest end (the kernel list's tail: list_move_tail()), the next to be isolated.
  void link_tail(uint32_t f, LruList list);
  // Models folio_rotate_reclaimable() + lru_move_tail_fn() for frame f of generation gen.
  void rotate_reclaimable_page(uint32_t f, uint32_t gen);
  void unlink(uint32_t f);
  // unlink() of the frame pf in `slot` of list l (kind `list`, node nid), which the caller knows.
  void unlink_slot(List& l, uint32_t nid, LruList list, uint32_t& slot, PageFrame& pf);
  // The list's oldest frame (its tail), or kNoFrame when it is empty.
  uint32_t tail_of(List& l);
  void compact(List& l);
  void free_frame(uint32_t f);
  Co<void> drain_lru_add(Task& t, std::vector<uint32_t> batch);
  Co<void> pagevec_lru_move_fn(Task& t, std::vector<std::pair<uint32_t, uint32_t>> batch,
                               void (Lruvec::*move)(uint32_t f));
  void lazyfree_move(uint32_t f);
  void activate_move(uint32_t f);
  void deactivate_move(uint32_t f);
  Co<void> drain_lru_lazyfree(Task& t, std::vector<std::pair<uint32_t, uint32_t>> batch);
  Co<void> drain_activate(Task& t, std::vector<std::pair<uint32_t, uint32_t>> batch);

  // The write completions rotate_at_write_end() queues: arg = gen << 32 | frame. They come in
  // the order the device completes them, so they wait in write_ends_, out of the heap.
  class WriteEnd final : public EventTarget {
   public:
    explicit WriteEnd(Lruvec& lru) : lru_(lru) {}
    void fire(uint64_t arg) override {
      lru_.rotate_reclaimable_page(static_cast<uint32_t>(arg), static_cast<uint32_t>(arg >> 32));
    }

   private:
    Lruvec& lru_;
  };

  Simulation& sim_;
  WriteEnd write_end_{*this};
  EventLane write_ends_;
  ChunkedStore<PageFrame> frames_;  // by frame number; grows without copying (sim/chunked_store.h)
  std::vector<uint32_t> free_frames_;
  using Lists = std::array<List, NR_LRU_LISTS>;
  // What struct pglist_data holds for the LRU: the lock and, per memcg, the lruvec's lists.
  struct Node {
    Node(Simulation& sim);
    QSpinLock lru_lock;                                    // pgdat->lru_lock
    std::vector<Lists> lists;                              // by memcg id
    std::array<uint64_t, NR_LRU_LISTS> size{};             // every group's
    uint32_t scan_cursor = 0;                              // next memcg a node isolate starts from
    std::vector<std::unique_ptr<QSpinLock>> lruvec_locks;  // by memcg id (lru_lock=lruvec)
  };
  List& list_of(uint32_t nid, uint32_t memcg, LruList list);
  // By node id. Each Node on the heap since QSpinLock does not move; a std::deque held them until
  // its indexing showed up in every list and lock lookup (cachegrind: ~15 instructions each).
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<CpuBatches> cpu_;
  uint64_t held_ = 0;
  uint64_t unframed_ = 0;
};

}  // namespace mmreplay::kernelsim
