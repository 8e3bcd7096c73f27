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

// Format 1.6 columns: first bytes in the head, the rest in the tail.
TEST(SplitVarint, RoundTripsEveryLengthAndPagedForm) {
  SplitVarintWriter w;
  std::vector<uint64_t> values;
  size_t written = 0;
  for (int bits = 0; bits <= 64; ++bits) {
    const uint64_t v = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    values.push_back(v);
    written += w.put(v);
  }
  written += w.put_paged(0x5000) + w.put_paged(0x5001) + w.put_paged_signed(-0x3000) +
             w.put_paged_signed(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(w.head().size(), values.size() + 5);  // one head byte per varint
  EXPECT_EQ(written, w.head().size() + w.tail().size());
  SplitVarintReader r(reinterpret_cast<const uint8_t*>(w.head().data()), w.head().size(),
                      reinterpret_cast<const uint8_t*>(w.tail().data()), w.tail().size());
  for (uint64_t v : values) EXPECT_EQ(r.get(), v);
  EXPECT_EQ(r.get_paged(), 0x5000u);
  EXPECT_EQ(r.get_paged(), 0x5001u);
  EXPECT_EQ(r.get_paged_signed(), -0x3000);
  EXPECT_EQ(r.get_paged_signed(), std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(r.at_end());
  EXPECT_FALSE(r.failed());
}

TEST(SplitVarint, MissingTailOrHeadFailsInsteadOfReadingPast) {
  const uint8_t head[] = {0x85, 0x01};
  const uint8_t tail[] = {0x80};  // the first varint continues past the tail's end
  SplitVarintReader r(head, sizeof head, tail, sizeof tail);
  EXPECT_EQ(r.get(), 0u);
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.get(), 0u);  // stays failed, stays in bounds
  SplitVarintReader empty(head, 0, tail, 0);
  EXPECT_EQ(empty.get(), 0u);
  EXPECT_TRUE(empty.failed());
}

// get_if reads only when told, one-byte values without a branch and longer ones through get().
TEST(SplitVarint, GetIfReadsOnlyWhenPresent) {
  SplitVarintWriter w;
  for (uint64_t v : {uint64_t{5}, uint64_t{0x7f}, uint64_t{300}, ~uint64_t{0}, uint64_t{0}})
    w.put(v);
  SplitVarintReader r(reinterpret_cast<const uint8_t*>(w.head().data()), w.head().size(),
                      reinterpret_cast<const uint8_t*>(w.tail().data()), w.tail().size());
  EXPECT_EQ(r.get_if(false), 0u);
  EXPECT_EQ(r.get_if(true), 5u);
  EXPECT_EQ(r.get_if(false), 0u);
  EXPECT_EQ(r.get_if(true), 0x7fu);
  EXPECT_EQ(r.get_if(true), 300u);
  EXPECT_EQ(r.get_if(false), 0u);
  EXPECT_EQ(r.get_if(true), ~uint64_t{0});
  EXPECT_EQ(r.get_if(true), 0u);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(r.get_if(false), 0u);  // nothing left, nothing asked: no error
  EXPECT_FALSE(r.failed());
  EXPECT_EQ(r.get_if(true), 0u);  // nothing left, one asked: the column is short
  EXPECT_TRUE(r.failed());
}

}  // namespace
}  // namespace mmreplay::formats
