// Knob `bh_lru_size`: entries of each CPU's buffer-head LRU (fs/buffer.c BH_LRU_SIZE).
//   8   before 3.18
//   16  3.18+ (86cf78d73de8: ext4 file creation with quota touches about 9 buffer heads)

#pragma once

#include <cstdint>

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class BhLruSizePolicy {
 public:
  virtual ~BhLruSizePolicy() = default;
  virtual uint32_t size() const = 0;
};

PolicyKnob bh_lru_size_knob();
PolicyValue bh_lru_size_8();
PolicyValue bh_lru_size_16();

}  // namespace mmreplay::kernelsim
