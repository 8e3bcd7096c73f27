#include "kernelsim/mm/filemap.h"

#include <algorithm>
#include <cassert>

#include "kernelsim/kernel/thread.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/mm/rmap_file.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

uint32_t PageCache::find_get_page(uint32_t file, uint64_t index) const {
  return pages_.find(key(file, index));
}

void PageCache::add(uint32_t file, uint64_t index, uint32_t frame) {
  // Only a warm file's pages are asked about (was_ever_cached()): a cold file streamed through
  // the cache (seed 003's writers: 121M pages at full size) must not keep a key per page.
  if (sim_.files().get(file).cached_at_start) ever_cached_.insert(key(file, index), 0);
  const bool inserted = pages_.insert(key(file, index), frame);
  assert(inserted && "invariant (2): two pages at one index");
  (void)inserted;
  if (file >= index_end_.size()) index_end_.resize(file + 1);
  index_end_[file] = std::max(index_end_[file], index + 1);
}

void PageCache::remove(uint32_t file, uint64_t index) {
  const uint32_t f = pages_.erase(key(file, index));
  assert(f != kNoFrame && "invariant (2)");
  assert(mapcount(f) == 0 && "invariant (3): a mapped page left the cache");
  (void)f;
  sim_.cma().file_page_dropped(file, index);
}

std::vector<uint64_t> PageCache::file_pages_from(uint32_t file, uint64_t from) const {
  std::vector<uint64_t> indices;
  if (file >= index_end_.size()) return indices;
  for (uint64_t index = from; index < index_end_[file]; ++index) {
    if (pages_.find(key(file, index)) != kNoFrame) indices.push_back(index);
  }
  return indices;
}

void PageCache::cancel_dirty_page(uint32_t f) {
  PageFrame& pf = sim_.lruvec().frame(f);
  if (!pf.dirty) return;
  pf.dirty = false;  // its dirty_fifo_ entry goes stale
  --nr_dirty_;
}

void PageCache::drop_cached_at_start_from(uint32_t file, uint64_t index) {
  if (file >= cached_at_start_limit_.size()) cached_at_start_limit_.resize(file + 1, ~uint64_t{0});
  cached_at_start_limit_[file] = std::min(cached_at_start_limit_[file], index);
}

void PageCache::page_add_file_rmap(uint32_t f) {
  assert(sim_.lruvec().frame(f).pagecache);
  if (f >= mapcount_.size()) mapcount_.resize(f + 1);
  if (mapcount_[f]++ == 0) ++nr_mapped_;
}

void PageCache::page_remove_file_rmap(uint32_t f) {
  assert(mapcount(f) > 0 && "invariant (3): an unmap of a page no pte maps");
  if (--mapcount_[f] == 0) --nr_mapped_;
}

std::vector<Task*> PageCache::take_read_waiters(uint32_t f) {
  auto it = read_waiters_.find(f);
  if (it == read_waiters_.end()) return {};
  std::vector<Task*> waiters = std::move(it->second);
  read_waiters_.erase(it);
  return waiters;
}

void PageCache::set_page_dirty(uint32_t f) {
  PageFrame& pf = sim_.lruvec().frame(f);
  assert(pf.pagecache);
  if (pf.dirty) return;
  pf.dirty = true;
  ++nr_dirty_;
  pf.dirty_token = ++dirty_token_;
  dirty_fifo_.emplace_back(f, pf.dirty_token);
}

SimTime PageCache::start_page_writeback(uint32_t f, SimTime now) {
  PageFrame& pf = sim_.lruvec().frame(f);
  assert(pf.pagecache && pf.dirty && "invariant (1)");
  if (mapcount(f) != 0) page_mkclean_file(sim_, f);  // clear_page_dirty_for_io()
  pf.dirty = false;
  --nr_dirty_;
  SimTime& busy = device_busy_until_[pf.file];
  busy = max(busy, now) + sim_.costs().writeback_page;
  pf.io_end = busy;
  pf.read_locked = false;  // a page being written is uptodate
  writeback_ends_[pf.file].push_back(busy);
  // The page's buffers are written with it (block_write_full_page(): clear_buffer_dirty()).
  for (const BhKey& k : sim_.buffers().page_buffers(pf.file, pf.addr)) {
    if (BufferHead* bh = sim_.buffers().find(k)) bh->dirty = false;
  }
  ++sim_.vm().nr_writeback_pages;
  return busy;
}

