#include "kernelsim/policy/watermarks.h"

#include <algorithm>
#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {
namespace {

// Models mm/page_alloc.c: __setup_per_zone_wmarks() (3.x).
class Wmark3x final : public WatermarkPolicy {
 public:
  uint64_t low_gap(const WatermarkView& v) const override { return v.min_pages >> 2; }
  uint64_t high_gap(const WatermarkView& v) const override { return v.min_pages >> 1; }
  uint64_t min_free_kbytes_ceil() const override { return MIN_FREE_KBYTES_CEIL_3X; }
};

// Models mm/page_alloc.c: __setup_per_zone_wmarks() (4.6+, 795ae7a0de6b).
class WmarkScaleFactor final : public WatermarkPolicy {
 public:
  uint64_t low_gap(const WatermarkView& v) const override {
    return std::max(v.min_pages >> 2, v.managed_pages * watermark_scale_factor / 10000);
  }
  uint64_t high_gap(const WatermarkView& v) const override { return 2 * low_gap(v); }
  uint64_t min_free_kbytes_ceil() const override { return MIN_FREE_KBYTES_CEIL; }
};

}  // namespace

std::unique_ptr<const WatermarkPolicy> make_watermark_policy(WatermarkFormula formula) {
  if (formula == WatermarkFormula::k3x) return std::make_unique<Wmark3x>();
  return std::make_unique<WmarkScaleFactor>();
}

}  // namespace mmreplay::kernelsim
