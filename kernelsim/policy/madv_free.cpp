#include "kernelsim/policy/madv_free.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

// Models mm/madvise.c: madvise_free_single_vma() (4.5+, 854e9ed09ded).
class LazyFree final : public MadvFreePolicy {
 public:
  MadvFreeAction decide(const MadvFreeView&) const override { return MadvFreeAction::kLazyFree; }
};

// Models MADV_FREE falling back to madvise_dontneed_single_vma() (4.5-4.11 without swap).
class AsDontNeed final : public MadvFreePolicy {
 public:
  MadvFreeAction decide(const MadvFreeView&) const override { return MadvFreeAction::kDontNeed; }
};

}  // namespace

PolicyKnob madv_free_knob() {
  return {"madv_free", "what MADV_FREE does (seed 000)", "lazy", {}};
}

PolicyValue madv_free_lazy() {
  return {"lazy", "pages stay mapped and become lazyfree (4.5+, 854e9ed09ded)",
          [](PolicySet& s) { s.madv_free = std::make_unique<LazyFree>(); }};
}

PolicyValue madv_free_as_dontneed() {
  return {"as-dontneed", "MADV_FREE zaps like MADV_DONTNEED (swapless 4.5-4.11, pre-4.5 allocators)",
          [](PolicySet& s) { s.madv_free = std::make_unique<AsDontNeed>(); }};
}

}  // namespace mmreplay::kernelsim
