// JemallocArena: a small model of one jemalloc 4.0 arena's page-run allocator, enough to make
// the madvise() traffic that seed 002 ("mm: add a new vector based madvise syscall") is about.
//
// What it models (jemalloc 4.0, src/arena.c and src/chunk.c):
//   - Memory comes from the OS in chunks of `chunk_bytes` (opt.lg_chunk = 21: 2 MiB), mapped
//     aligned to their size; the first kChunkHeaderPages pages hold the chunk header and page map.
//   - An allocation takes a run of whole pages, best fit by (size, address) among the free runs
//     (arena_run_alloc_large -> runs_avail). Requests larger than a chunk's usable pages are
//     "huge": they get chunk-aligned extents of their own (arena_chunk_alloc_huge()).
//   - A freed run becomes dirty (its pages still hold data and stay resident). Dirty runs merge
//     with dirty neighbours, clean with clean, never across chunks (arena_run_coalesce).
//   - A chunk whose free runs merge into one run of all its usable pages is deallocated
//     (arena_run_dalloc() -> arena_chunk_dalloc()): it becomes the arena's spare, no longer
//     offered to allocations, and the spare it displaces goes to the chunk cache
//     (chunk_dalloc_cache()): a dirty extent of the whole chunk, header included, appended to
//     the dirty LRU, merged with a cached neighbour extent (chunk_record()). A freed huge
//     extent goes to the cache too (arena_chunk_dalloc_huge()). A new chunk is the spare if there
//     is one, else the best-fit cached extent (chunk_alloc_cache(): its run starts clean,
//     arena_chunk_init_hard()), else a new mapping.
//   - Purging (arena_maybe_purge): while dirty pages exceed active >> lg_dirty_mult (opt default
//     3: one eighth), with the threshold never below one chunk of pages, a pass (arena_purge)
//     asks for npurge = dirty - threshold pages (arena_compute_npurge), and stashes dirty runs
//     and cached extents oldest first (runs_dirty is LRU) until at least npurge pages are stashed
//     (arena_stash_dirty; a run of the spare makes the spare an ordinary chunk again). Each
//     stashed run is one range that arena_purge_stashed() hands to chunk_purge_wrapper() ->
//     pages_purge(), madvise(MADV_DONTNEED); then arena_unstash_purged() unmaps each stashed
//     extent (chunk_dalloc_arena() -> chunk_dalloc_mmap(): munmap, config_munmap on Linux) and
//     gives each purged run back clean, which may deallocate its chunk and so push a spare into
//     the cache, and so start another pass. A purged run is clean: reusing it faults fresh pages.
//   - The madvisev() patch of seed 002 (je.patch, attached to Shaohua Li's reply of 2016-02-17)
//     changes two things: arena_compute_npurge() asks for at least half the dirty pages
//     (PurgeRule::kAtLeastHalf), and arena_purge_stashed() collects the ranges into iovecs of
//     MAX_IOVEC (kJePatchMaxIovec) and purges each full or final iovec with one madvisev() call.
//   - Realloc of a run shrinks in place (the tail becomes dirty) or grows in place into a free
//     neighbour run; otherwise the caller moves it (allocate, copy, deallocate).
// What it does not model: small size classes inside bin runs (every request is rounded up to
// pages), huge size classes (a huge request is rounded up to pages), tcache, decay-based purging
// (jemalloc 4.1+), chunks retained after a failed munmap, and the arena lock: each thread has its
// own arena, so no other thread purges it in between. ArenaConfig::chunk_cache off stands for an
// allocator that keeps free chunks mapped as free runs and unmaps huge extents on free.
//
// The model is pure bookkeeping: it never emits events. Chunk mappings go through ChunkSource,
// which the generator implements with mmap events; purges and unmaps come back as PurgePasses.
//
// Invariants (checked by check_invariants() in tests): (1) free runs never overlap and never
// cross a chunk boundary; (2) two adjacent free runs of one chunk differ in dirtiness;
// (3) ndirty() is the sum of the dirty runs' and cached extents' pages, and every dirty run and
// cached extent is in the LRU exactly once; (4) the spare is one free run of a whole chunk, the
// only free run not offered to allocations; (5) cached extents are chunk-aligned, never adjacent
// and never overlap a chunk that has runs, the spare or a huge allocation.

