// Knob `madv_free`: what MADV_FREE does.
//   lazy        4.5+ (854e9ed09ded): pages stay mapped, dirty/young cleared, marked lazyfree;
//               reclaim may discard them while clean; a write makes them normal again.
//   as-dontneed MADV_FREE behaves as MADV_DONTNEED (the 4.5-4.11 swapless fallback, and what
//               allocators do on kernels without MADV_FREE).
// Seed 000's throttled variants plug in here with a view of free memory.

#pragma once

#include <cstdint>

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

struct MadvFreeView {
  uint64_t nr_pages = 0;            // pages in the advised range
  uint64_t zone_free_pages = 0;     // free pages in the zone now
  uint64_t zone_managed_pages = 0;  // pages the zone manages
};

enum class MadvFreeAction { kLazyFree, kDontNeed };

class MadvFreePolicy {
 public:
  virtual ~MadvFreePolicy() = default;
  virtual MadvFreeAction decide(const MadvFreeView& view) const = 0;
};

PolicyKnob madv_free_knob();
PolicyValue madv_free_lazy();
PolicyValue madv_free_as_dontneed();

}  // namespace mmreplay::kernelsim
