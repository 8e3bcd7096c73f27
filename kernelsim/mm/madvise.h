// madvise and the vector madvise of seed 002 (mm/madvise.c).
//
// madvise_need_mmap_write() decides the lock: the advice modelled here (MADV_DONTNEED,
// MADV_FREE, MADV_WILLNEED, and MADV_COLD and MADV_PAGEOUT: mm/madvise_cold.h) all take mmap_sem
// for read, as do MADV_POPULATE_READ/WRITE (mm/madvise_populate.h); the advice that changes VMA
// flags (MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_DONTFORK, MADV_HUGEPAGE,
// MADV_MERGEABLE, ...) takes it for write (mm/madvise_behavior.h). Other advice fails with
// -EINVAL.
//   MADV_DONTNEED  madvise_dontneed_single_vma(): lru_add_drain(), then per VMA an mmu_gather,
//                  zap_pte_range(), tlb_finish_mmu() (one flush per VMA).
//   MADV_FREE      policy madv_free: `free-swapped` (4.5+) runs madvise_free_single_vma():
//                  lru_add_drain(), per VMA an mmu_gather; each present own page has young/dirty
//                  cleared (a flush entry when either was set), becomes lazyfree, staying mapped,
//                  and goes to the lru_lazyfree batch; swap entries are freed. Only anonymous VMAs
//                  (-ERRNO_EINVAL otherwise). `lazy` (seed 000 before its fix) keeps the swap
//                  entries; `as-dontneed` zaps; `throttled` zaps while free pages (every zone's,
//                  ZONE_DMA's reserve included) are at or below 1.5 x min_free_kbytes, else acts
//                  as `lazy`. A hinted page that came back from swap keeps PG_dirty under
//                  lazyfree_pgdirty=kept (the 2015 series), which keeps reclaim from discarding
//                  it (mm/vmscan.h); 4.5+ clears it (`cleared`).
// The lock (knob madvise_lock): mmap_sem for read; or, 6.17+ for MADV_DONTNEED and MADV_FREE,
// the per-VMA read lock when the range lies in one VMA (try_vma_read_lock()), falling back to
// mmap_sem for read for the rest of the call when it does not or the VMA is write-locked.
// The vector form (knob madvise):
//   per-call         one madvise() per range;
//   vector           seed 002's madvisev: the syscall, mmap_sem and ONE mmu_gather for all ranges;
//   process-madvise  6.16+ vector_madvise(): one syscall, the lock as one madvise() takes it
//                    (so per range in VMA read-lock mode), ONE mmu_gather for the DONTNEED/FREE
//                    ranges; it stops at the first range that fails.

#pragma once

#include <cstdint>
#include <vector>

#include "kernelsim/sim/co.h"
#include "kernelsim/sim/op.h"

namespace mmreplay::kernelsim {

class Task;

// Models do_madvise(). Returns 0, -ERRNO_EINVAL or -ERRNO_ENOMEM (a hole in the range; the mapped
// parts are still advised, as the kernel does).
Co<int64_t> sys_madvise(Task& t, uint64_t addr, uint64_t len, int advice);

// Models madvisev() / process_madvise() on the caller's mm, per policy `madvise`.
// Returns 0 or the first error.
Co<int64_t> sys_madvise_vec(Task& t, const std::vector<AddrRange>& ranges, int advice);

}  // namespace mmreplay::kernelsim
