// Knob `bh_invalidate`: how the per-CPU bh_lrus let go of buffer heads that pin pages a
// contiguous allocation must migrate (seed 004, kernel-mm.md section 4).
//   all       seed 004's patch (Gioh Kim, 2014): invalidate_bh_lrus() in alloc_contig_range()
//             before migration, an IPI to every other CPU
//   cond      the same call with on_each_cpu_cond(has_bh_in_lru): IPIs only to CPUs holding entries
//   selected  Laura Abbott's 2012 proposal: drop only the migrated pages' buffer heads by searching
//             every CPU's bh_lru from the migrating CPU (no IPI, a search per CPU)
//   none      mainline before 5.13: nothing; migration fails on a held buffer head and retries
//   drain     5.13+ (8cc621d2f45d): bh_lrus invalidated in the lru drain path, paid on every
//             lru_add_drain(); alloc_contig_range()'s lru_cache_disable() drains every CPU holding
//             entries and bh_lru_install() skips installs while the LRU caches are disabled

#pragma once

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

enum class BhInvalidateMode { kAll, kCond, kSelected, kNone, kDrain };

class BhInvalidatePolicy {
 public:
  virtual ~BhInvalidatePolicy() = default;
  virtual BhInvalidateMode mode() const = 0;
};

PolicyKnob bh_invalidate_knob();
PolicyValue bh_invalidate_all();
PolicyValue bh_invalidate_cond();
PolicyValue bh_invalidate_selected();
PolicyValue bh_invalidate_none();
PolicyValue bh_invalidate_drain();

}  // namespace mmreplay::kernelsim