SimTime PageCache::device_read_time(uint64_t pages) const {
  return sim_.costs().page_cache_read_request +
         sim_.costs().page_cache_miss_read * static_cast<int64_t>(pages);
}

SimTime PageCache::queue_device_read(uint32_t file, uint64_t pages, SimTime now) {
  SimTime& busy = device_busy_until_[file];
  busy = max(busy, now) + device_read_time(pages);
  reads_end_ = max(reads_end_, busy);
  return busy;
}

uint64_t PageCache::nr_writeback(SimTime now) const {
  uint64_t n = 0;
  for (auto& [file, ends] : writeback_ends_) {
    while (!ends.empty() && ends.front() <= now) ends.pop_front();  // completed writes
    n += ends.size();
  }
  return n;
}

std::vector<uint32_t> PageCache::oldest_dirty(uint64_t n, uint32_t file) {
  std::vector<uint32_t> out;
  const Lruvec& lru = sim_.lruvec();
  auto stale = [&](const std::pair<uint32_t, uint32_t>& e) {
    const PageFrame& pf = lru.frame(e.first);
    return !pf.pagecache || !pf.dirty || pf.dirty_token != e.second;
  };
  while (!dirty_fifo_.empty() && stale(dirty_fifo_.front())) dirty_fifo_.pop_front();
  for (const auto& e : dirty_fifo_) {
    if (out.size() >= n) break;
    if (stale(e) || (file != 0 && lru.frame(e.first).file != file)) continue;
    out.push_back(e.first);  // one entry per dirtying: the token makes older ones stale
  }
  return out;
}

std::pair<uint64_t, uint64_t> PageCache::dirty_thresholds() const {
  const uint64_t dirtyable = sim_.page_alloc().zone().free_pages + pages_.size();
  return {dirtyable * dirty_background_ratio / 100, dirtyable * vm_dirty_ratio / 100};
}

namespace {

bool over_background(Simulation& sim) {
  return sim.page_cache().nr_dirty() > sim.page_cache().dirty_thresholds().first;
}

// wb_check_background_flush() or wb_check_start_all(): the flusher has writing to do.
bool flusher_has_work(Simulation& sim) {
  return sim.page_cache().flusher_write_all_pages != 0 || over_background(sim);
}

// Models the flusher's sleep (wb_workfn() returning with no work): sleeps unless over the
// background threshold; wakeup_flusher_threads() wakes it.
class FlusherSleep final : public SharedStep {
 public:
  explicit FlusherSleep(Task& t) : SharedStep(t) {}
  bool run_now() override {
    if (flusher_has_work(task_.sim())) return true;
    task_.sim().page_cache().flusher_idle = true;
    task_.sim().sched().sleep(task_);
    return false;
  }
};

// Models wb_workfn() -> wb_writeback(): MAX_WRITEBACK_PAGES per round, oldest dirtied first,
// waiting for each round's writes to complete; a reclaim wakeup's work ends once it wrote as many
// pages as were dirty at the wakeup.
Co<void> flusher(Task& t) {
  Simulation& sim = t.sim();
  PageCache& pc = sim.page_cache();
  for (;;) {
    while (flusher_has_work(sim)) {
      co_await sync_point(t);
      const std::vector<uint32_t> batch = pc.oldest_dirty(MAX_WRITEBACK_PAGES);
      pc.flusher_write_all_pages -= std::min<uint64_t>(pc.flusher_write_all_pages, batch.size());
      if (batch.empty()) {
        pc.flusher_write_all_pages = 0;
        break;
      }
      SimTime done = t.clock();
      for (uint32_t f : batch) done = max(done, pc.start_page_writeback(f, t.clock()));
      t.work(sim.costs().writeback_submit * static_cast<int64_t>(batch.size()));
      if (done > t.clock()) co_await do_sleep(t, done - t.clock());
    }
    co_await FlusherSleep(t);
  }
}

}  // namespace

