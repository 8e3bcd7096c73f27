// Knob `fault_lock` (knob_table.cpp): which lock a page fault takes.
//   mmap_sem  every fault takes mmap_sem for read (all kernels before 6.4).
//   per-vma   6.4+: lock_vma_under_rcu() read-trylocks the VMA; when the VMA is write-locked (a
//             writer holds mmap_sem and called vma_start_write()) or not covered, the fault falls
//             back to mmap_sem (lock_mm_and_find_vma()). 6.4 covered anonymous VMAs only.
//   per-vma-all 6.7+: the same for every VMA (file-backed read, COW and shared faults too).

#pragma once

#include <memory>

#include "kernelsim/policy/kernel_config.h"

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

// The decision procedure of knob fault_lock.
std::unique_ptr<const FaultLockPolicy> make_fault_lock_policy(FaultLockMode mode);

}  // namespace mmreplay::kernelsim
