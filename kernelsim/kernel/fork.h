// The address-space side of fork (kernel/fork.c): the child's mm becomes a copy of the parent's.
//
// dup_mmap() runs at the fork moment with the parent's mmap_sem held for write: each VMA is
// duplicated (vm_area_dup()) and its ptes copied (copy_page_range(), mm/memory.h), private
// anonymous pages shared copy-on-write between the two mms; then the parent's TLB is flushed
// (flush_tlb_mm()), since its ptes were write-protected. The two mms become each other's
// cow_peers (mm_types.h).
//
// The fork moment is the parent's clone (do_clone()): the parent's task does the copy, as the
// kernel does it in the parent's fork(), and the child starts after it, so the copy holds what
// the parent's replay had written up to there. Traces without clone events (format < 1.4) give
// the moment to the child's stream instead (its mm_create, do_mm_switch()): the child's task then
// does the copy at its recorded start, and its flush reaches the parent's CPUs by IPI.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Mm;
class Task;

// Models dup_mmap(): fills mm from oldmm. Returns false when a page-table allocation failed
// (the VMAs copied so far stay).
// REQUIRES: mm has no VMAs and was not forked before; oldmm is not mm and not dead; t holds
// neither mm's mmap_sem.
Co<bool> dup_mmap(Task& t, Mm& mm, Mm& oldmm);

// True when `mm` still waits for its fork copy from `oldmm`: a fresh mm, never forked, not
// oldmm itself, and oldmm alive.
bool needs_dup_mmap(const Mm& mm, const Mm& oldmm);

// Models kernel/fork.c: kernel_clone() in the parent. Starts the task that waits under
// `child_key` (Simulation::spawn_thread_on_clone()) at t's clock; when that task's mm is not t's
// and needs_dup_mmap(), t first copies its own mm into it (copy_mm() -> dup_mm() -> dup_mmap()).
// Returns false when no task waits under the key (the child was not traced).
Co<bool> do_clone(Task& t, uint64_t child_key);

}  // namespace mmreplay::kernelsim