void wakeup_flusher_threads(Task& t, WbReason reason) {
  Simulation& sim = t.sim();
  PageCache& pc = sim.page_cache();
  if (reason == WbReason::kVmscan)
    pc.flusher_write_all_pages = std::max(pc.flusher_write_all_pages, pc.nr_dirty());
  if (pc.flusher == nullptr) {
    const uint32_t cpu = sim.nr_cpus() > 1 ? sim.nr_cpus() - 2 : 0;  // kswapd has the last one
    pc.flusher = &sim.create_task(cpu, nullptr);
    pc.flusher->kthread = true;
    pc.flusher->start(flusher(*pc.flusher), t.clock());
    return;
  }
  if (!pc.flusher_idle) return;
  pc.flusher_idle = false;
  sim.sched().try_to_wake_up(t, *pc.flusher);
}

namespace {

Co<uint32_t> wait_and_find_get_page(Task& t, uint32_t file, uint64_t index, uint32_t f) {
  PageCache& pc = t.sim().page_cache();
  do {
    co_await wait_on_page_read(t, f);  // returns at a sync point
    f = pc.find_get_page(file, index);
  } while (f != kNoFrame && page_read_in_flight(t.sim().lruvec().frame(f), t.clock()));
  co_return f;
}

// find_get_page() for a caller at a sync point that needs the page uptodate: a page whose read is
// in flight (mm/readahead.h) is waited for (folio_wait_locked()) and looked up again, since
// reclaim may take it once unlocked. No frame when no read is in flight.
Co<uint32_t> find_get_page_uptodate(Task& t, uint32_t file, uint64_t index) {
  const uint32_t f = t.sim().page_cache().find_get_page(file, index);
  if (f == kNoFrame || !page_read_in_flight(t.sim().lruvec().frame(f), t.clock())) {
    return Co<uint32_t>::ready(f);
  }
  return wait_and_find_get_page(t, file, index, f);
}

}  // namespace

uint32_t find_mappable_page(Task& t, uint32_t file, uint64_t index) {
  Simulation& sim = t.sim();
  PageCache& pc = sim.page_cache();
  if (pc.mmap_ra_state(file).marks(index)) return kNoFrame;
  const uint32_t f = pc.find_get_page(file, index);
  if (f != kNoFrame) {
    const bool reading =
        pc.reads_in_flight(t.clock()) && page_read_in_flight(sim.lruvec().frame(f), t.clock());
    return reading ? kNoFrame : f;
  }
  if (!is_cached_at_start_without_frame(sim, file, index) ||
      !sim.page_alloc().take_page_cached_at_start()) {
    return kNoFrame;
  }
  ++sim.vm().pgcache_warm;
  const uint32_t warm = sim.lruvec().page_add_file_frame(file, index, numa_node_id(t), kRootMemcg);
  pc.add(file, index, warm);
  sim.lruvec().add_cached_at_start(warm);
  return warm;
}

Co<bool> pagecache_get_page(Task& t, uint32_t file, uint64_t index, bool write,
                            bool whole_page_write, bool accessed) {
  t.work(t.sim().costs().find_get_page);
  co_return co_await filemap_get_or_add_page(t, file, index, write, whole_page_write, accessed);
}

