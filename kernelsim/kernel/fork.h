// The address-space side of fork (kernel/fork.c): the child's mm becomes a copy of the parent's.
//
// dup_mmap() runs at the fork moment with the parent's mmap_sem held for write: each VMA is
// duplicated (vm_area_dup()) and its ptes copied (copy_page_range(), mm/memory.h), private
// anonymous pages shared copy-on-write between the two mms; then the parent's TLB is flushed
// (flush_tlb_mm()), since its ptes were write-protected. The two mms become each other's
// cow_peers (mm_types.h).
//
// Known simplification: the trace gives the fork moment to the child's stream (its mm_create),
// so the child's task does the copy and its flush reaches the parent's CPUs by IPI; the kernel
// does it in the parent's fork().

#pragma once

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Mm;
class Task;

// Models dup_mmap(): fills mm from oldmm. Returns false when a page-table allocation failed
// (the VMAs copied so far stay).
// REQUIRES: mm has no VMAs and was not forked before; oldmm is not mm and not dead; t holds
// neither mm's mmap_sem.
Co<bool> dup_mmap(Task& t, Mm& mm, Mm& oldmm);

}  // namespace mmreplay::kernelsim
