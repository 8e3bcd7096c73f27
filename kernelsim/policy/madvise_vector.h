// Knob `madvise`: how a vector madvise (seed 002's madvisev, process_madvise) is executed.
//   per-call  one madvise() per range: r syscalls, r mmap_sem acquisitions, r TLB flushes.
//   vector    one syscall, one mmap_sem acquisition and one mmu_gather (one flush) for all ranges.

#pragma once

#include <cstddef>

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class MadviseVectorPolicy {
 public:
  virtual ~MadviseVectorPolicy() = default;
  // True when all `nr_ranges` ranges share one syscall, lock acquisition and mmu_gather.
  virtual bool batch_ranges(size_t nr_ranges) const = 0;
};

PolicyKnob madvise_vector_knob();
PolicyValue madvise_per_call();
PolicyValue madvise_vector();

}  // namespace mmreplay::kernelsim