#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "formats/event.h"

namespace mmreplay::gen {

// jemalloc 4.0 defaults (src/jemalloc.c, include/jemalloc/internal/arena.h).
inline constexpr uint64_t kJemallocChunkBytes = 2ull << 20;  // opt.lg_chunk = 21
inline constexpr uint32_t kJemallocLgDirtyMult = 3;          // opt.lg_dirty_mult
inline constexpr uint64_t kChunkHeaderPages = 1;  // map_bias for 2 MiB chunks, 4 KiB pages
// The allocator the arena model stands for, as workloads label it, and the advice it shipped with:
// jemalloc 4.0's pages_purge() on Linux is madvise(MADV_DONTNEED) (JEMALLOC_PURGE_MADVISE_DONTNEED;
// Linux had no MADV_FREE before 4.5, which is seed 000's question). --advice free asks it.
inline constexpr const char* kJemallocLabel = "jemalloc 4.0";
inline constexpr uint64_t kJemallocShippedAdvice = formats::kMadvDontNeed;
// MAX_IOVEC of seed 002's je.patch: the most runs one madvisev() call purges.
inline constexpr uint64_t kJePatchMaxIovec = 32;

// How many pages one purge pass asks for (arena_compute_npurge()).
enum class PurgeRule {
  kToThreshold,  // jemalloc 4.0: dirty - threshold, back down to the threshold
  kAtLeastHalf,  // seed 002's je.patch: max(dirty - threshold, dirty / 2)
};

struct ArenaConfig {
  uint64_t chunk_bytes = kJemallocChunkBytes;
  uint32_t lg_dirty_mult = kJemallocLgDirtyMult;
  // jemalloc never purges below one chunk of dirty pages; a glibc-like allocator that trims on
  // every free (ebizzy) turns the floor off.
  bool chunk_floor = true;
  PurgeRule purge_rule = PurgeRule::kToThreshold;
  // jemalloc 4.0's spare chunk and chunk cache (arena_chunk_dalloc(), chunk_dalloc_cache()):
  // wholly free chunks are unmapped when a purge reaches them. Off: free chunks stay mapped as
  // free runs and huge extents are unmapped when freed (a glibc-like heap, ebizzy).
  bool chunk_cache = true;
};

// One purge pass (arena_purge()), in the order jemalloc issues it: the dirty runs it purges
// (arena_purge_stashed(): one madvise each, or je.patch's madvisev() calls), then the cached
// extents it unmaps (arena_unstash_purged(): one munmap each).
struct PurgePass {
  std::vector<formats::Range> purged;
  std::vector<formats::Range> unmapped;
};

// Where the arena's chunks come from. map returns 0 when no address space is left.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  virtual uint64_t map_chunk(uint64_t bytes, uint64_t align) = 0;
  // Only without the chunk cache: a freed huge extent is unmapped at once.
  virtual void unmap_chunk(uint64_t addr, uint64_t bytes) = 0;
};

class JemallocArena {
 public:
  JemallocArena(ArenaConfig config, ChunkSource* source);

  // Returns the address of a run of at least `bytes` (rounded up to pages), or 0 when the
  // source could not map a chunk. REQUIRES: bytes > 0.
  uint64_t allocate(uint64_t bytes);

  // Frees a run from allocate(); appends the purge passes it set off to `passes`.
  // REQUIRES: addr/bytes as allocated (or as last resized).
  void deallocate(uint64_t addr, uint64_t bytes, std::vector<PurgePass>* passes);

