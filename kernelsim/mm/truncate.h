// Truncation of a file's page cache (mm/truncate.c, fs/open.c).
//
// open(O_TRUNC), creat(), truncate() and ftruncate() of a regular file end in truncate_setsize()
// -> truncate_pagecache(): unmap_mapping_range() zaps the ptes that map the pages beyond the new
// size, then truncate_inode_pages_range() takes the pages out of the page cache a folio batch at a
// time (find_lock_entries()), each locked, waited for if under writeback, its dirty state
// cancelled (cancel_dirty_page(): it will never be written), its buffer heads invalidated and
// freed (block_invalidate_folio()), and deleted from the mapping; the batch is then released
// (folio_batch_release() -> release_pages(): the LRU removal under lru_lock, and the free).
//
// What the model charges: a syscall entry; per batch of PAGEVEC_SIZE_FOLIO_BATCH pages one lookup
// (find_get_page); per page truncate_page, and the LRU removal (lru_move_page under the lruvec's
// lru_lock, one hold per batch) and the free (the page allocator's pcp path) of a page the model
// holds; a TLB flush per pte that mapped a dropped page (try_to_unmap(): the model flushes page by
// page where the kernel's zap_page_range_single() batches). Then the filesystem frees the blocks
// of the clean pages (a dirty page under delayed allocation has none yet) and waits, off CPU:
// truncate_blocks_call once and truncate_block a page. On the PVM guest's ext4, mounted with
// discard, that wait was most of a truncation: a 2048-page clean file took 2.9 ms, 0.36 ms of it
// on CPU, where the same file still dirty took 0.29 ms; a 1-page clean one 0.2 ms.
// A file cached at the start (--cache warm) also had pages the model never gave a frame (the
// model's memory did not hold them, mm/filemap.h): those from the new size on are dropped too, each
// charged truncate_page and lru_move_page. How many there were is what the recording saw when it
// could (the trace's count of the pages the real kernel dropped), else the file's size.
// Not modelled: the zeroing of a partial last page (truncate_inode_partial_folio()), i_size
// (readahead keeps the size the trace gave), shmem and hugetlbfs truncation.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Models fs/open.c: do_truncate() -> truncate_setsize() -> truncate_pagecache() of `file` at
// `new_size` bytes. `recorded_pages`: the page-cache pages the recording kernel dropped
// (kPagesDroppedUnknown, sim/op.h, when not recorded). A file without a page cache (pipe, socket)
// costs the call only. Returns 0.
Co<int64_t> do_truncate(Task& t, uint32_t file, uint64_t new_size, uint64_t recorded_pages);

}  // namespace mmreplay::kernelsim
