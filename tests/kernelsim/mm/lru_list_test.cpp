// An LRU list keeps the kernel list's order however pages leave it: reclaim isolates the oldest
// first, a page moved from the middle (MADV_FREE's lazyfree move) goes to the newest end, and the
// array behind each list (mm/lru.h, Lruvec::List) squeezes out the holes both kinds of removal
// leave without changing that order.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernelsim/locking/qspinlock.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/simulation.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kFile;

// Isolates up to n pages of the inactive file list under the node's lru_lock, oldest first.
Co<void> isolate(Task& t, uint32_t n, std::vector<uint32_t>* out) {
  Lruvec& lru = t.sim().lruvec();
  co_await lru.node_lru_lock(0).lock_irqsave(t);
  for (uint32_t f : lru.isolate_lru_pages(LruList::kInactiveFile, n, /*nid=*/0)) out->push_back(f);
  co_await lru.node_lru_lock(0).unlock_irqrestore(t);
}

// Frames 0..n-1 of kFile, linked oldest first as pages cached before the run.
std::vector<uint32_t> cache_pages(Lruvec& lru, uint32_t n) {
  std::vector<uint32_t> frames;
  for (uint32_t i = 0; i < n; ++i) {
    frames.push_back(lru.page_add_file_frame(kFile, i, /*nid=*/0, kRootMemcg));
    lru.add_cached_at_start(frames.back());
  }
  return frames;
}

// 300 pages; every third is moved by MADV_FREE's batch three times over (4.12+: to the newest end
// of the inactive file list), leaving 300 holes, nearly all in the middle: the list is renumbered.
// Reclaim then takes the pages in pieces, and the holes it leaves at the old end are dropped.
Co<void> scenario(Task& t, const std::vector<uint32_t>* frames, std::vector<uint32_t>* out) {
  Lruvec& lru = t.sim().lruvec();
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < frames->size(); i += 3) co_await lru.mark_page_lazyfree(t, (*frames)[i]);
    co_await lru.lru_add_drain(t);
  }
  for (int piece = 0; piece < 10; ++piece) co_await isolate(t, 32, out);
}

TEST(LruListTest, IsolationTakesTheOldestFirstAfterMovesFromTheMiddle) {
  auto sim = testing::make_sim(1, "lazyfree_lru=inactive-file");
  Lruvec& lru = sim->lruvec();
  const std::vector<uint32_t> frames = cache_pages(lru, 300);
  std::vector<uint32_t> expected;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (i % 3 != 0) expected.push_back(frames[i]);  // left in place, oldest first
  }
  for (size_t i = 0; i < frames.size(); i += 3) expected.push_back(frames[i]);  // moved, in order
  std::vector<uint32_t> taken;
  Task& t = sim->create_task(0, nullptr);
  sim->start_task(t, scenario(t, &frames, &taken));
  sim->run();
  EXPECT_EQ(taken, expected);
  EXPECT_EQ(lru.size(LruList::kInactiveFile), 0u);
  EXPECT_EQ(lru.nr_held(), 300u) << "all isolated";
}

// Pages taken from the old end, more added at the new end, again and again: the order stays
// first in, first out across the prefix drops.
Co<void> churn(Task& t, std::vector<uint32_t>* added, std::vector<uint32_t>* out) {
  Lruvec& lru = t.sim().lruvec();
  uint32_t next_index = 0;
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 50; ++i) {
      added->push_back(lru.page_add_file_frame(kFile, next_index++, /*nid=*/0, kRootMemcg));
      lru.add_cached_at_start(added->back());
    }
    co_await isolate(t, 40, out);
  }
  co_await isolate(t, 1000, out);
}

TEST(LruListTest, ReclaimFromTheOldEndWhilePagesArriveIsFirstInFirstOut) {
  auto sim = testing::make_sim(1);
  std::vector<uint32_t> added;
  std::vector<uint32_t> taken;
  Task& t = sim->create_task(0, nullptr);
  sim->start_task(t, churn(t, &added, &taken));
  sim->run();
  EXPECT_EQ(taken, added);
}

}  // namespace
}  // namespace mmreplay::kernelsim
