#include "formats/varint.h"

namespace mmreplay::formats {

uint64_t VarintReader::get_slow() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p_ == end_) break;
    const uint8_t b = *p_++;
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return value;
  }
  failed_ = true;  // column ended inside a varint, or a varint longer than 64 bits
  p_ = end_;
  return 0;
}

SplitVarintReader::Tail SplitVarintReader::read_tail(const uint8_t* p, const uint8_t* end,
                                                     uint64_t low7) {
  uint64_t value = low7;
  for (int shift = 7; shift < 64; shift += 7) {
    if (p == end) break;
    const uint8_t b = *p++;
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return {value, p};
  }
  return {0, nullptr};  // the tail ended inside a varint, or a varint longer than 64 bits
}

}  // namespace mmreplay::formats
