// madvise() advice that changes a VMA's flags (mm/madvise.c: madvise_vma_behavior() ->
// madvise_update_vma()): MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_DONTFORK, MADV_DOFORK,
// MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_DONTDUMP, MADV_DODUMP, MADV_WIPEONFORK, MADV_KEEPONFORK,
// MADV_MERGEABLE, MADV_UNMERGEABLE.
//
// These take mmap_sem for WRITE (madvise_need_mmap_write(): every advice not listed as a
// read-lock one), so a program that hints its mappings blocks its own faults meanwhile. Each VMA
// of the range whose flags change is write-locked (vma_start_write()), split at the range's ends
// (__split_vma()) and merged with its neighbours afterwards when their flags match again
// (vma_merge()); a VMA already carrying the flags is left alone. A hole in the range gives
// -ENOMEM while the mapped parts are still advised, as the kernel does.
//
// What the flags change in the model: VM_RAND_READ stops mmap read-around and the async windows
// of the VMA's faults, VM_SEQ_READ reads a sequential window from the missing page
// (mm/filemap_fault.h); VM_DONTCOPY leaves the VMA out of a fork's child and VM_WIPEONFORK gives
// the child an empty one (kernel/fork.h). VM_HUGEPAGE, VM_NOHUGEPAGE, VM_DONTDUMP and
// VM_MERGEABLE are kept (they split and merge VMAs) with no further effect: the model has no THP,
// no core dumps and no ksmd; MADV_MERGEABLE leaves a shared mapping as it is (ksm_madvise()).
// MADV_WIPEONFORK on a VMA that is not private anonymous memory fails with -EINVAL there.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;
class Mm;

// Whether `advice` is one of the flag advices above.
bool madvise_changes_vm_flags(int advice);

// Models madvise() for a flag advice over [start, end) of mm: the write lock, then
// madvise_update_vma() on each VMA. Returns 0, -ERRNO_ENOMEM (a hole) or -ERRNO_EINVAL.
// REQUIRES: madvise_changes_vm_flags(advice); start and end page aligned, start < end.
Co<int64_t> madvise_update_vmas(Task& t, Mm& mm, uint64_t start, uint64_t end, int advice);

}  // namespace mmreplay::kernelsim
