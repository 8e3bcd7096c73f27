#include "formats/varint.h"

#include <gtest/gtest.h>

#include <limits>

namespace mmreplay::formats {
namespace {

TEST(Varint, ZigzagRoundTripsExtremes) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{4096}, int64_t{-4096},
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    EXPECT_EQ(zigzag_decode(zigzag_encode(v)), v);
  }
  EXPECT_EQ(zigzag_encode(-1), 1u);  // small magnitudes stay small
  EXPECT_EQ(zigzag_encode(1), 2u);
}

TEST(Varint, RoundTripsEveryLength) {
  VarintWriter w;
  std::vector<uint64_t> values;
  for (int bits = 0; bits <= 64; ++bits) {
    const uint64_t v = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    values.push_back(v);
    w.put(v);
  }
  VarintReader r(reinterpret_cast<const uint8_t*>(w.bytes().data()), w.size());
  for (uint64_t v : values) EXPECT_EQ(r.get(), v);
  EXPECT_TRUE(r.at_end());
  EXPECT_FALSE(r.failed());
}

TEST(Varint, CutVarintFailsInsteadOfReadingPast) {
  const uint8_t cut[] = {0x80, 0x80};  // continuation bits with nothing after them
  VarintReader r(cut, sizeof cut);
  EXPECT_EQ(r.get(), 0u);
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.get(), 0u);  // stays failed, stays in bounds
}

TEST(Varint, OverlongVarintFails) {
  uint8_t too_long[11];
  for (auto& b : too_long) b = 0xff;
  too_long[10] = 0x01;
  VarintReader r(too_long, sizeof too_long);
  r.get();
  EXPECT_TRUE(r.failed());
}

TEST(Varint, EmptyColumnFails) {
  VarintReader r(nullptr, 0);
  EXPECT_EQ(r.get(), 0u);
  EXPECT_TRUE(r.failed());
}

}  // namespace
}  // namespace mmreplay::formats
