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

uint64_t JemallocArena::first_run_of(uint64_t chunk) const {
  return chunk + kChunkHeaderPages * kPageSize;
}

void JemallocArena::insert_run(uint64_t addr, uint64_t pages, bool dirty, uint64_t seq) {
  runs_[addr] = FreeRun{pages, dirty, seq};
  avail_.emplace(pages, addr);
  if (dirty) {
    dirty_lru_[seq] = DirtyRef{addr, false};
    ndirty_ += pages;
  }
}

// Also removes the spare's run, which is not in avail_.
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
uint64_t JemallocArena::insert_coalesced(uint64_t addr, uint64_t pages, bool dirty) {
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
  return addr;
}

// arena_chunk_dalloc(): a chunk with nothing allocated leaves runs_avail and becomes the spare;
// the spare it displaces leaves the dirty LRU (arena_run_dirty_remove()) and goes to the cache
// whole, dirty or clean (chunk_dalloc_cache()).
void JemallocArena::maybe_dalloc_chunk(uint64_t run) {
  if (!config_.chunk_cache) return;
  const uint64_t pages = runs_.at(run).pages;
  if (pages != usable_pages()) return;
  assert(spare_ != chunk_of(run) && "the spare's run is never given back");
  avail_.erase({pages, run});
  if (spare_ != 0) {
    remove_run(first_run_of(spare_));
    cache_extent(spare_, config_.chunk_bytes);
  }
  spare_ = chunk_of(run);
}

// arena_chunk_init_spare(): the spare's run is offered again, as dirty or clean as it was.
void JemallocArena::make_spare_available() {
  uint64_t run = first_run_of(spare_);
  avail_.emplace(runs_.at(run).pages, run);
  spare_ = 0;
}

bool JemallocArena::alloc_chunk() {
  if (spare_ != 0) {
    make_spare_available();
    return true;
  }
  uint64_t chunk = config_.chunk_cache ? take_cached(config_.chunk_bytes) : 0;
  if (chunk == 0) {
    chunk = source_->map_chunk(config_.chunk_bytes, config_.chunk_bytes);
    if (chunk == 0) return false;
    mapped_bytes_ += config_.chunk_bytes;
  }
  // arena_chunk_init_hard(): the run starts clean; a recycled chunk's pages are only "unzeroed".
  insert_run(first_run_of(chunk), usable_pages(), false, 0);
  return true;
}

uint64_t JemallocArena::cached_bytes() const {
  uint64_t bytes = 0;
  for (const auto& [addr, extent] : cache_) bytes += extent.bytes;
  return bytes;
}

// chunk_record(): coalesce with the cached extents on either side (chunk_hooks->merge() always
// succeeds for mmap'd chunks on Linux); the merged extent is appended to the dirty LRU
// (arena_chunk_cache_maybe_remove() + arena_chunk_cache_maybe_insert()).
void JemallocArena::cache_extent(uint64_t addr, uint64_t bytes) {
  if (auto next = cache_.find(addr + bytes); next != cache_.end()) {
    bytes += next->second.bytes;
    remove_cached(next->first);
  }
  if (auto after = cache_.lower_bound(addr); after != cache_.begin()) {
    auto prev = std::prev(after);
    if (prev->first + prev->second.bytes == addr) {
      addr = prev->first;
      bytes += prev->second.bytes;
      remove_cached(addr);
    }
  }
  uint64_t seq = next_seq_++;
  cache_[addr] = CachedExtent{bytes, seq};
  dirty_lru_[seq] = DirtyRef{addr, true};
  ndirty_ += bytes / kPageSize;
}

void JemallocArena::remove_cached(uint64_t addr) {
  auto it = cache_.find(addr);
  assert(it != cache_.end());
  dirty_lru_.erase(it->second.seq);
  ndirty_ -= it->second.bytes / kPageSize;
  cache_.erase(it);
}

// chunk_recycle() from the cached trees: the smallest extent that fits, the lowest address among
// equals (extent_tree_szad_nsearch()); it is chunk-aligned, so the leading chunk is taken and the
// trailing rest goes back to the cache.
uint64_t JemallocArena::take_cached(uint64_t bytes) {
  auto best = cache_.end();
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->second.bytes >= bytes &&
        (best == cache_.end() || it->second.bytes < best->second.bytes))
      best = it;
  }
  if (best == cache_.end()) return 0;
  uint64_t addr = best->first;
  uint64_t extent = best->second.bytes;
  remove_cached(addr);
  if (extent > bytes) cache_extent(addr + bytes, extent - bytes);
  return addr;
}

