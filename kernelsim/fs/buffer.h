// Buffer heads and the per-CPU buffer-head LRUs (fs/buffer.c).
//
// A file is cut into blocks of BufferCache::block_size() bytes; a file page in the page cache
// carries PAGE_SIZE / block_size buffer heads, each identified by (file, block). File pages are
// resident (kernelsim/README.md): a buffer head not seen before is created on first lookup, as
// __getblk() -> grow_buffers() would, at the slow path's cost.
//
// Each CPU has a bh_lru of `bh_lru_size` entries (policy knob, BH_LRU_SIZE), most recent first,
// accessed with interrupts off; every entry holds a reference (b_count) on its buffer head, which
// is what pins the page against migration (mm/migrate.h; dropping entries: fs/bh_invalidate.h).
//
// The functions below do the bookkeeping and return nothing but the state change; the time they
// cost is added to BhCtx::spent from the CostProfile, and the caller charges it to its task
// (fs/read_write.cpp). Interrupt disabling is per-CPU and private: no SharedStep inside.

#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <vector>

#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/sim/stats.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

// (bdev, b_blocknr) of the kernel; one block device per file in the model.
struct BhKey {
  uint32_t file = 0;
  uint64_t block = 0;
  friend auto operator<=>(const BhKey&, const BhKey&) = default;
};

struct BufferHead {
  BhKey key;
  uint32_t b_count = 0;  // references: bh_lru entries and in-flight users
  bool dirty = false;    // BH_Dirty: written since the last fsync
};

class BufferCache {
 public:
  // REQUIRES: lru_size >= 1; block_size a power of two dividing PAGE_SIZE.
  BufferCache(uint32_t nr_cpus, uint32_t lru_size, uint64_t block_size);

  uint64_t block_size() const { return block_size_; }
  uint32_t lru_size() const { return lru_size_; }
  uint32_t nr_cpus() const { return static_cast<uint32_t>(lrus_.size()); }

  // The buffer heads of page `index` of `file`, in block order (page_buffers()).
  std::vector<BhKey> page_buffers(uint32_t file, uint64_t index) const;
  // The buffer head of (file, block), or nullptr if never created.
  BufferHead* find(BhKey key);
  const BufferHead* find(BhKey key) const;
  // The buffer head of (file, block), created (b_count 0, clean) when missing.
  BufferHead& find_or_create(BhKey key);
  // Frees the buffer head of `key` (nothing when it does not exist). REQUIRES: not busy.
  void drop(BhKey key);
  // The dirty buffer heads of `file`, in block order.
  std::vector<BufferHead*> dirty_buffers(uint32_t file);

  // The bh_lru of `cpu`, slot 0 first; only occupied slots (size <= lru_size()).
  const std::vector<BufferHead*>& lru(uint32_t cpu) const { return lrus_[cpu]; }
  std::vector<BufferHead*>& lru(uint32_t cpu) { return lrus_[cpu]; }

  // lru_cache_disable() / lru_cache_enable() (5.13+, bh_invalidate=drain): while disabled,
  // bh_lru_install() installs nothing. Nests.
  void set_lru_cache_disabled(bool disable) { disabled_ += disable ? 1 : -1; }
  bool lru_cache_disabled() const { return disabled_ > 0; }

 private:
  uint32_t lru_size_;
  uint64_t block_size_;
  std::map<BhKey, BufferHead> bhs_;  // node-based: BufferHead addresses are stable
  std::vector<std::vector<BufferHead*>> lrus_;
  int disabled_ = 0;
};

// What a bh_lru operation runs on and where its cost goes.
struct BhCtx {
  BufferCache& cache;
  uint32_t cpu;
  const CostProfile& costs;
  VmCounters& vm;
  SimTime spent;  // accumulated cost of the calls made with this context
};

// Models include/linux/buffer_head.h: get_bh()
void get_bh(BhCtx& c, BufferHead& bh);
// Models fs/buffer.c: __brelse()
void brelse(BhCtx& c, BufferHead& bh);
// Models fs/buffer.c: lookup_bh_lru(): linear scan with irqs off; a hit moves the entry to slot 0
// and takes a reference for the caller. nullptr on a miss.
BufferHead* lookup_bh_lru(BhCtx& c, BhKey key);
// Models fs/buffer.c: bh_lru_install(): bh to slot 0; a new entry takes a reference and pushes the
// tail out (brelse) when the LRU is full; an entry already present only moves to the front.
void bh_lru_install(BhCtx& c, BufferHead& bh);
// Models fs/buffer.c: try_to_free_buffers() for page `index` of `file` being reclaimed: false while
// one of its buffer heads is busy (b_count: a bh_lru entry or a user) or dirty, else frees them.
bool try_to_free_buffers(BufferCache& cache, uint32_t file, uint64_t index);
// Models fs/buffer.c: block_invalidate_folio() for page `index` of `file` being truncated, then
// filemap_release_folio(): every buffer head is discarded (discard_buffer(): no longer dirty), and
// those nobody holds are freed; one a bh_lru entry still references stays until it is evicted.
void block_invalidate_page(BufferCache& cache, uint32_t file, uint64_t index);
// Models fs/buffer.c: __find_get_block(): bh_lru, then the page cache (__find_get_block_slow())
// and install. Returns the buffer head with a reference held for the caller (brelse() it).
BufferHead& __find_get_block(BhCtx& c, BhKey key);

}  // namespace mmreplay::kernelsim
