// Knob `fault_lock`: which lock a page fault takes.
//   mmap_sem  every fault takes mmap_sem for read (all kernels before 6.4).
//   per-vma   6.4+: lock_vma_under_rcu() read-trylocks the VMA; when the VMA is write-locked (a
//             writer holds mmap_sem and called vma_start_write()) or not covered, the fault falls
//             back to mmap_sem (lock_mm_and_find_vma()). 6.4 covered anonymous VMAs only.

#pragma once

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

struct FaultLockView {
  bool vma_is_anonymous = false;
};

class FaultLockPolicy {
 public:
  virtual ~FaultLockPolicy() = default;
  // True when the fault should first try the per-VMA lock.
  virtual bool try_per_vma_lock(const FaultLockView& view) const = 0;
};

PolicyKnob fault_lock_knob();
PolicyValue fault_lock_mmap_sem();
PolicyValue fault_lock_per_vma();

}  // namespace mmreplay::kernelsim