// huge_palloc() -> arena_chunk_alloc_huge(): a chunk-aligned extent of whole chunks, from the
// cache first; its pages count as active.
uint64_t JemallocArena::allocate_huge(uint64_t bytes) {
  uint64_t len = (bytes + config_.chunk_bytes - 1) & ~(config_.chunk_bytes - 1);
  uint64_t addr = config_.chunk_cache ? take_cached(len) : 0;
  if (addr == 0) {
    addr = source_->map_chunk(len, config_.chunk_bytes);
    if (addr == 0) return 0;
    mapped_bytes_ += len;
  }
  const uint64_t pages = config_.chunk_cache ? pages_for(bytes) : 0;
  huge_[addr] = HugeExtent{len, pages};
  nactive_ += pages;
  return addr;
}

uint64_t JemallocArena::allocate(uint64_t bytes) {
  assert(bytes > 0);
  uint64_t pages = pages_for(bytes);
  if (pages > usable_pages()) return allocate_huge(bytes);
  auto best = avail_.lower_bound({pages, 0});
  if (best == avail_.end()) {
    if (!alloc_chunk()) return 0;
    best = avail_.lower_bound({pages, 0});
    assert(best != avail_.end());
  }
  uint64_t addr = best->second;
  FreeRun run = remove_run(addr);
  // arena_run_split_remove(): the rest of a dirty run goes back to the young end of the LRU.
  if (run.pages > pages)
    insert_run(addr + pages * kPageSize, run.pages - pages, run.dirty, run.dirty ? next_seq_++ : 0);
  nactive_ += pages;
  return addr;
}

void JemallocArena::deallocate(uint64_t addr, uint64_t bytes, std::vector<PurgePass>* passes) {
  if (auto huge = huge_.find(addr); huge != huge_.end()) {
    // The extent's own record, not the caller's size (jemalloc reads its extent node).
    const HugeExtent extent = huge->second;
    huge_.erase(huge);
    nactive_ -= extent.pages;
    if (!config_.chunk_cache) {
      source_->unmap_chunk(addr, extent.bytes);
      mapped_bytes_ -= extent.bytes;
      return;
    }
    // arena_chunk_dalloc_huge() -> chunk_dalloc_cache(), which purges if that passes the
    // threshold.
    cache_extent(addr, extent.bytes);
    maybe_purge(passes);
    return;
  }
  uint64_t pages = pages_for(bytes);
  assert(nactive_ >= pages);
  nactive_ -= pages;
  free_pages(addr, pages, passes);
}

// arena_run_dalloc(): the run joins its dirty neighbours, its chunk may be deallocated, then
// arena_maybe_purge().
void JemallocArena::free_pages(uint64_t addr, uint64_t pages, std::vector<PurgePass>* passes) {
  maybe_dalloc_chunk(insert_coalesced(addr, pages, /*dirty=*/true));
  maybe_purge(passes);
}

uint64_t JemallocArena::purge_threshold() const {
  uint64_t threshold = nactive_ >> config_.lg_dirty_mult;
  if (config_.chunk_floor && threshold < chunk_pages()) threshold = chunk_pages();
  return threshold;
}

// arena_maybe_purge(): purge while dirty pages exceed the threshold. A pass ends at or below it
// unless giving its runs back pushed a spare into the cache; then another pass follows.
void JemallocArena::maybe_purge(std::vector<PurgePass>* passes) {
  while (ndirty_ > purge_threshold() && !dirty_lru_.empty()) purge_pass(passes);
}

// arena_purge(): ask for arena_compute_npurge() pages; stash the oldest dirty runs and cached
// extents until at least that many are gathered (arena_stash_dirty(): whole entries, so a pass
// may overshoot); purge each stashed run (arena_purge_stashed() -> pages_purge()); then unmap
// each stashed extent and give each run back clean, in stash order (arena_unstash_purged()).
void JemallocArena::purge_pass(std::vector<PurgePass>* passes) {
  const uint64_t threshold = purge_threshold();
  uint64_t target = ndirty_ - threshold;
  if (config_.purge_rule == PurgeRule::kAtLeastHalf) target = std::max(target, ndirty_ / 2);
  struct Stashed {
    Range range;
    bool cached_extent = false;
  };
  std::vector<Stashed> stashed;
  uint64_t gathered = 0;
  while (gathered < target && !dirty_lru_.empty()) {
    const DirtyRef entry = dirty_lru_.begin()->second;
    if (entry.cached_extent) {
      uint64_t bytes = cache_.at(entry.addr).bytes;
      remove_cached(entry.addr);
      stashed.push_back({Range{entry.addr, bytes}, true});
      gathered += bytes / kPageSize;
      continue;
    }
    // "If purging the spare chunk's run, make it available prior to allocation."
    if (spare_ != 0 && chunk_of(entry.addr) == spare_) make_spare_available();
    FreeRun run = remove_run(entry.addr);
    stashed.push_back({Range{entry.addr, run.pages * kPageSize}, false});
    gathered += run.pages;
  }
  // The pass's madvises all come before its munmaps (PurgePass), so one walk in stash order
  // records both and does the unstashing.
  PurgePass& pass = passes->emplace_back();
  for (const Stashed& s : stashed) {
    if (s.cached_extent) {
      pass.unmapped.push_back(s.range);
      mapped_bytes_ -= s.range.len;
    } else {
      pass.purged.push_back(s.range);
      maybe_dalloc_chunk(insert_coalesced(s.range.addr, s.range.len / kPageSize, /*dirty=*/false));
    }
  }
}

