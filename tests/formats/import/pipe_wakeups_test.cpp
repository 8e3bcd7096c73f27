// PipeWakeups (formats/import/pipe_wakeups.h): a read follows the write of its first byte, a
// write the read that made room for its last byte; none across a write longer than the pipe;
// on a channel of pieces, per piece.

#include "formats/import/pipe_wakeups.h"

#include <gtest/gtest.h>

#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats::detail {
namespace {

using testing::kPage;
constexpr uint64_t kPipe = 3;                        // file id
constexpr uint64_t kRoom = kPipeDefBuffers * kPage;  // 64 KiB

PipeCall call(uint32_t thread, uint32_t index, uint64_t offset, uint64_t len, bool write) {
  PipeCall c;
  c.ref = ItemRef{thread, index};
  c.offset = offset;
  c.len = len;
  c.write = write;
  return c;
}

bool is(const OrderEdge& e, ItemRef from, ItemRef to) {
  return e.from.thread == from.thread && e.from.index == from.index && e.to.thread == to.thread &&
         e.to.index == to.index;
}

TEST(PipeWakeups, ReadsFollowTheirDataAndWritesTheirRoom) {
  PipeWakeups p(kPage);
  // Thread 0 writes three blocks of the pipe's size; thread 1 reads them, one a call.
  for (uint32_t k = 0; k < 3; ++k) {
    p.add(kPipe, call(0, k, k * kRoom, kRoom, true));
    p.add(kPipe, call(1, k, k * kRoom, kRoom, false));
  }
  const std::vector<ChannelEdge> edges = p.edges();
  ASSERT_EQ(edges.size(), 5u);
  EXPECT_TRUE(is(edges[0], {0, 0}, {1, 0}));  // read k after write k
  EXPECT_TRUE(is(edges[1], {0, 1}, {1, 1}));
  EXPECT_TRUE(is(edges[2], {0, 2}, {1, 2}));
  EXPECT_TRUE(is(edges[3], {1, 0}, {0, 1}));  // write k+1 after read k: the pipe was full
  EXPECT_TRUE(is(edges[4], {1, 1}, {0, 2}));
}

TEST(PipeWakeups, AWriteLongerThanThePipeIsNeverWaitedForWhole) {
  PipeWakeups p(kPage);
  p.add(kPipe, call(0, 0, 0, 4 * kRoom, true));  // its reader drains it while it writes
  for (uint32_t k = 0; k < 4; ++k) p.add(kPipe, call(1, k, k * kRoom, kRoom, false));
  const std::vector<ChannelEdge> edges = p.edges();
  // No read waits for it (that would wait for its own room); it follows the read of byte
  // 3 * room - 1, the one that made room for its last bytes.
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_TRUE(is(edges[0], {1, 2}, {0, 0}));
}

TEST(PipeWakeups, OneThreadOnBothEndsNeedsNoEdge) {
  PipeWakeups p(kPage);
  p.add(kPipe, call(0, 0, 0, kPage, true));
  p.add(kPipe, call(0, 1, 0, kPage, false));
  EXPECT_TRUE(p.edges().empty());
}

// A channel whose writes are queued in pieces (an AF_UNIX stream's skbs): a 3-piece write longer
// than the room is read as it goes. Each read follows the piece of its first byte (the last
// piece: the whole write, from_bytes 0), and the third piece waits for the read of the first,
// which made its room; the second piece's room was there from the start.
TEST(PipeWakeups, PiecesOfAWriteAreReadAndWaitForRoomOneByOne) {
  PipeWakeups p(kPage);
  p.set_limits(kPipe, ChannelLimits{/*capacity=*/200, /*recorded_order=*/false, /*piece=*/100});
  p.add(kPipe, call(0, 0, 0, 300, true));
  for (uint32_t k = 0; k < 3; ++k) p.add(kPipe, call(1, k, k * 100, 100, false));
  const std::vector<ChannelEdge> edges = p.edges();
  ASSERT_EQ(edges.size(), 4u);
  for (uint32_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(is(edges[k], {0, 0}, {1, k}));
    EXPECT_EQ(edges[k].from_bytes, k < 2 ? (k + 1) * 100 : 0u);
    EXPECT_EQ(edges[k].to_bytes, 0u);
  }
  EXPECT_TRUE(is(edges[3], {1, 0}, {0, 0}));
  EXPECT_EQ(edges[3].to_bytes, 200u);
  EXPECT_EQ(edges[3].from_bytes, 0u);
}

// (4): a piece never waits for a read of its own bytes or later ones (that read waits for it):
// with pieces larger than the room, as no kernel makes them, there is no edge rather than a cycle.
TEST(PipeWakeups, APieceNeverWaitsForAReadOfItself) {
  PipeWakeups p(kPage);
  p.set_limits(kPipe, ChannelLimits{/*capacity=*/100, /*recorded_order=*/false, /*piece=*/150});
  p.add(kPipe, call(0, 0, 0, 300, true));
  p.add(kPipe, call(1, 0, 0, 150, false));
  p.add(kPipe, call(1, 1, 150, 150, false));
  for (const ChannelEdge& e : p.edges()) EXPECT_EQ(e.from.thread, 0u) << "a room edge";
}

}  // namespace
}  // namespace mmreplay::formats::detail
