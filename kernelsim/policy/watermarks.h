// Knob `watermarks` (knob_table.cpp): how a zone's low and high watermarks are placed above min
// (mm/page_alloc.c: __setup_per_zone_wmarks()).
//   3.x           low = min + min/4, high = min + min/2; min_free_kbytes clamped at 64 MB.
//   scale-factor  4.6+ (795ae7a0de6b): gap = max(min/4, managed * watermark_scale_factor / 10000),
//                 low = min + gap, high = min + 2 * gap; min_free_kbytes clamped at 256 MB.
// min itself is min_free_kbytes in pages either way (PageAllocator computes it).

#pragma once

#include <cstdint>
#include <memory>

#include "kernelsim/policy/kernel_config.h"

namespace mmreplay::kernelsim {

struct WatermarkView {
  uint64_t min_pages = 0;      // WMARK_MIN of the zone
  uint64_t managed_pages = 0;  // zone_managed_pages()
};

class WatermarkPolicy {
 public:
  virtual ~WatermarkPolicy() = default;
  // The distance of low above min (high is min + 2 * gap under scale-factor, min + min/2
  // under 3.x).
  virtual uint64_t low_gap(const WatermarkView& v) const = 0;
  virtual uint64_t high_gap(const WatermarkView& v) const = 0;
  // Upper clamp of min_free_kbytes in KB.
  virtual uint64_t min_free_kbytes_ceil() const = 0;
};

// The decision procedure of knob watermarks.
std::unique_ptr<const WatermarkPolicy> make_watermark_policy(WatermarkFormula formula);

}  // namespace mmreplay::kernelsim