  // Resizes in place when it can (shrink always, grow into a free neighbour); false means the
  // caller moves the data. Shrinking may purge.
  bool resize_in_place(uint64_t addr, uint64_t old_bytes, uint64_t new_bytes,
                       std::vector<PurgePass>* passes);

  uint64_t active_pages() const { return nactive_; }
  uint64_t dirty_pages() const { return ndirty_; }
  // Bytes mapped and not unmapped: chunks in use, the spare, cached extents, huge extents.
  uint64_t mapped_bytes() const { return mapped_bytes_; }
  // Bytes in the chunk cache, and whether there is a spare chunk.
  uint64_t cached_bytes() const;
  bool has_spare() const { return spare_ != 0; }
  // Dirty pages above which a free purges: active >> lg_dirty_mult, at least a chunk's pages.
  uint64_t purge_threshold() const;
  // Pages of a run (what allocate() gives for `bytes`).
  static uint64_t pages_for(uint64_t bytes);
  bool check_invariants() const;

 private:
  struct FreeRun {
    uint64_t pages = 0;
    bool dirty = false;
    uint64_t seq = 0;  // position in the dirty LRU when dirty
  };
  // An entry of the dirty LRU (runs_dirty): a dirty run, or a cached extent (chunks_cache).
  struct DirtyRef {
    uint64_t addr = 0;
    bool cached_extent = false;
  };
  struct CachedExtent {
    uint64_t bytes = 0;
    uint64_t seq = 0;
  };
  uint64_t chunk_pages() const;
  uint64_t usable_pages() const { return chunk_pages() - kChunkHeaderPages; }
  uint64_t chunk_of(uint64_t addr) const { return addr & ~(config_.chunk_bytes - 1); }
  uint64_t first_run_of(uint64_t chunk) const;
  void insert_run(uint64_t addr, uint64_t pages, bool dirty, uint64_t seq);
  FreeRun remove_run(uint64_t addr);
  // Inserts a run and merges it with same-state neighbours in its chunk; returns its address.
  uint64_t insert_coalesced(uint64_t addr, uint64_t pages, bool dirty);
  // arena_chunk_dalloc() when the free run at `run` is its whole chunk.
  void maybe_dalloc_chunk(uint64_t run);
  // arena_chunk_alloc(): the spare, a cached chunk, or a new mapping, as one clean free run.
  bool alloc_chunk();
  void make_spare_available();
  // chunk_record() into the cache, merging with adjacent cached extents.
  void cache_extent(uint64_t addr, uint64_t bytes);
  // chunk_alloc_cache(): the lowest best-fit cached extent of at least `bytes`, split; 0: none.
  uint64_t take_cached(uint64_t bytes);
  void remove_cached(uint64_t addr);
  uint64_t allocate_huge(uint64_t bytes);
  void free_pages(uint64_t addr, uint64_t pages, std::vector<PurgePass>* passes);
  void maybe_purge(std::vector<PurgePass>* passes);
  void purge_pass(std::vector<PurgePass>* passes);

  ArenaConfig config_;
  ChunkSource* source_;                            // not owned
  std::map<uint64_t, FreeRun> runs_;               // free runs by address
  std::set<std::pair<uint64_t, uint64_t>> avail_;  // (pages, addr): best fit; not the spare's
  std::map<uint64_t, DirtyRef> dirty_lru_;         // seq -> entry, oldest first
  std::map<uint64_t, CachedExtent> cache_;         // cached extents by address
  struct HugeExtent {
    uint64_t bytes = 0;  // the extent: whole chunks
    uint64_t pages = 0;  // the request's pages, counted active (with the chunk cache)
  };
  std::map<uint64_t, HugeExtent> huge_;  // huge allocations by address
  uint64_t spare_ = 0;                   // the spare chunk's address; 0: none
  uint64_t next_seq_ = 0;
  uint64_t nactive_ = 0;
  uint64_t ndirty_ = 0;
  uint64_t mapped_bytes_ = 0;
};

}  // namespace mmreplay::gen
