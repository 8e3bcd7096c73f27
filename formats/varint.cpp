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

uint64_t SplitVarintReader::get_tail(uint64_t low7) {
  uint64_t value = low7;
  for (int shift = 7; shift < 64; shift += 7) {
    if (tail_ == tail_end_) break;
    const uint8_t b = *tail_++;
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return value;
  }
  failed_ = true;  // the tail ended inside a varint, or a varint longer than 64 bits
  head_ = head_end_;
  tail_ = tail_end_;
  return 0;
}

}  // namespace mmreplay::formats
