#include "kernelsim/mm/filemap_fault.h"

#include <algorithm>
#include <cassert>

#include "kernelsim/constants.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/readahead.h"
#include "kernelsim/mm/vma.h"
#include "kernelsim/sim/task.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models do_sync_mmap_readahead() for a fault that missed page `index`: nothing ahead under
// MADV_RANDOM (VM_RAND_READ), a sequential window from the page under MADV_SEQUENTIAL
// (VM_SEQ_READ), otherwise read-around unless the mappings miss too often.
Co<void> do_sync_mmap_readahead(Task& t, const Vma& vma, FileRaState& ra, uint64_t index) {
  const uint32_t file = vma.file;
  if (vma.vm_flags & VM_RAND_READ) co_return;  // the page is read alone
  const uint64_t ra_pages = bdi_ra_pages(t.sim(), file);
  if (ra_pages == 0) co_return;  // no read-around: the page is read alone
  if (vma.vm_flags & VM_SEQ_READ) {
    co_await page_cache_sync_ra(t, file, ra, index, ra_pages);
    co_return;
  }
  if (ra.mmap_miss < MMAP_LOTSAMISS * 10) ++ra.mmap_miss;  // "avoid banging the cache line"
  if (ra.mmap_miss > MMAP_LOTSAMISS) co_return;
  // mmap read-around: the window centred on the page, its last quarter read ahead.
  ra.start = index > ra_pages / 2 ? index - ra_pages / 2 : 0;
  ra.size = ra_pages;
  ra.async_size = ra_pages / 4;
  co_await ra_submit(t, file, ra);
}

Co<bool> start_async_window(Task& t, uint32_t file, FileRaState& ra, uint64_t index) {
  co_await page_cache_async_ra(t, file, ra, index, bdi_ra_pages(t.sim(), file));
  co_return true;
}

// Models do_async_mmap_readahead() for a fault that found page `index`: a hit pays back a miss,
// and the marked page of the last window starts the next one, except under MADV_RANDOM. Returns
// true when it started a window (the caller looks its page up again).
Co<bool> do_async_mmap_readahead(Task& t, const Vma& vma, FileRaState& ra, uint64_t index) {
  const uint32_t file = vma.file;
  if (vma.vm_flags & VM_RAND_READ) return Co<bool>::ready(false);
  if (ra.mmap_miss > 0) --ra.mmap_miss;
  if (!ra.marks(index) || bdi_ra_pages(t.sim(), file) == 0) return Co<bool>::ready(false);
  return start_async_window(t, file, ra, index);
}

}  // namespace

uint64_t linear_page_index(const Vma& vma, uint64_t addr) {
  return vma.pgoff + ((addr - vma.start) >> PAGE_SHIFT);
}

Co<bool> filemap_fault(Task& t, const Vma& vma, uint64_t addr) {
  assert(!vma.is_anonymous() && vma.file != 0);
  Simulation& sim = t.sim();
  PageCache& pc = sim.page_cache();
  const uint32_t file = vma.file;
  const uint64_t index = linear_page_index(vma, addr);
  t.work(sim.costs().page_cache_lookup);  // filemap_get_folio()
  co_await sync_point(t);                 // the mapping's xarray is shared
  FileRaState& ra = pc.mmap_ra_state(file);
  if (const uint32_t f = pc.find_get_page(file, index); f != kNoFrame) {
    // Found: mapped at once when uptodate and no window starts here (no suspension since the
    // lookup, so f is still this page); otherwise looked up again once it may have changed.
    if (!co_await do_async_mmap_readahead(t, vma, ra, index) &&
        (!pc.reads_in_flight(t.clock()) || !page_read_in_flight(sim.lruvec().frame(f), t.clock())))
      co_return true;
  } else if (is_cached_at_start_without_frame(sim, file, index)) {
    co_await do_async_mmap_readahead(t, vma, ra, index);
  } else {
    ++sim.vm().pgmajfault;  // "No page in the page cache at all": VM_FAULT_MAJOR
    ++sim.vm().fault_file_major;
    co_await do_sync_mmap_readahead(t, vma, ra, index);
  }
  // The page itself: read-around's page, waited for; the page alone when no window read it
  // (__filemap_get_folio(FGP_CREAT) + filemap_read_folio()); a warm page's frame.
  // A mapped page's accesses are its ptes' young bits: the fault marks nothing.
  co_return co_await filemap_get_or_add_page(t, file, index, /*write=*/false,
                                             /*whole_page_write=*/false, /*accessed=*/false);
}

}  // namespace mmreplay::kernelsim