Co<bool> filemap_get_or_add_page(Task& t, uint32_t file, uint64_t index, bool write,
                                 bool whole_page_write, bool accessed) {
  Simulation& sim = t.sim();
  PageCache& pc = sim.page_cache();
  co_await sync_point(t);  // the mapping's xarray is shared
  uint32_t f = co_await find_get_page_uptodate(t, file, index);
  const bool cached_at_start = f == kNoFrame && is_cached_at_start_without_frame(sim, file, index);
  if (cached_at_start && sim.page_alloc().take_page_cached_at_start()) {
    // Found in the cache (--cache warm): the kernel's lookup, already charged, is all the cost;
    // the model only gives the page its frame now, with no suspension since the lookup.
    ++sim.vm().pgcache_warm;
    f = sim.lruvec().page_add_file_frame(file, index, numa_node_id(t), kRootMemcg);
    pc.add(file, index, f);
    sim.lruvec().add_cached_at_start(f);
    if (write) pc.set_page_dirty(f);
    if (accessed) co_await sim.lruvec().mark_page_accessed(t, f);
    co_return true;
  }
  if (f == kNoFrame) {
    if (!co_await alloc_pages(t, PageUse::kUser)) co_return false;  // t was the OOM victim
    // A page cached before the run was another's charge (the memcg that read it then).
    uint32_t memcg = kRootMemcg;
    if (!cached_at_start && !co_await mem_cgroup_charge_file(t, &memcg)) {
      PageAllocator& pa = sim.page_alloc();  // -ENOMEM from the group: nothing added
      if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
        co_await pa.free_pcppages_bulk(t, n);
      co_return false;
    }
    if (cached_at_start) {
      // The page was in the cache before the run began (--cache warm), but memory is short now:
      // it gets a frame as a new page would, with no device read. Once dropped, it is read
      // again.
      ++sim.vm().pgcache_warm;
    } else if (!whole_page_write) {  // mpage_readpage(): the page is read from the device first
      ++sim.vm().pgcache_miss;
      co_await do_sleep(t, pc.device_read_time(1));
    }
    co_await sync_point(t);
    f = pc.find_get_page(file, index);
    if (f != kNoFrame) {  // another task added it meanwhile: ours goes back
      PageAllocator& pa = sim.page_alloc();
      co_await mem_cgroup_uncharge_list(t, memcg, 1);
      if (const uint32_t n = pa.free_page_fast(t, PageUse::kUser))
        co_await pa.free_pcppages_bulk(t, n);
      co_await sync_point(t);
      f = co_await find_get_page_uptodate(t, file, index);
      // Taken again meanwhile (reclaim, truncation): start over with a page and charge of our
      // own (this one went back with its charge).
      if (f == kNoFrame) {
        co_return co_await filemap_get_or_add_page(t, file, index, write, whole_page_write,
                                                   accessed);
      }
    } else {  // add_to_page_cache_lru()
      f = sim.lruvec().page_add_file_frame(file, index, numa_node_id(t), memcg);
      pc.add(file, index, f);
      if (write) pc.set_page_dirty(f);
      sim.lruvec().frame(f).referenced = accessed;  // __SetPageReferenced() before the add
      co_await sim.lruvec().lru_cache_add(t, f);
      co_return true;
    }
  }
  if (write) pc.set_page_dirty(f);  // no suspension since the lookup: f is still this page
  if (accessed) co_await sim.lruvec().mark_page_accessed(t, f);
  co_return true;
}

bool is_page_cached(const Simulation& sim, uint32_t file, uint64_t index) {
  return sim.page_cache().find_get_page(file, index) != kNoFrame ||
         is_cached_at_start_without_frame(sim, file, index);
}

bool is_cached_at_start_without_frame(const Simulation& sim, uint32_t file, uint64_t index) {
  const PageCache& pc = sim.page_cache();
  return sim.files().get(file).cached_at_start && index < pc.cached_at_start_limit(file) &&
         !pc.was_ever_cached(file, index);
}

Co<void> balance_dirty_pages_ratelimited(Task& t) {
  Simulation& sim = t.sim();
  PageCache& pc = sim.page_cache();
  co_await sync_point(t);
  if (over_background(sim)) wakeup_flusher_threads(t);
  for (;;) {
    const uint64_t thresh = pc.dirty_thresholds().second;
    const uint64_t dirty = pc.nr_dirty() + pc.nr_writeback(t.clock());
    if (dirty <= thresh) break;
    // Models balance_dirty_pages(): a pause sized to the excess at the device's speed.
    const SimTime pause = min(SimTime::ns(MAX_PAUSE_NS),
                              sim.costs().writeback_page * static_cast<int64_t>(dirty - thresh));
    ++sim.vm().dirty_throttle_pauses;
    co_await do_sleep(t, pause);
    co_await sync_point(t);
    wakeup_flusher_threads(t);
  }
}

SimTime PageCache::writes_done(uint32_t file, SimTime now) const {
  const auto it = writeback_ends_.find(file);
  // The device serves its queue in order: the last write queued ends last.
  if (it == writeback_ends_.end() || it->second.empty()) return now;
  return max(it->second.back(), now);
}

}  // namespace mmreplay::kernelsim