bool JemallocArena::resize_in_place(uint64_t addr, uint64_t old_bytes, uint64_t new_bytes,
                                    std::vector<PurgePass>* passes) {
  if (huge_.count(addr) != 0) return false;
  uint64_t old_pages = pages_for(old_bytes);
  uint64_t new_pages = pages_for(new_bytes);
  if (new_pages == old_pages) return true;
  if (new_pages < old_pages) {
    // arena_ralloc_large_shrink(): the tail becomes a dirty free run.
    nactive_ -= old_pages - new_pages;
    free_pages(addr + new_pages * kPageSize, old_pages - new_pages, passes);
    return true;
  }
  // arena_ralloc_large_grow(): take the front of the free run that follows, if big enough.
  uint64_t extra = new_pages - old_pages;
  if (new_pages > usable_pages()) return false;
  uint64_t tail = addr + old_pages * kPageSize;
  auto next = runs_.find(tail);
  if (next == runs_.end() || chunk_of(tail) != chunk_of(addr) || next->second.pages < extra) {
    return false;
  }
  FreeRun run = remove_run(tail);
  if (run.pages > extra)
    insert_run(tail + extra * kPageSize, run.pages - extra, run.dirty, run.dirty ? next_seq_++ : 0);
  nactive_ += extra;
  return true;
}

bool JemallocArena::check_invariants() const {
  uint64_t dirty = 0;
  uint64_t dirty_entries = 0;
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
      ++dirty_entries;
      dirty += run.pages;
      auto lru = dirty_lru_.find(run.seq);
      if (lru == dirty_lru_.end() || lru->second.addr != addr || lru->second.cached_extent)
        return false;  // (3)
    }
    if (addr < first_run_of(chunk_of(addr))) return false;  // (1) in a chunk's header
    const bool offered = avail_.count({run.pages, addr}) != 0;
    if (offered == (spare_ != 0 && chunk_of(addr) == spare_)) return false;  // (4)
    prev_end = end;
    prev_dirty = run.dirty;
  }
  if (spare_ != 0) {
    if (spare_ % config_.chunk_bytes != 0) return false;  // (4)
    auto spare_run = runs_.find(first_run_of(spare_));
    if (spare_run == runs_.end() || spare_run->second.pages != usable_pages()) return false;  // (4)
  }
  uint64_t cached_end = 0;
  for (const auto& [addr, extent] : cache_) {
    if (addr % config_.chunk_bytes != 0 || extent.bytes % config_.chunk_bytes != 0) return false;
    if (addr <= cached_end && cached_end != 0) return false;  // (5) adjacent or overlapping
    auto run = runs_.lower_bound(addr);
    if (run != runs_.end() && run->first < addr + extent.bytes) return false;  // (5)
    if (spare_ >= addr && spare_ < addr + extent.bytes) return false;          // (5)
    auto huge = huge_.lower_bound(addr);
    if (huge != huge_.end() && huge->first < addr + extent.bytes) return false;  // (5)
    if (huge != huge_.begin() && std::prev(huge)->first + std::prev(huge)->second.bytes > addr)
      return false;  // (5)
    auto lru = dirty_lru_.find(extent.seq);
    if (lru == dirty_lru_.end() || lru->second.addr != addr || !lru->second.cached_extent)
      return false;  // (3)
    ++dirty_entries;
    dirty += extent.bytes / kPageSize;
    cached_end = addr + extent.bytes;
  }
  return dirty == ndirty_ && dirty_entries == dirty_lru_.size() &&
         avail_.size() + (spare_ != 0 ? 1 : 0) == runs_.size();
}

}  // namespace mmreplay::gen
