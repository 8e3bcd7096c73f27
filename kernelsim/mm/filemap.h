// The page cache of read(2)/write(2) and its writeback (mm/filemap.c, mm/page-writeback.c,
// fs/fs-writeback.c).
//
// A file page touched by read or write is a real page of the zone with a PageFrame on the file
// LRU lists (mm/lru.h): pagecache_get_page() finds it, or allocates it (alloc_pages(): watermarks,
// kswapd, direct reclaim, OOM) and, unless the write covers the whole page, reads it from the
// file's device first (a page-cache miss, CostProfile::page_cache_read_request and
// page_cache_miss_read, waited for off CPU).
// write(2) dirties the page (set_page_dirty(), NR_FILE_DIRTY); each file has its own device (one
// block device per file, fs/buffer.h) whose writes queue one behind the other at
// CostProfile::writeback_page each (readahead's reads queue there too, mm/readahead.h), so a page
// under writeback (PG_writeback) is one whose queued write has not completed yet (PageFrame::io_end
// > now()).
//
// Dirty pages are written by the flusher (a kernel thread, wb_workfn()) once NR_FILE_DIRTY is over
// the background threshold, MAX_WRITEBACK_PAGES at a time, oldest dirtied first; and by kswapd's
// pageout() (mm/vmscan.h). A writer over the dirty threshold is paused in balance_dirty_pages() (at
// most MAX_PAUSE at a time) until dirty + writeback pages are back under it. Thresholds are
// vm.dirty_background_ratio and vm.dirty_ratio of the dirtyable memory (free + page cache).
// Writing a page back also cleans its buffer heads; fsync cleans the file's dirty pages.
// A file cached at the start of the run (fs/file.h, --cache warm) has every page resident until it
// is dropped: its first touch of a page allocates the frame (the model's memory did not hold it)
// without a device read (pgcache_warm).
// File-backed mmap faults come here too (mm/filemap_fault.h): a mapped page-cache page counts
// the ptes that map it (page_mapcount()), and reclaim unmaps it before dropping it.
// Truncation drops a file's pages from an offset on (mm/truncate.h).
// A page read or written again is activated (mark_page_accessed(), mm/lru.h): the first access
// sets PG_referenced, the next moves it to the active list; reclaim keeps a referenced dirty
// page rather than write it (PAGEREF_RECLAIM_CLEAN, mm/vmscan.cpp). Faults on mapped pages
// leave that to the ptes' young bits.
// Not modelled: the dirty_expire writeback of old pages, per-bdi dirty limits, workingset refault
// detection (3.15+ file, 5.9+ anon: a page evicted recently comes back active).
//
// Invariants (asserted in filemap.cpp):
//  (1) nr_dirty() == the number of page-cache frames with PG_dirty;
//  (2) every page-cache frame is in the index under (file, index), and only those are;
//  (3) a page-cache frame leaves the index only with mapcount() == 0: every pte that maps it was
//      zapped or unmapped first (try_to_unmap(), mm/vmscan.cpp).

#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kernelsim/mm/readahead.h"
#include "kernelsim/sim/co.h"
#include "kernelsim/sim/slot_index.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Simulation;
class Task;

class PageCache {
 public:
  explicit PageCache(Simulation& sim) : sim_(sim) {}

  // Models find_get_page(): the frame of page `index` of `file`, or kNoFrame.
  uint32_t find_get_page(uint32_t file, uint64_t index) const;
  // Models __add_to_page_cache_locked() / __delete_from_page_cache() of the index.
  void add(uint32_t file, uint64_t index, uint32_t frame);
  void remove(uint32_t file, uint64_t index);
  // The indices of `file`'s pages at `from` and above, in order (find_lock_entries() of
  // truncate_inode_pages_range()).
  std::vector<uint64_t> file_pages_from(uint32_t file, uint64_t from) const;
  // A truncation dropped every page of `file` from `from` on: file_pages_from() need look no
  // further until a page is added beyond it.
  void truncated_from(uint32_t file, uint64_t from) {
    if (file < index_end_.size()) index_end_[file] = std::min(index_end_[file], from);
  }
  // Models cancel_dirty_page() (folio_cancel_dirty()) of frame f, dropped while dirty: it will
  // never be written, and leaves NR_FILE_DIRTY.
  void cancel_dirty_page(uint32_t f);
  // A file cached at the start was truncated at page `index`: its pages from there on that the
  // model never gave a frame are no longer resident (is_cached_at_start_without_frame()).
  void drop_cached_at_start_from(uint32_t file, uint64_t index);
  // The first page index of a file cached at the start that no truncation dropped (~0: none).
  uint64_t cached_at_start_limit(uint32_t file) const {
    return file < cached_at_start_limit_.size() ? cached_at_start_limit_[file] : ~uint64_t{0};
  }
  uint64_t nr_pages() const { return pages_.size(); }
  // Models page_mapcount() of page-cache frame f: the ptes that map it.
  uint32_t mapcount(uint32_t f) const { return f < mapcount_.size() ? mapcount_[f] : 0; }
  // Models page_add_file_rmap() / page_remove_rmap() of page-cache frame f: a pte maps it, or
  // stops mapping it.
  void page_add_file_rmap(uint32_t f);
  void page_remove_file_rmap(uint32_t f);
  // Page-cache pages mapped by at least one pte (NR_FILE_MAPPED).
  uint64_t nr_mapped() const { return nr_mapped_; }
  // True when page `index` of `file`, a file cached at the start (fs/file.h, cached_at_start),
  // has been in the cache at some time of this run: such a page counts as resident only until it
  // is first dropped. Not kept for other files (always false for them).
  bool was_ever_cached(uint32_t file, uint64_t index) const {
    return ever_cached_.find(key(file, index)) != SlotIndex::kNone;
  }

