// On-demand readahead of file and block-device reads (mm/readahead.c).
//
// A read that misses the page cache does not read one page: page_cache_sync_ra() picks a window
// from the read's size and the reader's readahead state, and page_cache_ra_unbounded() allocates
// every missing page of it at once (alloc_pages() with __GFP_NORETRY: a failed allocation ends
// the window), adds each to the cache locked (PG_locked, not uptodate) and submits one read for
// the batch. The batch's read takes CostProfile::page_cache_read_request once and
// page_cache_miss_read per page (in the built-in profiles the request is 0 and the per-page cost
// readahead-amortised), queued on the file's device behind its other reads and writes, and
// completes for the whole batch at once, as its bio does. A reader
// finding a page of it waits until then (folio_wait_locked()), and reclaim leaves it alone
// (trylock_page() fails in shrink_page_list()).
//
// The window (ondemand_readahead(), 4.10+): from the start of the file, after a read that ended
// just before, or for a read larger than the window, it starts at get_init_ra_size() of the read;
// each following window is get_next_ra_size() of the last (x4 while small, x2, then the maximum).
// The maximum is the device's read_ahead_kb (bdi_ra_pages()), or the read itself up to the
// device's io_pages (BLK_DEF_MAX_SECTORS) when the read is larger. The last async_size pages of a
// window are read ahead: the first of them carries PG_readahead, and a read reaching it starts the
// next window without waiting (page_cache_async_ra()). A read elsewhere reads what it asks for and
// leaves the state alone. read_ahead_kb=0 reads a missing page alone (force_page_cache_ra()).
//
// Simplifications:
//  - one readahead state per (task, file): the model has no struct file per open();
//  - the PG_readahead mark is kept in that state, not on the page, so only the task that read a
//    window ahead starts the next one from it (another reader starts one on its own miss);
//  - no try_context_readahead() (a read that is not sequential for its own state is random),
//    and no large folios (page_cache_ra_order());
//  - a file's end is its size in the trace's file table; without one a window is not cut at it.

#pragma once

#include <cstdint>

#include "kernelsim/constants.h"
#include "kernelsim/sim/co.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Simulation;
class Task;
struct PageFrame;

// Models struct file_ra_state.
struct FileRaState {
  static constexpr uint64_t kNoPrev = ~uint64_t{0};
  uint64_t start = 0;           // first page of the current window
  uint64_t size = 0;            // its pages
  uint64_t async_size = 0;      // its last pages, read ahead
  uint64_t prev_pos = kNoPrev;  // ra->prev_pos: the byte after the last one a read took
  bool marked = false;          // PG_readahead still set on page start + size - async_size
  uint32_t mmap_miss = 0;       // mappings' state only: faults that missed, less those that hit

  // The last page a read took (ra->prev_pos >> PAGE_SHIFT as readahead tests it), or kNoPrev.
  uint64_t prev_index() const {
    return prev_pos == kNoPrev ? kNoPrev : (prev_pos - 1) >> PAGE_SHIFT;
  }

  // Models the read loop's test before mark_page_accessed() (6.x: pos_same_folio(pos, prev_pos -
  // 1)): a read that goes on at `pos`, where the last one ended inside a page, does not mark that
  // page again ("When a sequential read accesses a page several times, only mark it as accessed
  // the first time").
  bool continues_in_page(uint64_t pos) const {
    return pos == prev_pos && (pos & (PAGE_SIZE - 1)) != 0;
  }
  // ra->prev_pos after a read of [offset, end), end > offset.
  void read_ended(uint64_t end) { prev_pos = end; }

  // True when page `index` carries this state's mark (page_cache_async_ra() starts a window
  // there): a read batch ends at such a page, as at PG_readahead.
  bool marks(uint64_t index) const { return marked && index == start + size - async_size; }
};

// Models get_init_ra_size(): the first window for a read of `size` pages, at most `max`.
uint64_t get_init_ra_size(uint64_t size, uint64_t max);
// Models get_next_ra_size(): the window after one of `cur` pages, at most `max`.
uint64_t get_next_ra_size(uint64_t cur, uint64_t max);

// Models page_cache_sync_ra(): page `index` of `file` is missing and the read wants `req` pages
// from it; `ra` is the reader's state of the file (PageCache::ra_state()). Submits the window's
// read without waiting for it. REQUIRES: t holds no spinlock.
Co<void> page_cache_sync_ra(Task& t, uint32_t file, FileRaState& ra, uint64_t index, uint64_t req);

// Models page_cache_async_ra() as filemap_get_pages() calls it: the read has reached page
// `index`, in the cache and marked (ra.marks(index)), and wants `req` pages from it. Submits the
// next window without waiting. REQUIRES: t holds no spinlock.
Co<void> page_cache_async_ra(Task& t, uint32_t file, FileRaState& ra, uint64_t index, uint64_t req);

// inode_to_bdi(file)->ra_pages, which file_ra_state_init() copies into a file's ra_pages: the
// read_ahead_kb of the file's device in pages. A device's figure comes with the trace (record
// reads it from sysfs: FileSpec::read_ahead_kb); the read_ahead_kb knob stands for a device the
// trace does not describe.
uint64_t bdi_ra_pages(const Simulation& sim, uint32_t file);

// Models ra_submit(): reads the window `ra` describes (start, size), marking its page
// start + size - async_size for the next one. REQUIRES: t holds no spinlock.
Co<void> ra_submit(Task& t, uint32_t file, FileRaState& ra);

// True when the page's read is in flight at `now` (PG_locked by readahead, not yet uptodate).
bool page_read_in_flight(const PageFrame& pf, SimTime now);

// Models folio_wait_locked() of a page-cache page whose read may be in flight: off CPU until the
// read of frame f completes; returns at once when none is in flight.
// REQUIRES: t holds no spinlock.
Co<void> wait_on_page_read(Task& t, uint32_t f);

}  // namespace mmreplay::kernelsim
