// Dropping bh_lru entries so that the pages their buffer heads pin can migrate (fs/buffer.c;
// seed 004, kernel-mm.md section 4). Which of these run, and where, is policy `bh_invalidate`
// (policy/bh_invalidate.h); mm/alloc_contig.cpp and mm/migrate.cpp call them.

#pragma once

#include <cstdint>

#include "kernelsim/fs/buffer.h"
#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Models fs/buffer.c: has_bh_in_lru(): the CPU's bh_lru holds an entry.
bool has_bh_in_lru(const BufferCache& cache, uint32_t cpu);
// Models fs/buffer.c: invalidate_bh_lru() / __invalidate_bh_lrus(): every entry of `cpu`'s bh_lru
// is brelse()d and the LRU emptied. Returns the handler's duration.
SimTime invalidate_bh_lru(BufferCache& cache, uint32_t cpu, const CostProfile& costs,
                          VmCounters& vm);
// Models fs/buffer.c: invalidate_bh_lrus(): on_each_cpu() (all CPUs, seed 004's view) or, with
// `only_holding`, on_each_cpu_cond(has_bh_in_lru) (2012+): t's own bh_lru is invalidated in place,
// the others by IPI (kernel/smp.h), t waiting for them. Counts the IPIs in bh_invalidate_ipis.
Co<void> invalidate_bh_lrus(Task& t, bool only_holding);
// Laura Abbott's 2012 proposal (seed 004's "dropping selected bh"): search every CPU's bh_lru
// for `key` from t's CPU, without IPIs, and drop (brelse) the entry where found. Each CPU
// searched costs a remote line transfer and a scan of its slots.
// REQUIRES: called right after a SharedStep (other CPUs' LRUs are shared state).
void drop_bh_from_lrus(Task& t, BhKey key);
// The 5.13+ drain placement (8cc621d2f45d, invalidate_bh_lrus_cpu()): t's CPU bh_lru is
// invalidated from lru_add_drain().
void invalidate_bh_lrus_cpu(Task& t);

}  // namespace mmreplay::kernelsim
