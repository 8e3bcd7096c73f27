// mprotect (mm/mprotect.c): mmap_sem for write, vma_start_write(), split at the range ends, new
// protection on each VMA, change_pte_range() on the present ptes and one flush of the changed
// range (6.x batches it with an mmu_gather), then vma_merge() at the boundaries.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Models do_mprotect_pkey(). Returns 0, -ERRNO_EINVAL (misaligned) or -ERRNO_ENOMEM (hole in the
// range).
Co<int64_t> sys_mprotect(Task& t, uint64_t addr, uint64_t len, uint32_t prot);

}  // namespace mmreplay::kernelsim
