#include "kernelsim/policy/madvise_vector.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

class PerCall final : public MadviseVectorPolicy {
 public:
  bool batch_ranges(size_t) const override { return false; }
};

// Models seed 002's madvisev(): one mmap_sem read hold and one mmu_gather for the vector.
class Vector final : public MadviseVectorPolicy {
 public:
  bool batch_ranges(size_t) const override { return true; }
};

}  // namespace

PolicyKnob madvise_vector_knob() {
  return {"madvise", "how a vector madvise executes (seed 002)", "per-call", {}};
}

PolicyValue madvise_per_call() {
  return {"per-call", "one madvise() per range: a lock acquisition and a flush each",
          [](PolicySet& s) { s.madvise = std::make_unique<PerCall>(); }};
}

PolicyValue madvise_vector() {
  return {"vector", "one syscall, one mmap_sem hold and one mmu_gather flush for all ranges",
          [](PolicySet& s) { s.madvise = std::make_unique<Vector>(); }};
}

}  // namespace mmreplay::kernelsim
