// Knob `pagevec_size`: pages per per-CPU LRU batch, drained under lru_lock when full.
//   14  3.x PAGEVEC_SIZE
//   15  PAGEVEC_SIZE from ~4.15 (version unverified, kernel-mm.md section 2)
//   31  6.9+ folio_batch (9cecde80aae0)

#pragma once

#include <cstdint>

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class PagevecSizePolicy {
 public:
  virtual ~PagevecSizePolicy() = default;
  virtual uint32_t size() const = 0;
};

PolicyKnob pagevec_size_knob();
PolicyValue pagevec_size_14();
PolicyValue pagevec_size_15();
PolicyValue pagevec_size_31();

}  // namespace mmreplay::kernelsim
