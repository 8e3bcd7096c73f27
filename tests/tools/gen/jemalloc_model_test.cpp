// The jemalloc arena model: runs inside aligned chunks, dirty accounting, the purge threshold
// (dirty > active >> lg_dirty_mult, floor one chunk), oldest-first purging, coalescing rules.

#include "tools/gen/jemalloc_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "tools/gen/params.h"
#include "tools/gen/prng.h"

namespace mmreplay::gen {
namespace {

using formats::Range;

// Hands out chunk-aligned addresses from a fixed base and records what was mapped.
class FakeSource final : public ChunkSource {
 public:
  uint64_t map_chunk(uint64_t bytes, uint64_t align) override {
    next_ = (next_ + align - 1) & ~(align - 1);
    uint64_t addr = next_;
    next_ += bytes;
    mapped.push_back(Range{addr, bytes});
    return addr;
  }
  void unmap_chunk(uint64_t addr, uint64_t bytes) override {
    unmapped.push_back(Range{addr, bytes});
  }
  std::vector<Range> mapped;
  std::vector<Range> unmapped;

 private:
  uint64_t next_ = 0x100000000000ull;
};

constexpr uint64_t kChunk = kJemallocChunkBytes;
constexpr uint64_t kChunkPages = kChunk / kPageSize;
constexpr uint64_t kUsablePages = kChunkPages - kChunkHeaderPages;

// The madvise ranges of a call's purge passes, in order (what most tests look at).
void free_run(JemallocArena& arena, uint64_t addr, uint64_t bytes, std::vector<Range>* purged) {
  std::vector<PurgePass> passes;
  arena.deallocate(addr, bytes, &passes);
  for (const PurgePass& pass : passes)
    purged->insert(purged->end(), pass.purged.begin(), pass.purged.end());
}

bool resize(JemallocArena& arena, uint64_t addr, uint64_t old_bytes, uint64_t new_bytes,
            std::vector<Range>* purged) {
  std::vector<PurgePass> passes;
  bool in_place = arena.resize_in_place(addr, old_bytes, new_bytes, &passes);
  for (const PurgePass& pass : passes)
    purged->insert(purged->end(), pass.purged.begin(), pass.purged.end());
  return in_place;
}

TEST(JemallocArena, FirstAllocationMapsAnAlignedChunkAndSkipsTheHeader) {
  FakeSource source;
  JemallocArena arena(ArenaConfig{}, &source);
  uint64_t addr = arena.allocate(3 * kPageSize);
  ASSERT_EQ(source.mapped.size(), 1u);
  EXPECT_EQ(source.mapped[0].addr % kChunk, 0u);
  EXPECT_EQ(source.mapped[0].len, kChunk);
  EXPECT_EQ(addr, source.mapped[0].addr + kChunkHeaderPages * kPageSize);
  EXPECT_EQ(arena.active_pages(), 3u);
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, FreedRunsStayDirtyBelowOneChunkOfPages) {
  FakeSource source;
  JemallocArena arena(ArenaConfig{}, &source);
  std::vector<Range> purged;
  uint64_t a = arena.allocate(64 * kPageSize);
  free_run(arena, a, 64 * kPageSize, &purged);
  EXPECT_TRUE(purged.empty()) << "jemalloc keeps up to a chunk of dirty pages";
  EXPECT_EQ(arena.dirty_pages(), 64u);
  // Reusing the dirty run takes it back without a purge.
  uint64_t b = arena.allocate(64 * kPageSize);
  EXPECT_EQ(b, a);
  EXPECT_EQ(arena.dirty_pages(), 0u);
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, PurgesOldestDirtyRunsWhenDirtyPassesTheRatio) {
  FakeSource source;
  ArenaConfig config;
  config.chunk_floor = false;  // threshold = active >> 3 exactly
  JemallocArena arena(config, &source);
  std::vector<Range> purged;
  // 16 live runs of 8 pages; free 4 of them that are not neighbours.
  std::vector<uint64_t> runs;
  for (int i = 0; i < 16; ++i) runs.push_back(arena.allocate(8 * kPageSize));
  free_run(arena, runs[1], 8 * kPageSize, &purged);  // active 120 -> threshold 15; dirty 8
  EXPECT_TRUE(purged.empty());
  free_run(arena, runs[5], 8 * kPageSize, &purged);  // active 112 -> threshold 14; dirty 16
  ASSERT_EQ(purged.size(), 1u) << "dirty 16 > 14: purge the oldest run";
  EXPECT_EQ(purged[0].addr, runs[1]);
  EXPECT_EQ(purged[0].len, 8 * kPageSize);
  EXPECT_EQ(arena.dirty_pages(), 8u);
  EXPECT_TRUE(arena.check_invariants());
}

uint64_t pages_in(const std::vector<Range>& ranges) {
  uint64_t pages = 0;
  for (const Range& r : ranges) pages += r.len / kPageSize;
  return pages;
}

TEST(JemallocArena, PurgeFiresOnlyWhenDirtyExceedsActiveShiftedByLgDirtyMult) {
  FakeSource source;
  ArenaConfig config;
  config.chunk_floor = false;
  JemallocArena arena(config, &source);
  std::vector<uint64_t> runs;
  for (int i = 0; i < 160; ++i) runs.push_back(arena.allocate(kPageSize));
  // Freeing every other run: after k frees active = 160 - k and dirty = k. At k = 17 dirty equals
  // the threshold, 143 >> 3 = 17, and nothing is purged (arena_maybe_purge(): ndirty <=
  // threshold returns); at k = 18, 18 > 142 >> 3 = 17 and one page, the oldest run, goes.
  std::vector<Range> purged;
  for (int k = 0; k < 17; ++k) free_run(arena, runs[2 * k], kPageSize, &purged);
  EXPECT_TRUE(purged.empty());
  EXPECT_EQ(arena.dirty_pages(), 17u);
  EXPECT_EQ(arena.purge_threshold(), 17u);
  free_run(arena, runs[34], kPageSize, &purged);
  ASSERT_EQ(purged.size(), 1u);
  EXPECT_EQ(purged[0].addr, runs[0]);
  EXPECT_EQ(arena.dirty_pages(), 17u);
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, ThresholdRulePurgesOldestRunsBackDownToTheThreshold) {
  FakeSource source;
  ArenaConfig config;
  config.chunk_floor = false;
  JemallocArena arena(config, &source);
  std::vector<uint64_t> runs;
  for (int i = 0; i < 400; ++i) runs.push_back(arena.allocate(kPageSize));
  // Every other run freed, oldest first: once past the threshold, each free purges
  // npurge = dirty - threshold pages (arena_compute_npurge()), one or two one-page runs, the
  // oldest (runs_dirty is LRU), and dirty ends exactly at the threshold.
  uint64_t next_oldest = 0;
  uint64_t passes = 0;
  for (int i = 0; i < 400; i += 2) {
    std::vector<Range> purged;
    const uint64_t threshold = (arena.active_pages() - 1) >> kJemallocLgDirtyMult;
    const uint64_t dirty = arena.dirty_pages() + 1;
    const uint64_t over = dirty > threshold ? dirty - threshold : 0;
    free_run(arena, runs[i], kPageSize, &purged);
    ASSERT_EQ(purged.size(), over) << "free " << i;
    for (const Range& r : purged) EXPECT_EQ(r.addr, runs[2 * next_oldest++]);
    if (over > 0) {
      ++passes;
      EXPECT_EQ(arena.dirty_pages(), arena.purge_threshold());
    }
  }
  EXPECT_GT(passes, 100u);
  EXPECT_EQ(arena.purge_threshold(), arena.active_pages() >> kJemallocLgDirtyMult);
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, HalfRulePurgesAtLeastHalfTheDirtyPagesOldestFirst) {
  FakeSource source;
  ArenaConfig config;
  config.chunk_floor = false;
  config.purge_rule = PurgeRule::kAtLeastHalf;
  JemallocArena arena(config, &source);
  std::vector<uint64_t> runs;
  for (int i = 0; i < 400; ++i) runs.push_back(arena.allocate(kPageSize));
  std::vector<Range> purged;
  uint64_t dirty_before = 0;
  for (int i = 0; i < 400 && purged.empty(); i += 2) {
    dirty_before = arena.dirty_pages() + 1;
    free_run(arena, runs[i], kPageSize, &purged);
  }
  // je.patch: npurge = max(dirty - threshold, dirty / 2), whole runs oldest first.
  ASSERT_FALSE(purged.empty());
  EXPECT_EQ(pages_in(purged), dirty_before / 2) << "one-page runs: no overshoot";
  EXPECT_GE(pages_in(purged), dirty_before / 2);
  EXPECT_EQ(purged.front().addr, runs[0]) << "the oldest dirty run goes first";
  for (size_t i = 1; i < purged.size(); ++i) EXPECT_EQ(purged[i].addr, runs[2 * i]);
  EXPECT_EQ(arena.dirty_pages(), dirty_before - pages_in(purged));
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, HalfRuleNeverPurgesLessThanTheThresholdRule) {
  // Same traffic under both rules: every pass of je.patch purges at least what jemalloc 4.0's
  // would, so after any free its dirty pages are at or below the threshold too.
  for (PurgeRule rule : {PurgeRule::kToThreshold, PurgeRule::kAtLeastHalf}) {
    FakeSource source;
    ArenaConfig config;
    config.purge_rule = rule;
    JemallocArena arena(config, &source);
    SplitMix64 rng(11);
    std::vector<std::pair<uint64_t, uint64_t>> live(512);
    std::vector<Range> purged;
    uint64_t passes = 0;
    uint64_t ranges = 0;
    for (int op = 0; op < 20000; ++op) {
      auto& slot = live[rng.below(live.size())];
      if (slot.first == 0) {
        slot.second = rng.log_uniform(kPageSize, 256 * 1024);
        slot.first = arena.allocate(slot.second);
        continue;
      }
      const uint64_t dirty_before = arena.dirty_pages() + JemallocArena::pages_for(slot.second);
      purged.clear();
      free_run(arena, slot.first, slot.second, &purged);
      slot = {0, 0};
      ASSERT_LE(arena.dirty_pages(), arena.purge_threshold()) << "op " << op;
      if (purged.empty()) continue;
      ++passes;
      ranges += purged.size();
      if (rule == PurgeRule::kAtLeastHalf) {
        ASSERT_GE(pages_in(purged), dirty_before / 2);
      }
    }
    ASSERT_GT(passes, 0u);
    const double runs_per_pass = static_cast<double>(ranges) / static_cast<double>(passes);
    if (rule == PurgeRule::kToThreshold) {
      EXPECT_LT(runs_per_pass, 4.0) << "4.0 purges a free's worth of pages: a few runs a pass";
    } else {
      EXPECT_GT(runs_per_pass, 16.0) << "half the dirty pages: tens of runs a pass";
    }
    EXPECT_TRUE(arena.check_invariants());
  }
}

TEST(JemallocArena, TheRestOfASplitDirtyRunGoesToTheYoungEnd) {
  FakeSource source;
  ArenaConfig config;
  config.chunk_floor = false;  // threshold = active >> 3 exactly
  JemallocArena arena(config, &source);
  const uint64_t a = arena.allocate(8 * kPageSize);
  arena.allocate(kPageSize);  // keeps a and c apart
  const uint64_t c = arena.allocate(4 * kPageSize);
  arena.allocate(kPageSize);
  std::vector<uint64_t> fillers;
  for (int i = 0; i < 160; ++i) fillers.push_back(arena.allocate(kPageSize));
  std::vector<Range> purged;
  free_run(arena, a, 8 * kPageSize, &purged);  // the oldest dirty run
  free_run(arena, c, 4 * kPageSize, &purged);
  ASSERT_TRUE(purged.empty());
  // Best fit for 5 pages is a's 8; its 3-page rest stays dirty, and arena_run_split_remove()
  // puts it back at the young end of runs_dirty, after c.
  ASSERT_EQ(arena.allocate(5 * kPageSize), a);
  // Freeing every other filler raises dirty pages and lowers the threshold until one pass asks
  // for a page or two: the oldest entry goes, c.
  for (size_t i = 0; i < fillers.size() && purged.empty(); i += 2)
    free_run(arena, fillers[i], kPageSize, &purged);
  ASSERT_FALSE(purged.empty());
  EXPECT_EQ(purged[0].addr, c);
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, DirtyNeighboursMergeAndCleanOnesDoNot) {
  FakeSource source;
  JemallocArena arena(ArenaConfig{}, &source);
  std::vector<Range> purged;
  uint64_t a = arena.allocate(4 * kPageSize);
  uint64_t b = arena.allocate(4 * kPageSize);
  uint64_t c = arena.allocate(4 * kPageSize);
  EXPECT_EQ(b, a + 4 * kPageSize);
  free_run(arena, a, 4 * kPageSize, &purged);
  free_run(arena, b, 4 * kPageSize, &purged);
  EXPECT_EQ(arena.dirty_pages(), 8u);
  // a+b form one dirty run of 8 pages: an 8-page request fits there exactly (best fit).
  EXPECT_EQ(arena.allocate(8 * kPageSize), a);
  (void)c;
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, ResizeShrinksInPlaceAndGrowsIntoAFreeNeighbour) {
  FakeSource source;
  JemallocArena arena(ArenaConfig{}, &source);
  std::vector<Range> purged;
  uint64_t a = arena.allocate(8 * kPageSize);
  EXPECT_TRUE(resize(arena, a, 8 * kPageSize, 2 * kPageSize, &purged));
  EXPECT_EQ(arena.active_pages(), 2u);
  EXPECT_EQ(arena.dirty_pages(), 6u);
  // The dirty tail (6 pages) is too small to grow by 8: the clean rest of the chunk does not
  // merge with it, so the caller must move.
  EXPECT_FALSE(resize(arena, a, 2 * kPageSize, 10 * kPageSize, &purged));
  EXPECT_TRUE(resize(arena, a, 2 * kPageSize, 8 * kPageSize, &purged));
  EXPECT_EQ(arena.active_pages(), 8u);
  EXPECT_EQ(arena.dirty_pages(), 0u);
  uint64_t blocker = arena.allocate(kPageSize);
  EXPECT_EQ(blocker, a + 8 * kPageSize);
  EXPECT_FALSE(resize(arena, a, 8 * kPageSize, 9 * kPageSize, &purged));
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, HugeExtentsGoToTheCacheAndOutAtTheNextPurge) {
  FakeSource source;
  JemallocArena arena(ArenaConfig{}, &source);
  uint64_t huge = arena.allocate(kChunk + kPageSize);
  ASSERT_EQ(source.mapped.size(), 1u);
  EXPECT_EQ(source.mapped[0].len, 2 * kChunk);
  EXPECT_EQ(arena.active_pages(), kChunkPages + 1) << "huge pages count as active";
  // arena_chunk_dalloc_huge() -> chunk_dalloc_cache(): 1024 dirty pages against the one-chunk
  // floor, so the same free's purge pass stashes the extent and unmaps it.
  std::vector<PurgePass> passes;
  arena.deallocate(huge, kChunk + kPageSize, &passes);
  EXPECT_TRUE(source.unmapped.empty()) << "the arena hands unmaps back as passes";
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_TRUE(passes[0].purged.empty());
  ASSERT_EQ(passes[0].unmapped.size(), 1u);
  EXPECT_EQ(passes[0].unmapped[0].addr, huge);
  EXPECT_EQ(passes[0].unmapped[0].len, 2 * kChunk);
  EXPECT_EQ(arena.mapped_bytes(), 0u);
  EXPECT_EQ(arena.dirty_pages(), 0u);
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, WithoutTheChunkCacheHugeExtentsAreUnmappedWhenFreed) {
  FakeSource source;
  ArenaConfig config;
  config.chunk_cache = false;
  JemallocArena arena(config, &source);
  std::vector<PurgePass> passes;
  uint64_t huge = arena.allocate(kChunk + kPageSize);
  arena.deallocate(huge, kChunk + kPageSize, &passes);
  EXPECT_TRUE(passes.empty());
  ASSERT_EQ(source.unmapped.size(), 1u);
  EXPECT_EQ(source.unmapped[0].addr, huge);
}

// Fills `n` chunks with one run of all their usable pages each.
std::vector<uint64_t> fill_chunks(JemallocArena& arena, int n) {
  std::vector<uint64_t> runs;
  for (int i = 0; i < n; ++i) runs.push_back(arena.allocate(kUsablePages * kPageSize));
  return runs;
}

TEST(JemallocArena, AWhollyFreeChunkBecomesTheSpareAndDisplacesTheOldOneToTheCache) {
  FakeSource source;
  JemallocArena arena(ArenaConfig{}, &source);
  std::vector<uint64_t> runs = fill_chunks(arena, 4);
  ASSERT_EQ(source.mapped.size(), 4u);
  std::vector<PurgePass> passes;
  // The first freed chunk becomes the spare: its 511 dirty pages stay under the 512-page floor.
  arena.deallocate(runs[0], kUsablePages * kPageSize, &passes);
  EXPECT_TRUE(passes.empty());
  EXPECT_TRUE(arena.has_spare());
  EXPECT_EQ(arena.dirty_pages(), kUsablePages);
  EXPECT_EQ(arena.cached_bytes(), 0u);
  // The second displaces it: the old spare leaves the dirty LRU and goes to the cache whole
  // (512 pages, header included), as the youngest entry. 511 + 512 dirty > 512, so a pass asks
  // for 511 pages and stashes the oldest entry: the new spare's run, which it madvises (making the
  // spare an ordinary chunk for the purge, arena_stash_dirty()) and gives back clean, so the chunk
  // is wholly free again and the spare again. The cached chunk stays, at the floor.
  arena.deallocate(runs[1], kUsablePages * kPageSize, &passes);
  ASSERT_EQ(passes.size(), 1u);
  ASSERT_EQ(passes[0].purged.size(), 1u);
  EXPECT_EQ(passes[0].purged[0].addr, runs[1]);
  EXPECT_EQ(passes[0].purged[0].len, kUsablePages * kPageSize);
  EXPECT_TRUE(passes[0].unmapped.empty());
  EXPECT_TRUE(arena.has_spare());
  EXPECT_EQ(arena.cached_bytes(), kChunk);
  EXPECT_EQ(arena.dirty_pages(), kChunkPages) << "the cached chunk";
  EXPECT_TRUE(arena.check_invariants());
  // A third displaces the clean spare (chunk 1) into the cache, merged with chunk 0: 511 + 1024
  // dirty, and the pass now reaches the merged extent after the third chunk's run: one munmap of
  // two chunks.
  passes.clear();
  arena.deallocate(runs[2], kUsablePages * kPageSize, &passes);
  ASSERT_EQ(passes.size(), 1u);
  ASSERT_EQ(passes[0].purged.size(), 1u);
  EXPECT_EQ(passes[0].purged[0].addr, runs[2]);
  ASSERT_EQ(passes[0].unmapped.size(), 1u);
  EXPECT_EQ(passes[0].unmapped[0].addr, source.mapped[0].addr);
  EXPECT_EQ(passes[0].unmapped[0].len, 2 * kChunk);
  EXPECT_EQ(arena.mapped_bytes(), 2 * kChunk) << "chunk 3 in use, chunk 2 the spare";
  EXPECT_EQ(arena.dirty_pages(), 0u);
  EXPECT_TRUE(arena.check_invariants());
  // The next chunk the arena needs is the spare: no mapping.
  uint64_t again = arena.allocate(kPageSize);
  EXPECT_EQ(again, runs[2]);
  EXPECT_EQ(source.mapped.size(), 4u);
  EXPECT_FALSE(arena.has_spare());
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, TheSpareIsTakenOnlyWhenNoOtherRunFits) {
  FakeSource source;
  JemallocArena arena(ArenaConfig{}, &source);
  std::vector<uint64_t> runs = fill_chunks(arena, 1);
  uint64_t small = arena.allocate(kPageSize);  // a second chunk, 510 pages free
  std::vector<PurgePass> passes;
  arena.deallocate(runs[0], kUsablePages * kPageSize, &passes);
  ASSERT_TRUE(arena.has_spare());
  // Any run but the spare's fits best here (the spare's 511 pages are the largest free run), so
  // this shows only that taking another run leaves the spare alone.
  uint64_t next = arena.allocate(2 * kPageSize);
  EXPECT_EQ(next, small + kPageSize);
  EXPECT_TRUE(arena.has_spare());
  // 508 pages are left in the second chunk: 509 fit only in the spare, which becomes an
  // ordinary chunk again (arena_chunk_alloc()), with no new mapping.
  uint64_t big = arena.allocate(509 * kPageSize);
  EXPECT_EQ(big, runs[0]);
  EXPECT_FALSE(arena.has_spare());
  EXPECT_EQ(source.mapped.size(), 2u);
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, AdjacentCachedChunksMergeAndOneMunmapTakesThemAll) {
  FakeSource source;
  ArenaConfig config;
  config.lg_dirty_mult = 0;  // threshold = the active pages
  JemallocArena arena(config, &source);
  std::vector<uint64_t> runs = fill_chunks(arena, 6);  // adjacent chunks from FakeSource
  std::vector<PurgePass> passes;
  // Chunk 0 becomes the spare; chunk 1 displaces it to the cache; chunk 2 displaces chunk 1,
  // which merges with chunk 0 there (chunk_record()), and 511 + 1,024 dirty pages pass the 1,533
  // active ones: the pass takes the oldest entry, chunk 2's own run (madvise), which comes back
  // clean and is the spare again.
  for (int i = 0; i < 3; ++i) arena.deallocate(runs[i], kUsablePages * kPageSize, &passes);
  ASSERT_EQ(passes.size(), 1u);
  ASSERT_EQ(passes[0].purged.size(), 1u);
  EXPECT_EQ(passes[0].purged[0].addr, runs[2]);
  EXPECT_TRUE(passes[0].unmapped.empty());
  EXPECT_EQ(arena.cached_bytes(), 2 * kChunk);
  // Chunk 3 displaces chunk 2 (clean) into the cache, merged: chunks 0-2, 1,536 pages. With
  // chunk 3's run, 2,047 dirty pages against 1,022 active: the pass purges chunk 3's run and
  // unmaps the merged extent with one munmap.
  passes.clear();
  arena.deallocate(runs[3], kUsablePages * kPageSize, &passes);
  ASSERT_EQ(passes.size(), 1u);
  ASSERT_EQ(passes[0].purged.size(), 1u);
  EXPECT_EQ(passes[0].purged[0].addr, runs[3]);
  ASSERT_EQ(passes[0].unmapped.size(), 1u);
  EXPECT_EQ(passes[0].unmapped[0].addr, source.mapped[0].addr);
  EXPECT_EQ(passes[0].unmapped[0].len, 3 * kChunk);
  EXPECT_EQ(arena.mapped_bytes(), 3 * kChunk) << "chunks 4 and 5 in use, 3 the spare";
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, ANewChunkComesFromTheCacheBeforeANewMapping) {
  FakeSource source;
  ArenaConfig config;
  config.lg_dirty_mult = 0;
  JemallocArena arena(config, &source);
  std::vector<uint64_t> runs = fill_chunks(arena, 8);
  std::vector<PurgePass> passes;
  arena.deallocate(runs[0], kUsablePages * kPageSize, &passes);  // spare
  arena.deallocate(runs[1], kUsablePages * kPageSize, &passes);  // chunk 0 to the cache
  ASSERT_TRUE(passes.empty()) << "6 full chunks active: 1023 dirty pages stay";
  ASSERT_EQ(arena.cached_bytes(), kChunk);
  uint64_t a = arena.allocate(kUsablePages * kPageSize);  // the spare (chunk 1)
  EXPECT_EQ(a, runs[1]);
  uint64_t b = arena.allocate(kUsablePages * kPageSize);  // the cached chunk 0, not a mapping
  EXPECT_EQ(b, runs[0]);
  EXPECT_EQ(source.mapped.size(), 8u);
  EXPECT_EQ(arena.cached_bytes(), 0u);
  EXPECT_EQ(arena.dirty_pages(), 0u) << "a recycled chunk's run starts clean";
  EXPECT_TRUE(arena.check_invariants());
}

TEST(JemallocArena, FreeingAHeapUnmapsItsChunksAndPurgesTheRest) {
  // The bulk-free pattern: a heap of mixed runs freed in random order. Chunks that empty reach
  // the cache and are unmapped; what stays mapped at the end is the spare, the cache and chunks
  // that still hold a dirty run under the one-chunk floor.
  for (PurgeRule rule : {PurgeRule::kToThreshold, PurgeRule::kAtLeastHalf}) {
    FakeSource source;
    ArenaConfig config;
    config.purge_rule = rule;
    JemallocArena arena(config, &source);
    SplitMix64 rng(3);
    std::vector<std::pair<uint64_t, uint64_t>> objects;
    uint64_t live = 0;
    while (live < 64 * kChunk) {
      uint64_t bytes = rng.log_uniform(kPageSize, 64 * 1024);
      objects.emplace_back(arena.allocate(bytes), bytes);
      live += bytes;
    }
    for (size_t i = objects.size(); i > 1; --i) std::swap(objects[i - 1], objects[rng.below(i)]);
    std::vector<PurgePass> passes;
    for (const auto& [addr, bytes] : objects) {
      arena.deallocate(addr, bytes, &passes);
      ASSERT_LE(arena.dirty_pages(), arena.purge_threshold());
    }
    uint64_t unmapped = 0;
    uint64_t madvised = 0;
    for (const PurgePass& pass : passes) {
      for (const Range& r : pass.unmapped) unmapped += r.len;
      for (const Range& r : pass.purged) madvised += r.len;
    }
    EXPECT_EQ(arena.active_pages(), 0u);
    EXPECT_GT(unmapped, 32 * kChunk) << "most chunks go back with munmap";
    EXPECT_GT(madvised, 0u);
    // Every chunk still mapped is the spare, cached, or holds a dirty run (a page at least).
    const uint64_t cached_pages = arena.cached_bytes() / kPageSize;
    EXPECT_LE(arena.mapped_bytes() / kChunk, (arena.has_spare() ? 1 : 0) +
                                                 arena.cached_bytes() / kChunk +
                                                 (arena.dirty_pages() - cached_pages));
    EXPECT_EQ(arena.mapped_bytes() + unmapped, source.mapped.size() * kChunk);
    EXPECT_TRUE(arena.check_invariants());
  }
}

TEST(JemallocArena, RandomTrafficKeepsInvariantsAndPurgeBound) {
  // Mixed sizes up to five chunks (huge ones through the chunk cache), frees and resizes, with
  // the invariants and the mapping balance checked after every call.
  FakeSource source;
  JemallocArena arena(ArenaConfig{}, &source);
  SplitMix64 rng(7);
  std::vector<std::pair<uint64_t, uint64_t>> live(256);
  std::vector<PurgePass> passes;
  uint64_t unmapped = 0;
  uint64_t purges = 0;
  for (int op = 0; op < 20000; ++op) {
    auto& slot = live[rng.below(live.size())];
    passes.clear();
    if (slot.first == 0) {
      slot.second = rng.below(16) == 0 ? rng.log_uniform(kChunk, 5 * kChunk)
                                       : rng.log_uniform(kPageSize, 256 * 1024);
      slot.first = arena.allocate(slot.second);
    } else if (rng.below(4) == 0) {
      const uint64_t bytes = rng.log_uniform(kPageSize, 256 * 1024);
      if (arena.resize_in_place(slot.first, slot.second, bytes, &passes)) slot.second = bytes;
    } else {
      arena.deallocate(slot.first, slot.second, &passes);
      slot = {0, 0};
    }
    for (const PurgePass& pass : passes) {
      purges += pass.purged.size();
      for (const Range& r : pass.unmapped) unmapped += r.len;
    }
    // After every call dirty pages are back within max(active >> 3, one chunk).
    uint64_t bound = std::max(arena.active_pages() >> kJemallocLgDirtyMult, kChunkPages);
    ASSERT_LE(arena.dirty_pages(), bound) << "op " << op;
    ASSERT_TRUE(arena.check_invariants()) << "op " << op;
    uint64_t mapped = 0;
    for (const Range& r : source.mapped) mapped += r.len;
    ASSERT_EQ(arena.mapped_bytes() + unmapped, mapped) << "op " << op;
  }
  EXPECT_GT(purges, 0u);
  EXPECT_GT(unmapped, 0u) << "huge extents and emptied chunks leave through the cache";
}

}  // namespace
}  // namespace mmreplay::gen
