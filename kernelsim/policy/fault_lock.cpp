#include "kernelsim/policy/fault_lock.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

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

}  // namespace

PolicyKnob fault_lock_knob() {
  return {"fault_lock", "lock taken by the page-fault path", "mmap_sem", {}};
}

PolicyValue fault_lock_mmap_sem() {
  return {"mmap_sem", "every fault takes mmap_sem for read",
          [](PolicySet& s) { s.fault_lock = std::make_unique<MmapSem>(); }};
}

PolicyValue fault_lock_per_vma() {
  return {"per-vma", "per-VMA read lock, falling back to mmap_sem when write-locked (6.4+)",
          [](PolicySet& s) { s.fault_lock = std::make_unique<PerVma>(); }};
}

}  // namespace mmreplay::kernelsim
