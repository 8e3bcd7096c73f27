#include "kernelsim/mm/readahead.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <utility>
#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/fs/file.h"
#include "kernelsim/kernel/thread.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/mm/page_alloc.h"
#include "kernelsim/sched/core.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/sim/task.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// ondemand_readahead(): "If the request exceeds the readahead window, allow the read to be up to
// the optimal hardware IO size" (bdi->io_pages).
uint64_t max_ra_pages(uint64_t ra_pages, uint64_t req) {
  constexpr uint64_t io_pages = BLK_DEF_MAX_SECTORS >> (PAGE_SHIFT - SECTOR_SHIFT);
  return req > ra_pages && io_pages > ra_pages ? std::min(req, io_pages) : ra_pages;
}

// The page beyond the file's end, or 0 when the trace gives no size.
uint64_t eof_index(const Simulation& sim, uint32_t file) {
  const uint64_t size = sim.files().get(file).size_bytes;
  return (size + PAGE_SIZE - 1) / PAGE_SIZE;
}

// Models folio_wait_locked() before the read is submitted: asleep on the page until the
// submitter wakes it at the read's completion.
class ReadSubmitWait final : public SharedStep {
 public:
  ReadSubmitWait(Task& t, uint32_t f) : SharedStep(t), f_(f) {}
  bool run_now() override {
    const PageFrame& pf = task_.sim().lruvec().frame(f_);
    if (!pf.read_locked || pf.io_end != SimTime::infinite()) return true;
    task_.sim().page_cache().add_read_waiter(f_, &task_);
    task_.sim().sched().sleep(task_);
    return false;
  }

 private:
  uint32_t f_;
};

// Models read_pages(): the batch's read is submitted now, queued on the file's device behind its
// other I/O (so windows in flight together share its bandwidth), and completes for all its pages
// at once; whoever waits for one of them wakes then. REQUIRES: t at a sync point.
void read_pages(Task& t, uint32_t file, std::vector<uint32_t>* batch) {
  if (batch->empty()) return;
  Simulation& sim = t.sim();
  const SimTime done = sim.page_cache().queue_device_read(file, batch->size(), t.clock());
  sim.page_cache().read_pages_submitted(batch->size());
  for (uint32_t f : *batch) {
    PageFrame& pf = sim.lruvec().frame(f);
    assert(pf.pagecache && pf.read_locked && "a page being read stays in the cache (locked)");
    pf.io_end = done;
    for (Task* w : sim.page_cache().take_read_waiters(f))
      sim.events().schedule(done, w, Task::kWake);
  }
  ++sim.vm().ra_windows;
  batch->clear();
}

// Models page_cache_ra_unbounded(): the missing pages of [start, start + nr) are allocated, added
// to the cache locked and read, the page `nr - lookahead` is marked for the next window (in `ra`,
// when given). A page already in the cache splits the read (read_pages() of what came before).
Co<void> page_cache_ra_unbounded(Task& t, uint32_t file, uint64_t start, uint64_t nr,
                                 uint64_t lookahead, FileRaState* ra) {
  Simulation& sim = t.sim();
  PageCache& pc = sim.page_cache();
  PageAllocator& pa = sim.page_alloc();
  std::vector<uint32_t> batch;
  for (uint64_t i = 0; i < nr; ++i) {
    const uint64_t index = start + i;
    co_await sync_point(t);  // the mapping's xarray is shared
    if (is_page_cached(sim, file, index)) {
      read_pages(t, file, &batch);
      continue;
    }
    if (!co_await alloc_pages(t, PageUse::kUser, AllocGfp::kNoRetry)) break;  // the window ends
    uint32_t memcg = kRootMemcg;
    if (!co_await mem_cgroup_charge_file(t, &memcg, /*noretry=*/true)) {
      // filemap_add_folio() failed: that page is skipped, the window goes on.
      if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
        co_await pa.free_pcppages_bulk(t, n);
      co_await sync_point(t);
      read_pages(t, file, &batch);
      continue;
    }
    co_await sync_point(t);
    if (is_page_cached(sim, file, index)) {  // another reader added it meanwhile: ours goes back
      co_await mem_cgroup_uncharge_list(t, memcg, 1);
      if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
        co_await pa.free_pcppages_bulk(t, n);
      co_await sync_point(t);
      read_pages(t, file, &batch);
      continue;
    }
    const uint32_t f = sim.lruvec().page_add_file_frame(file, index, numa_node_id(t), memcg);
    PageFrame& pf = sim.lruvec().frame(f);
    pf.read_locked = true;
    pf.io_end = SimTime::infinite();  // until read_pages()
    pc.read_page_added();
    pc.add(file, index, f);
    ++sim.vm().pgcache_miss;
    if (ra != nullptr && lookahead != 0 && i == nr - lookahead) ra->marked = true;
    batch.push_back(f);
    co_await sim.lruvec().lru_cache_add(t, f);  // the page is locked: it stays this page
  }
  co_await sync_point(t);
  read_pages(t, file, &batch);
}

