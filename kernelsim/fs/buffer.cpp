#include "kernelsim/fs/buffer.h"

#include <cassert>
#include <utility>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

BufferCache::BufferCache(uint32_t nr_cpus, uint32_t lru_size, uint64_t block_size)
    : lru_size_(lru_size), block_size_(block_size), lrus_(nr_cpus) {
  assert(lru_size >= 1);
  assert(block_size > 0 && (block_size & (block_size - 1)) == 0 && PAGE_SIZE % block_size == 0);
  for (auto& l : lrus_) l.reserve(lru_size);
}

std::vector<BhKey> BufferCache::page_buffers(uint32_t file, uint64_t index) const {
  const uint64_t per_page = PAGE_SIZE / block_size_;
  std::vector<BhKey> keys;
  keys.reserve(per_page);
  for (uint64_t i = 0; i < per_page; ++i) keys.push_back({file, index * per_page + i});
  return keys;
}

BufferHead* BufferCache::find(BhKey key) {
  auto it = bhs_.find(key);
  return it == bhs_.end() ? nullptr : &it->second;
}

const BufferHead* BufferCache::find(BhKey key) const {
  auto it = bhs_.find(key);
  return it == bhs_.end() ? nullptr : &it->second;
}

BufferHead& BufferCache::find_or_create(BhKey key) {
  auto [it, inserted] = bhs_.try_emplace(key);
  if (inserted) it->second.key = key;
  return it->second;
}

void BufferCache::drop(BhKey key) {
  auto it = bhs_.find(key);
  if (it == bhs_.end()) return;
  assert(it->second.b_count == 0 && !it->second.dirty);
  bhs_.erase(it);
}

std::vector<BufferHead*> BufferCache::dirty_buffers(uint32_t file) {
  std::vector<BufferHead*> out;
  for (auto it = bhs_.lower_bound(BhKey{file, 0}); it != bhs_.end() && it->first.file == file;
       ++it) {
    if (it->second.dirty) out.push_back(&it->second);
  }
  return out;
}

// Models include/linux/buffer_head.h: get_bh()
void get_bh(BhCtx& c, BufferHead& bh) {
  ++bh.b_count;
  c.spent += c.costs.atomic_local;
}

// Models fs/buffer.c: __brelse()
void brelse(BhCtx& c, BufferHead& bh) {
  assert(bh.b_count > 0);
  --bh.b_count;
  c.spent += c.costs.atomic_local;
}

// Models fs/buffer.c: lookup_bh_lru()
BufferHead* lookup_bh_lru(BhCtx& c, BhKey key) {
  std::vector<BufferHead*>& lru = c.cache.lru(c.cpu);
  c.spent += c.costs.bh_lru_irq;  // bh_lru_lock() / bh_lru_unlock(): local_irq_disable/enable
  for (size_t i = 0; i < lru.size(); ++i) {
    c.spent += c.costs.bh_lru_slot;
    if (lru[i]->key != key) continue;
    BufferHead* bh = lru[i];
    // while (i) { __this_cpu_write(bh_lrus.bhs[i], __this_cpu_read(bh_lrus.bhs[i - 1])); i--; }
    for (size_t j = i; j > 0; --j) lru[j] = lru[j - 1];
    lru[0] = bh;
    c.spent += c.costs.bh_lru_slot * static_cast<int64_t>(i);
    get_bh(c, *bh);
    ++c.vm.bh_lru_hits;
    return bh;
  }
  ++c.vm.bh_lru_misses;
  return nullptr;
}

// Models fs/buffer.c: bh_lru_install()
void bh_lru_install(BhCtx& c, BufferHead& bh) {
  // 5.13+ (8cc621d2f45d): "if (lru_cache_disabled()) return;" while a migration drains.
  if (c.cache.lru_cache_disabled()) return;
  std::vector<BufferHead*>& lru = c.cache.lru(c.cpu);
  c.spent += c.costs.bh_lru_irq;
  // 5.13+ form: swap bh into slot 0 and carry each displaced entry one slot down; stopping where
  // bh itself comes out means it was already present (no new reference, nothing evicted).
  BufferHead* evictee = &bh;
  for (size_t i = 0; i < lru.size(); ++i) {
    c.spent += c.costs.bh_lru_slot;
    std::swap(evictee, lru[i]);
    if (evictee == &bh) return;
  }
  get_bh(c, bh);
  ++c.vm.bh_lru_installs;
  if (lru.size() < c.cache.lru_size()) {
    lru.push_back(evictee);  // a free slot takes the last displaced entry
    return;
  }
  ++c.vm.bh_lru_evictions;
  brelse(c, *evictee);
}

// Models fs/buffer.c: __find_get_block()
BufferHead& __find_get_block(BhCtx& c, BhKey key) {
  if (BufferHead* bh = lookup_bh_lru(c, key)) return *bh;  // touch_buffer(): no cost modelled
  // __find_get_block_slow(): find_get_page_flags() on the block device mapping, then
  // private_lock and the walk over the page's buffers. Contention on private_lock not modelled.
  c.spent += c.costs.find_get_page + c.costs.find_get_block_slow;
  BufferHead& bh = c.cache.find_or_create(key);
  get_bh(c, bh);
  bh_lru_install(c, bh);
  return bh;
}

// Models fs/buffer.c: try_to_free_buffers() -> drop_buffers()
bool try_to_free_buffers(BufferCache& cache, uint32_t file, uint64_t index) {
  const std::vector<BhKey> keys = cache.page_buffers(file, index);
  for (const BhKey& k : keys) {
    const BufferHead* bh = cache.find(k);
    if (bh != nullptr && (bh->b_count != 0 || bh->dirty)) return false;  // buffer_busy()
  }
  for (const BhKey& k : keys) cache.drop(k);
  return true;
}

// Models fs/buffer.c: block_invalidate_folio() -> discard_buffer(), then try_to_free_buffers()
void block_invalidate_page(BufferCache& cache, uint32_t file, uint64_t index) {
  for (const BhKey& k : cache.page_buffers(file, index)) {
    BufferHead* bh = cache.find(k);
    if (bh == nullptr) continue;
    bh->dirty = false;  // clear_buffer_dirty(): the block will never be written
    if (bh->b_count == 0) cache.drop(k);
  }
}

}  // namespace mmreplay::kernelsim
