#include "kernelsim/mm/filemap_read.h"

#include <algorithm>

#include "kernelsim/constants.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/readahead.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/sim/task.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models filemap_get_read_batch(): the number of pages from `index` (below `last`) in the cache,
// at most one batch, ending at a page whose read is in flight or that carries the reader's
// readahead mark (PG_readahead), either included. Reads shared state: the caller is at a sync
// point.
uint64_t filemap_get_read_batch(const Task& t, uint32_t file, const FileRaState& ra, uint64_t index,
                                uint64_t last) {
  const Simulation& sim = t.sim();
  uint64_t n = 0;
  while (n < PAGEVEC_SIZE_FOLIO_BATCH && index + n < last) {
    const uint64_t i = index + n;
    const uint32_t f = sim.page_cache().find_get_page(file, i);
    // No frame: a warm file's page the model has not materialised yet is cached too.
    if (f == kNoFrame && !is_page_cached(sim, file, i)) break;
    ++n;
    if (f != kNoFrame && page_read_in_flight(sim.lruvec().frame(f), t.clock())) break;
    if (ra.marks(i)) break;
  }
  return n;
}

// The loop filemap_read() and filemap_splice_read() share: the pages of each batch, and with
// `copy` the copy of their bytes to user memory (copy_folio_to_iter()).
Co<int64_t> read_pages(Task& t, uint32_t file, uint64_t offset, uint64_t len, bool copy) {
  Simulation& sim = t.sim();
  const CostProfile& costs = sim.costs();
  const uint64_t end = offset + len;
  const uint64_t last = (end + PAGE_SIZE - 1) / PAGE_SIZE;  // the page beyond the read
  uint64_t index = offset / PAGE_SIZE;
  FileRaState& ra = sim.page_cache().ra_state(t.id(), file);  // the open file's f_ra
  while (index < last) {
    // filemap_get_pages(): one walk from the root for the batch.
    t.work(costs.find_get_page);
    co_await sync_point(t);  // the mapping's xarray is shared
    uint64_t n = filemap_get_read_batch(t, file, ra, index, last);
    if (n == 0) {  // page_cache_sync_ra(), then the batch again
      co_await page_cache_sync_ra(t, file, ra, index, last - index);
      co_await sync_point(t);
      n = filemap_get_read_batch(t, file, ra, index, last);
    }
    if (n == 0) {  // filemap_create_folio(): readahead could not allocate it
      if (!co_await filemap_get_or_add_page(t, file, index, false, false, /*accessed=*/false)) {
        co_return -ERRNO_ENOMEM;
      }
      n = 1;
    } else if (ra.marks(index + n - 1)) {  // filemap_readahead()
      co_await page_cache_async_ra(t, file, ra, index + n - 1, last - (index + n - 1));
    }
    for (uint64_t i = 0; i < n; ++i) {
      // A page cached before the run began gets its frame now (filemap.h); one in the index is
      // found again at no further cost, once its read is done (filemap_update_page()), and
      // marked accessed unless the read goes on where the last one ended in it.
      const bool accessed = !ra.continues_in_page(std::max(offset, (index + i) * PAGE_SIZE));
      if (!co_await filemap_get_or_add_page(t, file, index + i, false, false, accessed)) {
        co_return -ERRNO_ENOMEM;
      }
    }
    // Each page of the batch; a read's copy_folio_to_iter() of its bytes inside the range.
    const uint64_t from = std::max(offset, index * PAGE_SIZE);
    const uint64_t to = std::min(end, (index + n) * PAGE_SIZE);
    t.work(costs.filemap_read_page * static_cast<int64_t>(n));
    if (copy) {
      t.work(SimTime::ns(costs.file_copy_page.count_ns() * static_cast<int64_t>(to - from) /
                         static_cast<int64_t>(PAGE_SIZE)));
    }
    index += n;
  }
  if (len != 0) ra.read_ended(end);  // ra->prev_pos
  co_return static_cast<int64_t>(len);
}

}  // namespace

// Models mm/filemap.c: filemap_read()
Co<int64_t> filemap_read(Task& t, uint32_t file, uint64_t offset, uint64_t len) {
  return read_pages(t, file, offset, len, /*copy=*/true);
}

// Models mm/filemap.c: filemap_splice_read()
Co<int64_t> filemap_splice_read(Task& t, uint32_t file, uint64_t offset, uint64_t len) {
  return read_pages(t, file, offset, len, /*copy=*/false);
}

}  // namespace mmreplay::kernelsim
