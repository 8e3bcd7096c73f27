// mmap, munmap, brk and exit_mmap (mm/mmap.c, mm/vma.c).
//
// All take mmap_sem for write (mmap_write_lock_killable()). Unmapping is: vma_start_write() on
// each VMA (waits for per-VMA-lock readers), split at the range ends, tlb_gather_mmu(),
// zap_pte_range() per VMA, detach, free_pgtables(), tlb_finish_mmu() (one flush, then the
// frees), mmap_write_unlock(): knob munmap_lock=write, as 3.x did throughout.
// munmap_lock=downgrade (4.20+, dd2283f2605e; 6.12+ vms_complete_munmap_vmas()): munmap()
// detaches the VMAs under the write lock, then mmap_write_downgrade() and the zap, page-table
// frees and flush under the read lock, so faults elsewhere in the mm proceed during the zap.
// brk shrink, mremap and MAP_FIXED keep the write lock throughout here.
//
// Return values follow the syscalls: an address, or -errno (constants.h).

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;
class Mm;
struct Op;

// Models mmap_write_unlock(): up_write() then mm_lock_seq++ (drops every VMA write lock).
// REQUIRES: mmap_sem held for write by t.
Co<void> mmap_write_unlock(Task& t, Mm& mm);

// Models vma_start_write() on every VMA intersecting [start, end).
// REQUIRES: mmap_sem held for write by t.
Co<void> vma_start_write_range(Task& t, Mm& mm, uint64_t start, uint64_t end);

// Models mmap_write_downgrade(): vma_end_write_all() then downgrade_write().
// REQUIRES: mmap_sem held for write by t.
Co<void> mmap_write_downgrade(Task& t, Mm& mm);

// Models do_vmi_align_munmap() with unlock: detach under write, downgrade, zap under read, and
// mmap_read_unlock(); releases mmap_sem in every case.
// REQUIRES: mmap_sem held for write by t; start < end, page aligned.
Co<void> do_munmap_downgrade(Task& t, Mm& mm, uint64_t start, uint64_t end);

// Models do_vmi_munmap() under mmap_sem held for write: unmap [start, end) (holes allowed).
// REQUIRES: mmap_sem held for write by t; start < end, page aligned.
Co<void> do_munmap(Task& t, Mm& mm, uint64_t start, uint64_t end);

// Models ksys_mmap_pgoff() -> do_mmap(). Op fields: addr (hint or MAP_FIXED), len, prot,
// flags, file, offset. With op.addr_recorded, addr is where the kernel put it: taken even where
// the model has a mapping (unmapped first, counted in addr_mismatch). Returns the address or
// -errno.
Co<int64_t> sys_mmap(Task& t, const Op& op);
// Models __vm_munmap(). Returns 0 or -errno.
Co<int64_t> sys_munmap(Task& t, uint64_t addr, uint64_t len);
// Models sys_brk(). The first brk of an mm sets start_brk. Returns the new break (the old one
// when the request fails), as the syscall does. `recorded`: new_brk is the break the kernel
// returned, so growth takes the range even where the model has a mapping (addr_mismatch).
Co<int64_t> sys_brk(Task& t, uint64_t new_brk, bool recorded = false);
// Models exit_mmap(): tear down every VMA and PTE page, one gather, one flush.
// REQUIRES: t holds no lock of mm.
Co<void> exit_mmap(Task& t, Mm& mm);

}  // namespace mmreplay::kernelsim
