// mremap (mm/mremap.c): mmap_sem for write. Shrinking unmaps the tail; growing extends in place
// when the following range is free (vma_expand()), else (MREMAP_MAYMOVE) moves the VMA:
// move_page_tables() carries the ptes to the new place (PTE pages allocated there as needed),
// the old range is flushed once and its PTE pages freed.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;
struct Op;

// Models sys_mremap(). Op fields: addr, len (old), new_len, flags (MREMAP_*), new_addr.
// Returns the new address or -errno.
Co<int64_t> sys_mremap(Task& t, const Op& op);

}  // namespace mmreplay::kernelsim