  // Models set_page_dirty() (account_page_dirtied()) of frame f.
  void set_page_dirty(uint32_t f);
  // Models clear_page_dirty_for_io() + set_page_writeback() of frame f at `now`: its write
  // is queued on the file's device. Returns when it completes.
  SimTime start_page_writeback(uint32_t f, SimTime now);
  // The device time of one read request of `pages` pages: CostProfile::page_cache_read_request
  // for the request and page_cache_miss_read a page.
  SimTime device_read_time(uint64_t pages) const;
  // A read of `pages` pages of `file` submitted at `now` (read_pages(), mm/readahead.h): queued on
  // the file's device behind its other reads and writes, for device_read_time(pages). Returns
  // when it completes.
  SimTime queue_device_read(uint32_t file, uint64_t pages, SimTime now);
  // Readahead's bookkeeping for reads_in_flight(): a page was added locked for a read not yet
  // submitted (mm/readahead.h), and `pages` of them were submitted.
  void read_page_added() { ++reads_unsubmitted_; }
  void read_pages_submitted(uint64_t pages) { reads_unsubmitted_ -= pages; }
  // False when no page-cache page can have its read in flight at `now`: none waits for its read
  // to be submitted and every read submitted has completed. A host-side shortcut (a hit then
  // reads no frame); it changes no result.
  bool reads_in_flight(SimTime now) const { return reads_unsubmitted_ != 0 || now < reads_end_; }
  uint64_t nr_dirty() const { return nr_dirty_; }
  // Pages whose queued write has not completed at `now` (NR_WRITEBACK).
  uint64_t nr_writeback(SimTime now) const;
  // Up to n dirty frames, oldest dirtied first (the b_dirty list of the model), still dirty;
  // `file` restricts them to one file (0: any).
  std::vector<uint32_t> oldest_dirty(uint64_t n, uint32_t file = 0);

  // When the writes of `file` queued so far complete: the last one's end, or `now` when none is
  // in flight (what filemap_fdatawait_range() waits for, the flusher's writes included).
  SimTime writes_done(uint32_t file, SimTime now) const;

  // Models domain_dirty_limits(): (background, dirty) thresholds in pages.
  std::pair<uint64_t, uint64_t> dirty_thresholds() const;

  // The readahead state of `task`'s reads of `file` (mm/readahead.h: one per task and file).
  FileRaState& ra_state(uint32_t task, uint32_t file) { return ra_[(uint64_t{task} << 32) | file]; }
  // The readahead state of the file's mappings (vma->vm_file->f_ra; the model has one struct file
  // per file, shared by every mapping of it): mmap read-around and its mmap_miss count.
  FileRaState& mmap_ra_state(uint32_t file) {
    if (file >= mmap_ra_.size()) mmap_ra_.resize(file + 1);
    return mmap_ra_[file];
  }
  // Tasks asleep until the read of frame f is submitted (mm/readahead.h).
  void add_read_waiter(uint32_t f, Task* t) { read_waiters_[f].push_back(t); }
  // The waiters of frame f, removed: its read was submitted.
  std::vector<Task*> take_read_waiters(uint32_t f);

  Task* flusher = nullptr;    // the writeback kthread, created on the first wakeup
  bool flusher_idle = false;  // asleep with no work (not waiting for its writes): wakeable
  // Woken by reclaim: the pages dirty at the wakeup, left to write (WB_start_all's nr_pages).
  uint64_t flusher_write_all_pages = 0;

 private:
  static uint64_t key(uint32_t file, uint64_t index) { return (uint64_t{file} << 40) | index; }

