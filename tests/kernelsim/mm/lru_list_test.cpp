// An LRU list keeps the kernel list's order however pages leave it: reclaim isolates the oldest
// first, a page moved from the middle (MADV_FREE's lazyfree move) goes to the newest end, a page
// whose reclaim write ended goes to the oldest end (folio_rotate_reclaimable()), and the array
// behind each list (mm/lru.h, Lruvec::List) squeezes out the holes removals leave and opens room
// at the old end without changing that order.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernelsim/kernel/thread.h"
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

// Rotations: pages whose writes end at 1 us intervals, one after another, each move to the tail,
// so the last to end is the first isolated, then the one before it, and so on; the pages not
// rotated follow in their own order. 150 rotations of a 300-page list open room at the old end
// several times (64 slots at least each), and reclaim's first pieces then drop that room again.
Co<void> rotate_then_isolate(Task& t, const std::vector<uint32_t>* frames,
                             std::vector<uint32_t>* out) {
  Lruvec& lru = t.sim().lruvec();
  for (size_t i = 0; i < frames->size(); i += 2)
    lru.rotate_at_write_end(t.clock() + SimTime::us(1 + static_cast<int64_t>(i)), (*frames)[i]);
  co_await do_sleep(t, SimTime::ms(1));  // every write has ended
  for (int piece = 0; piece < 10; ++piece) co_await isolate(t, 32, out);
}

TEST(LruListTest, APageWhoseWriteEndedIsIsolatedFirst) {
  auto sim = testing::make_sim(1);
  Lruvec& lru = sim->lruvec();
  const std::vector<uint32_t> frames = cache_pages(lru, 300);
  std::vector<uint32_t> expected;
  for (size_t i = frames.size(); i-- > 0;) {
    if (i % 2 == 0) expected.push_back(frames[i]);  // the latest write's end first
  }
  for (size_t i = 1; i < frames.size(); i += 2) expected.push_back(frames[i]);
  std::vector<uint32_t> taken;
  Task& t = sim->create_task(0, nullptr);
  sim->start_task(t, rotate_then_isolate(t, &frames, &taken));
  sim->run();
  EXPECT_EQ(taken, expected);
  EXPECT_EQ(sim->stats().vm.pgrotated, 150u);
  EXPECT_EQ(lru.size(LruList::kInactiveFile), 0u);
}

// A page that left the list before its write ended (isolated by reclaim, or freed and its frame
// reused) is not moved: only a page still on an LRU list rotates (folio_test_lru()).
Co<void> rotate_isolated(Task& t, const std::vector<uint32_t>* frames, std::vector<uint32_t>* out) {
  Lruvec& lru = t.sim().lruvec();
  lru.rotate_at_write_end(t.clock() + SimTime::us(5), (*frames)[9]);
  co_await isolate(t, 10, out);  // takes frames 0..9, frame 9 among them
  co_await do_sleep(t, SimTime::us(10));
  co_await isolate(t, 10, out);
}

TEST(LruListTest, AnIsolatedPageIsNotRotated) {
  auto sim = testing::make_sim(1);
  const std::vector<uint32_t> frames = cache_pages(sim->lruvec(), 20);
  std::vector<uint32_t> taken;
  Task& t = sim->create_task(0, nullptr);
  sim->start_task(t, rotate_isolated(t, &frames, &taken));
  sim->run();
  EXPECT_EQ(taken, frames) << "oldest first, the isolated page left where reclaim had it";
  EXPECT_EQ(sim->stats().vm.pgrotated, 0u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
