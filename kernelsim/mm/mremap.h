// mremap (mm/mremap.c): mmap_sem for write. Shrinking unmaps the tail; growing extends in place
// when the following range is free (vma_expand()), else (MREMAP_MAYMOVE) moves the VMA:
// move_page_tables() carries the ptes to the new place (PTE pages allocated there as needed),
// the old range is flushed once and its PTE pages freed.
//
// A recorded trace says where the kernel left the mapping (Op::addr_recorded, new_addr): the
// model does what the kernel did, in place or moved to new_addr (as mremap_to() would with
// MREMAP_FIXED), whatever it would have chosen; where its own view disagrees (the recorded range
// holds a mapping, or the kernel moved what the model could have grown in place) it follows the
// trace and counts addr_mismatch.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;
struct Op;

// Models sys_mremap(). Op fields: addr, len (old), new_len, flags (MREMAP_*), new_addr (with
// MREMAP_FIXED, or the recorded result with addr_recorded; 0 = the model chooses).
// Returns the new address or -errno.
Co<int64_t> sys_mremap(Task& t, const Op& op);

}  // namespace mmreplay::kernelsim
