// The page-cache side of a fault on a file mapping (mm/filemap.c: filemap_fault()).
//
// A fault on a pte with no page of a file-backed VMA reads the page through the page cache, as
// read(2) does (mm/filemap.h): found, it is mapped at once (a minor fault); missing, the fault is
// major: it starts the mappings' read-around (do_sync_mmap_readahead(): ra_pages centred on the
// page, the last quarter read ahead) and waits for the page's read. A fault that reaches a
// window's marked page reads the next window without waiting (do_async_mmap_readahead()). Once
// the file's mappings have missed MMAP_LOTSAMISS times more than they hit, read-around stops and
// a miss reads its page alone. A file cached at the start (--cache warm) is found there: its page
// gets a frame on its first fault, with no read.
//
// The page found is the page a shared mapping maps (do_read_fault(), do_shared_fault(): the
// pte holds a page-cache page, counted in PageCache::mapcount()), or the source a private write
// fault copies (do_cow_fault()). A write fault on a shared mapping dirties the page
// (do_shared_fault() -> fault_dirty_shared_page()) and may be paused by balance_dirty_pages().
//
// Before a read fault reads its own page, fault-around (mm/memory.c do_fault_around(), 3.15+,
// policy knob fault_around_bytes) maps the cached, uptodate pages of its aligned window, its own
// among them: a walk over a cached file faults once a window, and a recorded program's faults map
// the neighbours the kernel mapped with them (its file rss). The readahead mark is left to its
// own fault, which starts the next window.
//
// Not modelled: MADV_RANDOM and MADV_SEQUENTIAL (VM_RAND_READ, VM_SEQ_READ), large folios and
// DAX.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;
struct Vma;

// linear_page_index(): the page of vma's file that addr maps.
uint64_t linear_page_index(const Vma& vma, uint64_t addr);

// Models filemap_fault(): page linear_page_index(vma, addr) of vma's file, found in the page
// cache or read into it, uptodate when this returns. Returns false when no page could be
// allocated (the task was OOM-killed). The kernel holds a reference on the page until it is
// mapped; the model holds none, so a caller that suspends afterwards looks the page up again
// under the PTL and faults again if reclaim took it meanwhile.
// REQUIRES: vma is file-backed; t holds no spinlock.
Co<bool> filemap_fault(Task& t, const Vma& vma, uint64_t addr);

}  // namespace mmreplay::kernelsim
