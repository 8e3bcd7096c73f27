#include "kernelsim/policy/fault_lock.h"

namespace mmreplay::kernelsim {
namespace {

class MmapSem final : public FaultLockPolicy {
 public:
  bool try_per_vma_lock(const FaultLockView&) const override { return false; }
};

// Models mm/memory.c: lock_vma_under_rcu() as merged in 6.4 (anonymous VMAs only).
class PerVma final : public FaultLockPolicy {
 public:
  bool try_per_vma_lock(const FaultLockView& v) const override { return v.vma_is_anonymous; }
};

// Models lock_vma_under_rcu() from 6.7 on: file-backed VMAs are no longer refused (their read,
// COW and shared faults run under the VMA lock).
class PerVmaAll final : public FaultLockPolicy {
 public:
  bool try_per_vma_lock(const FaultLockView&) const override { return true; }
};

}  // namespace

std::unique_ptr<const FaultLockPolicy> make_fault_lock_policy(FaultLockMode mode) {
  if (mode == FaultLockMode::kPerVma) return std::make_unique<PerVma>();
  if (mode == FaultLockMode::kPerVmaAll) return std::make_unique<PerVmaAll>();
  return std::make_unique<MmapSem>();
}

}  // namespace mmreplay::kernelsim
