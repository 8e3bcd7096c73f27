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

// Models seed 000 "[PATCH RFC 1/4] mm: throttle MADV_FREE": madvise_vma() frees at once unless
// nr_free_pages() > threshold, threshold = min_free_kbytes pages * 1.5.
class Throttled final : public MadvFreePolicy {
 public:
  MadvFreeAction decide(const MadvFreeView& v) const override {
    const uint64_t threshold = v.min_free_pages + (v.min_free_pages >> 1);
    return v.zone_free_pages > threshold ? MadvFreeAction::kLazyFree : MadvFreeAction::kDontNeed;
  }
};

// Models seed 000's madvise_free_pte_range() fix: swap entries in the range are freed.
class FreeSwapped final : public MadvFreePolicy {
 public:
  MadvFreeAction decide(const MadvFreeView&) const override { return MadvFreeAction::kLazyFree; }
  bool free_swapped() const override { return true; }
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

PolicyValue madv_free_throttled() {
  return {"throttled", "seed 000 RFC: DONTNEED while free pages <= 1.5 x min watermark, else lazy",
          [](PolicySet& s) { s.madv_free = std::make_unique<Throttled>(); }};
}

PolicyValue madv_free_free_swapped() {
  return {"free-swapped", "seed 000 fix: lazy, and swap entries in the range are freed",
          [](PolicySet& s) { s.madv_free = std::make_unique<FreeSwapped>(); }};
}

}  // namespace mmreplay::kernelsim
