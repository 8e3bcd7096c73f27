#include "kernelsim/policy/madv_free.h"

namespace mmreplay::kernelsim {
namespace {

// Models mm/madvise.c: madvise_free_single_vma() as seed 000 measured it, before its fix.
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
// nr_free_pages() > threshold, threshold = min_free_kbytes pages * 1.5. nr_free_pages() is
// global_page_state(NR_FREE_PAGES), every zone's: ZONE_DMA's reserved free pages are in it.
class Throttled final : public MadvFreePolicy {
 public:
  MadvFreeAction decide(const MadvFreeView& v) const override {
    const uint64_t threshold = v.min_free_pages + (v.min_free_pages >> 1);
    const uint64_t nr_free_pages = v.zone_free_pages + v.dma_reserved_free_pages;
    return nr_free_pages > threshold ? MadvFreeAction::kLazyFree : MadvFreeAction::kDontNeed;
  }
};

// Models madvise_free_pte_range() with seed 000's fix, as merged (4.5+, 854e9ed09ded): swap
// entries in the range are freed.
class FreeSwapped final : public MadvFreePolicy {
 public:
  MadvFreeAction decide(const MadvFreeView&) const override { return MadvFreeAction::kLazyFree; }
  bool free_swapped() const override { return true; }
};

}  // namespace

std::unique_ptr<const MadvFreePolicy> make_madv_free_policy(MadvFreeMode mode) {
  switch (mode) {
    case MadvFreeMode::kLazy:
      return std::make_unique<LazyFree>();
    case MadvFreeMode::kAsDontneed:
      return std::make_unique<AsDontNeed>();
    case MadvFreeMode::kThrottled:
      return std::make_unique<Throttled>();
    case MadvFreeMode::kFreeSwapped:
      return std::make_unique<FreeSwapped>();
  }
  return std::make_unique<LazyFree>();
}

}  // namespace mmreplay::kernelsim
