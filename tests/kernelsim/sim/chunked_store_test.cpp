// Lruvec's page frames live in a ChunkedStore: an element keeps its address while the store grows,
// every appended element starts value-initialised even in a chunk an earlier store dirtied, and a
// dead store's chunks go back to the pool for the next one.

#include "kernelsim/sim/chunked_store.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace mmreplay::kernelsim {
namespace {

struct Elem {
  uint64_t a = 7;
  uint32_t b = 9;
};

// A small chunk (16 elements) and a type of its own, so that no other test shares the pool.
using Store = ChunkedStore<Elem, 4>;

TEST(ChunkedStoreTest, ElementsKeepTheirAddressAsTheStoreGrows) {
  Store s;
  EXPECT_EQ(s.emplace_back(), 0u);
  Elem* first = &s[0];
  first->a = 1;
  for (uint32_t i = 1; i < 100; ++i) {
    ASSERT_EQ(s.emplace_back(), i);
    s[i].a = i + 1;
  }
  EXPECT_EQ(s.size(), 100u);
  EXPECT_EQ(&s[0], first) << "growing past six chunks moved element 0";
  for (uint32_t i = 0; i < 100; ++i) EXPECT_EQ(s[i].a, i + 1) << i;
}

TEST(ChunkedStoreTest, ADeadStoresChunksAreReusedAndStartValueInitialised) {
  Elem* old_first = nullptr;
  size_t pooled_alive = 0;
  {
    Store s;
    for (uint32_t i = 0; i < 20; ++i) {  // two chunks
      s.emplace_back();
      s[i] = Elem{0xdead, 0xbeef};
    }
    old_first = &s[16];  // the second chunk's first element: the pool hands chunks out LIFO
    pooled_alive = Store::pool().pooled();
  }
  EXPECT_EQ(Store::pool().pooled(), pooled_alive + 2) << "both chunks back in the pool";
  Store t;
  t.emplace_back();
  EXPECT_EQ(Store::pool().pooled(), pooled_alive + 1);
  EXPECT_EQ(&t[0], old_first) << "the chunk given back last is taken first";
  EXPECT_EQ(t[0].a, 7u) << "an appended element is value-initialised, not what the chunk held";
  EXPECT_EQ(t[0].b, 9u);
}

TEST(ChunkedStoreTest, ThePoolKeepsNoMoreThanItsCap) {
  ChunkPool pool(/*chunk_bytes=*/64, /*max_pooled_bytes=*/128);  // room for two chunks
  std::vector<void*> chunks{pool.take(), pool.take(), pool.take()};
  pool.give(chunks);
  EXPECT_EQ(pool.pooled(), 2u) << "the third chunk goes back to the heap";
}

}  // namespace
}  // namespace mmreplay::kernelsim
