// The jemalloc 4.0 arena model; see jemalloc_model.h for what is modelled and why.

#include "tools/gen/jemalloc_model.h"

#include <algorithm>
#include <cassert>
#include <iterator>

#include "tools/gen/params.h"

namespace mmreplay::gen {

using formats::Range;

JemallocArena::JemallocArena(ArenaConfig config, ChunkSource* source)
    : config_(config), source_(source) {
  assert(config_.chunk_bytes % kPageSize == 0 &&
         (config_.chunk_bytes & (config_.chunk_bytes - 1)) == 0);
  assert(chunk_pages() > kChunkHeaderPages);
}

uint64_t JemallocArena::pages_for(uint64_t bytes) {
  return (bytes + kPageSize - 1) / kPageSize;
}

uint64_t JemallocArena::chunk_pages() const {
  return config_.chunk_bytes / kPageSize;
}

void JemallocArena::insert_run(uint64_t addr, uint64_t pages, bool dirty, uint64_t seq) {
  runs_[addr] = FreeRun{pages, dirty, seq};
  avail_.emplace(pages, addr);
  if (dirty) {
    dirty_lru_[seq] = addr;
    ndirty_ += pages;
  }
}

JemallocArena::FreeRun JemallocArena::remove_run(uint64_t addr) {
  auto it = runs_.find(addr);
  assert(it != runs_.end());
  FreeRun run = it->second;
  runs_.erase(it);
  avail_.erase({run.pages, addr});
  if (run.dirty) {
    dirty_lru_.erase(run.seq);
    ndirty_ -= run.pages;
  }
  return run;
}

// arena_run_coalesce(): merge with the neighbours of the same state inside the chunk. The merged
// dirty run goes to the young end of the LRU, as arena_run_dirty_insert() appends it.
void JemallocArena::insert_coalesced(uint64_t addr, uint64_t pages, bool dirty) {
  uint64_t chunk = chunk_of(addr);
  auto next = runs_.find(addr + pages * kPageSize);
  if (next != runs_.end() && chunk_of(next->first) == chunk && next->second.dirty == dirty) {
    pages += remove_run(next->first).pages;
  }
  auto after = runs_.lower_bound(addr);
  if (after != runs_.begin()) {
    auto prev = std::prev(after);
    if (prev->first + prev->second.pages * kPageSize == addr && chunk_of(prev->first) == chunk &&
        prev->second.dirty == dirty) {
      uint64_t prev_addr = prev->first;
      pages += remove_run(prev_addr).pages;
      addr = prev_addr;
    }
  }
  insert_run(addr, pages, dirty, dirty ? next_seq_++ : 0);
}

bool JemallocArena::map_new_chunk() {
  uint64_t chunk = source_->map_chunk(config_.chunk_bytes, config_.chunk_bytes);
  if (chunk == 0) return false;
  ++chunks_;
  insert_run(chunk + kChunkHeaderPages * kPageSize, chunk_pages() - kChunkHeaderPages, false, 0);
  return true;
}

uint64_t JemallocArena::allocate(uint64_t bytes) {
  assert(bytes > 0);
  uint64_t pages = pages_for(bytes);
  if (pages > chunk_pages() - kChunkHeaderPages) {
    // Huge allocation: its own chunk-aligned mapping (huge_palloc()).
    uint64_t len = (bytes + config_.chunk_bytes - 1) & ~(config_.chunk_bytes - 1);
    uint64_t addr = source_->map_chunk(len, config_.chunk_bytes);
    if (addr != 0) huge_[addr] = len;
    return addr;
  }
  auto best = avail_.lower_bound({pages, 0});
  if (best == avail_.end()) {
    if (!map_new_chunk()) return 0;
    best = avail_.lower_bound({pages, 0});
    assert(best != avail_.end());
  }
  uint64_t addr = best->second;
  FreeRun run = remove_run(addr);
  if (run.pages > pages)
    insert_run(addr + pages * kPageSize, run.pages - pages, run.dirty, run.seq);
  nactive_ += pages;
  return addr;
}

void JemallocArena::deallocate(uint64_t addr, uint64_t bytes, std::vector<Range>* purged) {
  if (auto huge = huge_.find(addr); huge != huge_.end()) {
    source_->unmap_chunk(addr, huge->second);
    huge_.erase(huge);
    return;
  }
  uint64_t pages = pages_for(bytes);
  assert(nactive_ >= pages);
  nactive_ -= pages;
  free_pages(addr, pages, purged);
}

void JemallocArena::free_pages(uint64_t addr, uint64_t pages, std::vector<Range>* purged) {
  insert_coalesced(addr, pages, /*dirty=*/true);
  maybe_purge(purged);
}

uint64_t JemallocArena::purge_threshold() const {
  uint64_t threshold = nactive_ >> config_.lg_dirty_mult;
  if (config_.chunk_floor && threshold < chunk_pages()) threshold = chunk_pages();
  return threshold;
}

// arena_maybe_purge(): purge only when dirty pages exceed the threshold. arena_purge(): ask for
// arena_compute_npurge() pages, stash the oldest dirty runs until at least that many are
// gathered (arena_stash_dirty(): whole runs, so a pass may overshoot), then purge each stashed
// run (arena_purge_stashed() -> pages_purge()). One pass always ends at or below the threshold,
// so arena_maybe_purge()'s loop runs it once.
void JemallocArena::maybe_purge(std::vector<Range>* purged) {
  const uint64_t threshold = purge_threshold();
  if (ndirty_ <= threshold) return;
  uint64_t target = ndirty_ - threshold;
  if (config_.purge_rule == PurgeRule::kAtLeastHalf) target = std::max(target, ndirty_ / 2);
  uint64_t gathered = 0;
  while (gathered < target && !dirty_lru_.empty()) {
    uint64_t addr = dirty_lru_.begin()->second;
    FreeRun run = remove_run(addr);
    purged->push_back(Range{addr, run.pages * kPageSize});
    gathered += run.pages;
    insert_coalesced(addr, run.pages, /*dirty=*/false);
  }
}

bool JemallocArena::resize_in_place(uint64_t addr, uint64_t old_bytes, uint64_t new_bytes,
                                    std::vector<Range>* purged) {
  if (huge_.count(addr) != 0) return false;
  uint64_t old_pages = pages_for(old_bytes);
  uint64_t new_pages = pages_for(new_bytes);
  if (new_pages == old_pages) return true;
  if (new_pages < old_pages) {
    // arena_ralloc_large_shrink(): the tail becomes a dirty free run.
    nactive_ -= old_pages - new_pages;
    free_pages(addr + new_pages * kPageSize, old_pages - new_pages, purged);
    return true;
  }
  // arena_ralloc_large_grow(): take the front of the free run that follows, if big enough.
  uint64_t extra = new_pages - old_pages;
  if (new_pages > chunk_pages() - kChunkHeaderPages) return false;
  uint64_t tail = addr + old_pages * kPageSize;
  auto next = runs_.find(tail);
  if (next == runs_.end() || chunk_of(tail) != chunk_of(addr) || next->second.pages < extra) {
    return false;
  }
  FreeRun run = remove_run(tail);
  if (run.pages > extra)
    insert_run(tail + extra * kPageSize, run.pages - extra, run.dirty, run.seq);
  nactive_ += extra;
  return true;
}

bool JemallocArena::check_invariants() const {
  uint64_t dirty = 0;
  uint64_t dirty_runs = 0;
  uint64_t prev_end = 0;
  bool prev_dirty = false;
  for (const auto& [addr, run] : runs_) {
    uint64_t end = addr + run.pages * kPageSize;
    if (run.pages == 0 || addr < prev_end) return false;    // (1) overlap
    if (chunk_of(addr) != chunk_of(end - 1)) return false;  // (1) crosses a chunk
    if (addr == prev_end && chunk_of(addr) == chunk_of(prev_end - 1) && run.dirty == prev_dirty) {
      return false;  // (2) unmerged
    }
    if (run.dirty) {
      ++dirty_runs;
      dirty += run.pages;
      auto lru = dirty_lru_.find(run.seq);
      if (lru == dirty_lru_.end() || lru->second != addr) return false;  // (3)
    }
    prev_end = end;
    prev_dirty = run.dirty;
  }
  return dirty == ndirty_ && dirty_runs == dirty_lru_.size() && avail_.size() == runs_.size();
}

}  // namespace mmreplay::gen
