// read(2) of a regular file through the page cache without buffer heads (mm/filemap.c).
//
// Models filemap_read(): each round of its loop, filemap_get_pages() ->
// filemap_get_read_batch() takes a batch of up to PAGEVEC_SIZE_FOLIO_BATCH cached pages of the
// range with one walk from the xarray root (CostProfile::find_get_page) and xas_next() from
// there, stopping at the first page not in the cache; each page of the batch then costs
// CostProfile::filemap_read_page (reference, checks, folio_mark_accessed(), folio_put()) and the
// copy of its bytes (copy_folio_to_iter(), CostProfile::file_copy_page per 4 KiB). A page not in
// the cache (an empty batch) starts readahead (mm/readahead.h: page_cache_sync_ra()) and the batch
// is taken again; only a page readahead could not allocate is created alone
// (filemap_create_folio()). A batch ends at a page whose read is in flight, waited for
// (filemap_update_page()), and at the reader's readahead mark, which starts the next window
// (filemap_readahead()).
// filemap_splice_read() walks the pages alike but copies nothing: it hands them to a pipe by
// reference (splice_folio_into_pipe()), the source of an in-kernel copy (copy_file_range(),
// sendfile(): do_splice_direct()), whose destination's write makes the one copy.
// No buffer head is looked up: the kernel reads cached pages of a regular file without them.
// Files of unknown kind and block devices keep the buffer-head walk (fs/read_write.h).

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Models mm/filemap.c: filemap_read() of [offset, offset + len) of `file`, after the syscall
// entry. Returns len, or -ENOMEM when a page could not be allocated (the task was OOM-killed).
// REQUIRES: t holds no spinlock.
Co<int64_t> filemap_read(Task& t, uint32_t file, uint64_t offset, uint64_t len);
// Models mm/filemap.c: filemap_splice_read(): as filemap_read() without the copy of the bytes.
Co<int64_t> filemap_splice_read(Task& t, uint32_t file, uint64_t offset, uint64_t len);

}  // namespace mmreplay::kernelsim
