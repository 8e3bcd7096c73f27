// AddressOrder (formats/import/address_order.h): which uses of a range get an edge from the
// change that made it, and which do not need one.

#include "formats/import/address_order.h"

#include <gtest/gtest.h>

namespace mmreplay::formats::detail {
namespace {

constexpr uint64_t kMm = 5;
constexpr uint64_t kA = 0x7f0000000000;
constexpr uint64_t kMiB = 1 << 20;

bool same(ItemRef x, ItemRef y) {
  return x.thread == y.thread && x.index == y.index;
}

TEST(AddressOrder, OnlyTheFirstUseByEachOtherThreadGetsAnEdge) {
  AddressOrder order(nullptr);
  order.change(kMm, kA, kA + kMiB, {0, 3});          // thread 0 mmaps
  order.use(kMm, kA, kA + 4096, {0, 4});             // its own fault: no edge
  order.use(kMm, kA, kA + 4096, {1, 0});             // thread 1's madvise: an edge
  order.use(kMm, kA + 8192, kA + 8193, {1, 1});      // thread 1 again: ordered already
  order.use(kMm, kA + kMiB - 1, kA + kMiB, {2, 7});  // thread 2's fault at the end: an edge
  order.use(kMm + 1, kA, kA + 4096, {3, 0});         // another mm: nothing
  order.use(kMm, kA + kMiB, kA + 2 * kMiB, {3, 1});  // past the range: nothing
  ASSERT_EQ(order.edges().size(), 2u);
  EXPECT_TRUE(same(order.edges()[0].from, {0, 3}));
  EXPECT_TRUE(same(order.edges()[0].to, {1, 0}));
  EXPECT_TRUE(same(order.edges()[1].to, {2, 7}));
}

TEST(AddressOrder, AUseAfterALaterChangeFollowsThatChange) {
  AddressOrder order(nullptr);
  order.change(kMm, kA, kA + kMiB, {0, 1});         // thread 0 mmaps 1 MiB
  order.use(kMm, kA, kA + kMiB, {1, 0});            // thread 1: edge from the mmap
  order.change(kMm, kA + 4096, kA + 8192, {2, 0});  // thread 2 mprotects one page: edge too
  order.use(kMm, kA, kA + 3 * 4096, {1, 5});        // thread 1 again: the mprotect is new
  ASSERT_EQ(order.edges().size(), 3u);
  EXPECT_TRUE(same(order.edges()[1].from, {0, 1}));
  EXPECT_TRUE(same(order.edges()[1].to, {2, 0}));
  EXPECT_TRUE(same(order.edges()[2].from, {2, 0}));
  EXPECT_TRUE(same(order.edges()[2].to, {1, 5}));
  // The pieces of the mmap around the mprotect are still the mmap's: thread 1 follows it.
  order.use(kMm, kA + 8192, kA + 8193, {1, 6});
  EXPECT_EQ(order.edges().size(), 3u);
}

TEST(AddressOrder, AThreadCreatedAfterTheChangeNeedsNoEdge) {
  // Thread 1 was cloned by thread 0 at its item 10: changes before that are ordered already.
  AddressOrder order([](ItemRef change, uint32_t user) {
    return user == 1 && change.thread == 0 && change.index < 10;
  });
  order.change(kMm, kA, kA + kMiB, {0, 2});
  order.change(kMm, kA + 2 * kMiB, kA + 3 * kMiB, {0, 12});
  order.use(kMm, kA, kA + 3 * kMiB, {1, 0});
  ASSERT_EQ(order.edges().size(), 1u);
  EXPECT_TRUE(same(order.edges()[0].from, {0, 12}));
}

}  // namespace
}  // namespace mmreplay::formats::detail
