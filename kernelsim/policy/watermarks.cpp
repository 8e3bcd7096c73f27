#include "kernelsim/policy/watermarks.h"

#include <algorithm>
#include <memory>

#include "kernelsim/constants.h"
#include "kernelsim/policy/policy_set.h"

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

PolicyKnob watermarks_knob() {
  return {"watermarks", "zone low/high watermark formula", "scale-factor", {}};
}

PolicyValue watermarks_3x() {
  return {"3.x", "low = min + min/4, high = min + min/2 (before 4.6)",
          [](PolicySet& s) { s.watermarks = std::make_unique<Wmark3x>(); }};
}

PolicyValue watermarks_scale_factor() {
  return {"scale-factor", "gap = max(min/4, managed * watermark_scale_factor / 10000) (4.6+)",
          [](PolicySet& s) { s.watermarks = std::make_unique<WmarkScaleFactor>(); }};
}

}  // namespace mmreplay::kernelsim