  Simulation& sim_;
  SlotIndex pages_;        // frames by key(file, index)
  SlotIndex ever_cached_;  // keys of warm files' pages added at some time (value 0: a set)
  // By file id: one past the highest index a page of it was added at since its last truncation
  // (file_pages_from() looks no further).
  std::vector<uint64_t> index_end_;
  // By file id: where a truncation cut a file cached at the start (~0: never). A vector, as
  // index_end_: every page lookup of a warm file reads it (is_cached_at_start_without_frame()).
  std::vector<uint64_t> cached_at_start_limit_;
  std::deque<std::pair<uint32_t, uint32_t>> dirty_fifo_;  // frame, its dirty_token then
  uint32_t dirty_token_ = 0;
  std::unordered_map<uint32_t, SimTime> device_busy_until_;  // per file: its queue's end
  // Per file: when each queued write completes, in queue order (the device's reads queue between
  // them, so the queue's end alone does not tell the writes in flight). Completed ones are popped
  // when counted.
  mutable std::unordered_map<uint32_t, std::deque<SimTime>> writeback_ends_;
  uint64_t nr_dirty_ = 0;
  uint64_t reads_unsubmitted_ = 0;  // pages added locked whose read is not submitted yet
  SimTime reads_end_;               // when the last read submitted so far completes
  std::vector<uint32_t> mapcount_;  // by frame; grown on a frame's first mapping
  uint64_t nr_mapped_ = 0;
  std::unordered_map<uint64_t, FileRaState> ra_;
  // By file id (FileTable's ids: small and dense). A deque: a reader holds its state across
  // suspensions while others' files grow it, and growing a deque at its end moves no element.
  std::deque<FileRaState> mmap_ra_;
  std::unordered_map<uint32_t, std::vector<Task*>> read_waiters_;
};

// Models pagecache_get_page(FGP_CREAT) for read or write: the page, created on a miss (read from
// the device unless `whole_page_write`); a write dirties it (before it can be reclaimed).
// `accessed` (FGP_ACCESSED, or the read loop's mark_page_accessed() that follows the lookup):
// a page found is marked accessed, a page created starts with PG_referenced (3.16, 2457aec63745).
// Returns false when no page could be allocated (the task was OOM-killed).
// REQUIRES: t holds no spinlock.
Co<bool> pagecache_get_page(Task& t, uint32_t file, uint64_t index, bool write,
                            bool whole_page_write, bool accessed);

// pagecache_get_page() after its lookup was charged (CostProfile::find_get_page): a caller
// that looked the page up itself (filemap_read()'s batch) pays for the rest only.
// REQUIRES: t holds no spinlock.
Co<bool> filemap_get_or_add_page(Task& t, uint32_t file, uint64_t index, bool write,
                                 bool whole_page_write, bool accessed);

// Whether page `index` of `file` is in the page cache for a reader: in the index, or a page of
// a file cached at the start (fs/file.h) that the model has not materialised yet.
bool is_page_cached(const Simulation& sim, uint32_t file, uint64_t index);

// Whether page `index` of `file`, not in the index, is a page of a file cached at the start that
// the model has not given a frame yet: resident for a reader, and never dropped in this run.
// REQUIRES: find_get_page(file, index) == kNoFrame.
bool is_cached_at_start_without_frame(const Simulation& sim, uint32_t file, uint64_t index);

// filemap_map_pages()' test of one page for fault-around (next_uptodate_page()): the frame of
// page `index` of `file` when it is cached, uptodate (no read in flight) and not the mappings'
// readahead mark (PG_readahead: its fault must start the next window); kNoFrame otherwise. A page
// of a file cached at the start gets its frame here, as its first lookup would give it.
uint32_t find_mappable_page(Task& t, uint32_t file, uint64_t index);

// Models balance_dirty_pages_ratelimited() after a write: wakes the flusher over the background
// threshold and pauses the writer over the dirty threshold.
Co<void> balance_dirty_pages_ratelimited(Task& t);

// Why the flusher is woken (enum wb_reason): over the background threshold it writes until under
// it again; from reclaim (WB_REASON_VMSCAN, 4.15+ wb_start_writeback() -> WB_start_all,
// wb_check_start_all()) it writes as many pages as were dirty at the wakeup, however few (a memcg
// full of dirty pages is far below the machine's threshold).
enum class WbReason : uint8_t { kBackground, kVmscan };

// Models wakeup_flusher_threads(). REQUIRES: t at a sync point (t.clock() == now()).
void wakeup_flusher_threads(Task& t, WbReason reason = WbReason::kBackground);

}  // namespace mmreplay::kernelsim
