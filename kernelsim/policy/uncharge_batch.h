// Knob `uncharge_batch`: how many freed pages one memcg uncharge covers on the zap path
// (munmap, MADV_DONTNEED, exit), seed 001.
//   pagevec  3.17-rc1/rc2: free_pages_and_swap_cache() fed release_pages() PAGEVEC_SIZE pages at
//            a time, so mem_cgroup_uncharge_list() took the counter once per pagevec
//   gather   3.17 fix (aabfb57296e3): release_pages() gets each whole mmu_gather batch, one
//            uncharge per batch (and the lru_lock dropped every SWAP_CLUSTER_MAX pages)

#pragma once

#include <cstdint>

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class UnchargeBatchPolicy {
 public:
  virtual ~UnchargeBatchPolicy() = default;
  // True: one uncharge per mmu_gather batch; false: one per PAGEVEC_SIZE chunk of it.
  virtual bool per_gather_batch() const = 0;
};

PolicyKnob uncharge_batch_knob();
PolicyValue uncharge_batch_pagevec();
PolicyValue uncharge_batch_gather();

}  // namespace mmreplay::kernelsim