// Models do_page_cache_ra(): the window cut at the file's end.
Co<void> do_page_cache_ra(Task& t, uint32_t file, uint64_t start, uint64_t nr, uint64_t lookahead,
                          FileRaState* ra) {
  if (const uint64_t eof = eof_index(t.sim(), file); eof != 0) {
    if (start >= eof) co_return;
    nr = std::min(nr, eof - start);  // a lookahead beyond it marks no page, as in the kernel
  }
  if (nr == 0) co_return;
  co_await page_cache_ra_unbounded(t, file, start, nr, lookahead, ra);
}

// Models ondemand_readahead() from `index`, after a miss there (sync) or at the marked page
// (`hit_marker`): moves the window and reads it.
Co<void> ondemand_readahead(Task& t, uint32_t file, FileRaState& ra, bool hit_marker,
                            uint64_t index, uint64_t req) {
  const uint64_t max = max_ra_pages(bdi_ra_pages(t.sim(), file), req);
  if (index != 0 && (index == ra.start + ra.size - ra.async_size || index == ra.start + ra.size)) {
    // The expected index: sequential. Ramp the window up and push it forward.
    ra.start += ra.size;
    ra.size = get_next_ra_size(ra.size, max);
    ra.async_size = ra.size;
  } else if (index != 0 && hit_marker) {
    co_return;  // a marked page the state no longer matches: the model keeps no page flag
  } else if (index != 0 && req <= max && index - ra.prev_index() > 1) {
    // Neither an oversize read nor a miss just after the last read (index - prev_index <= 1,
    // taken unsigned as the kernel does): read as it is, the state left alone.
    co_await do_page_cache_ra(t, file, index, req, 0, nullptr);
    co_return;
  } else {  // initial_readahead: the start of the file, an oversize or a sequential read
    ra.start = index;
    ra.size = get_init_ra_size(req, max);
    ra.async_size = ra.size > req ? ra.size - req : ra.size;
  }
  // readit: a read that would hit its own window's mark at once takes the next window now.
  if (index == ra.start && ra.size == ra.async_size) {
    const uint64_t add = get_next_ra_size(ra.size, max);
    if (ra.size + add <= max) {
      ra.async_size = add;
      ra.size += add;
    } else {
      ra.size = max;
      ra.async_size = max >> 1;
    }
  }
  ra.marked = false;
  co_await do_page_cache_ra(t, file, ra.start, ra.size, ra.async_size, &ra);
}

}  // namespace

uint64_t bdi_ra_pages(const Simulation& sim, uint32_t file) {
  const int32_t device_kb = sim.files().get(file).read_ahead_kb;
  const uint64_t kb =
      device_kb >= 0 ? static_cast<uint64_t>(device_kb) : sim.config().read_ahead_kb;
  return kb * 1024 / PAGE_SIZE;
}

Co<void> ra_submit(Task& t, uint32_t file, FileRaState& ra) {
  ra.marked = false;
  co_await do_page_cache_ra(t, file, ra.start, ra.size, ra.async_size, &ra);
}

uint64_t get_init_ra_size(uint64_t size, uint64_t max) {
  uint64_t newsize = std::bit_ceil(std::max<uint64_t>(size, 1));  // roundup_pow_of_two()
  if (newsize <= max / 32) return newsize * 4;
  if (newsize <= max / 4) return newsize * 2;
  return max;
}

uint64_t get_next_ra_size(uint64_t cur, uint64_t max) {
  if (cur < max / 16) return 4 * cur;
  if (cur <= max / 2) return 2 * cur;
  return max;
}

Co<void> page_cache_sync_ra(Task& t, uint32_t file, FileRaState& ra, uint64_t index, uint64_t req) {
  if (bdi_ra_pages(t.sim(), file) == 0) {
    // "Even if read-ahead is disabled, issue this request as read-ahead": one page.
    co_await do_page_cache_ra(t, file, index, 1, 0, nullptr);
    co_return;
  }
  co_await ondemand_readahead(t, file, ra, /*hit_marker=*/false, index, req);
}

Co<void> page_cache_async_ra(Task& t, uint32_t file, FileRaState& ra, uint64_t index,
                             uint64_t req) {
  assert(ra.marks(index));
  ra.marked = false;  // folio_clear_readahead()
  ++t.sim().vm().ra_async;
  co_await ondemand_readahead(t, file, ra, /*hit_marker=*/true, index, req);
}

bool page_read_in_flight(const PageFrame& pf, SimTime now) {
  return pf.read_locked && pf.io_end > now;
}

Co<void> wait_on_page_read(Task& t, uint32_t f) {
  Simulation& sim = t.sim();
  bool counted = false;
  for (;;) {
    co_await sync_point(t);  // the page's flags are shared
    const PageFrame& pf = sim.lruvec().frame(f);
    if (!page_read_in_flight(pf, t.clock())) co_return;
    if (!std::exchange(counted, true)) ++sim.vm().ra_page_waits;
    if (pf.io_end == SimTime::infinite()) {
      co_await ReadSubmitWait(t, f);
    } else {
      co_await do_sleep(t, pf.io_end - t.clock());
    }
  }
}

}  // namespace mmreplay::kernelsim
