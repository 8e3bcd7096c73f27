// Swap-in readahead's window (mm/swap_readahead.h): its size from the hits since the last
// swap-in, and its place, per era.

#include "kernelsim/mm/swap_readahead.h"

#include <gtest/gtest.h>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {
namespace {

constexpr uint32_t kCluster = uint32_t{1} << page_cluster;
constexpr uint64_t kVmaFirst = 0x10000;  // a VMA of 4096 pages, its own page table's start
constexpr uint64_t kVmaEnd = kVmaFirst + 4096;

TEST(SwapReadahead, NoHitsReadsOnePageUnlessTheEntryFollowsTheLast) {
  EXPECT_EQ(swapin_nr_pages(100, 300, 0, kCluster, 0), 1u);
  EXPECT_EQ(swapin_nr_pages(100, 101, 0, kCluster, 0), 2u);
  EXPECT_EQ(swapin_nr_pages(101, 100, 0, kCluster, 0), 2u) << "going down counts too";
}

TEST(SwapReadahead, HitsGiveAPowerOfTwoOfAtLeastFourUpToTheCluster) {
  EXPECT_EQ(swapin_nr_pages(100, 300, 1, kCluster, 0), 4u);
  EXPECT_EQ(swapin_nr_pages(100, 300, 2, kCluster, 0), 4u);
  EXPECT_EQ(swapin_nr_pages(100, 300, 3, kCluster, 0), 8u);
  EXPECT_EQ(swapin_nr_pages(100, 300, 40, kCluster, 0), kCluster);
}

TEST(SwapReadahead, AWindowShrinksToNoLessThanHalfTheLast) {
  EXPECT_EQ(swapin_nr_pages(100, 300, 0, kCluster, 8), 4u);
  EXPECT_EQ(swapin_nr_pages(100, 300, 0, kCluster, 4), 2u);
  EXPECT_EQ(swapin_nr_pages(100, 300, 0, kCluster, 2), 1u);
}

TEST(SwapReadahead, BeforeThreeFifteenTheWholeAlignedClusterEveryTime) {
  SwapRaState s;
  const SwapRaWindow w =
      swap_ra_window(SwapReadahead::kClusterFixed, s, kVmaFirst + 13, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + 8);
  EXPECT_EQ(w.end, kVmaFirst + 16);
}

// 3.15-4.13: the device's hits size a window aligned as the offset is; the device starts with 4
// hits (a whole first window), and the offset is kept only when there were none (prev_offset).
TEST(SwapReadahead, ClusterWindowIsSizedByTheDevicesHitsAndAligned) {
  SwapRaState s;
  SwapRaWindow w = swap_ra_window(SwapReadahead::kCluster, s, kVmaFirst + 13, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + 8) << "the first swap-in: the whole aligned cluster";
  EXPECT_EQ(w.end, kVmaFirst + 16);
  w = swap_ra_window(SwapReadahead::kCluster, s, kVmaFirst + 21, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + 20) << "no hits: half the last window, aligned below the fault";
  EXPECT_EQ(w.end, kVmaFirst + 24);
  swap_ra_hit(SwapReadahead::kCluster, s, kVmaFirst + 22);
  w = swap_ra_window(SwapReadahead::kCluster, s, kVmaFirst + 27, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + 24) << "one hit: four pages";
  EXPECT_EQ(w.end, kVmaFirst + 28);
  EXPECT_EQ(s.hits, 0u) << "the hits were taken (atomic_xchg())";
  EXPECT_EQ(s.pfn, kVmaFirst + 21) << "prev_offset: the last swap-in without hits";
}

// 4.14+: per VMA (4 hits to start), placed by the faults' direction.
TEST(SwapReadahead, VmaWindowFollowsTheFaultsDirection) {
  SwapRaState s;
  SwapRaWindow w = swap_ra_window(SwapReadahead::kVma, s, kVmaFirst + 100, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + 97) << "a first swap-in: the whole window, around the fault";
  EXPECT_EQ(w.end, kVmaFirst + 105);
  EXPECT_EQ(s.hits, 0u);
  s.hits = 3;  // three readahead pages found since
  w = swap_ra_window(SwapReadahead::kVma, s, kVmaFirst + 101, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + 101) << "going up: the pages after the fault";
  EXPECT_EQ(w.end, kVmaFirst + 109);
  s.hits = 3;
  w = swap_ra_window(SwapReadahead::kVma, s, kVmaFirst + 100, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + 93) << "going down: the pages before it";
  EXPECT_EQ(w.end, kVmaFirst + 101);
  w = swap_ra_window(SwapReadahead::kVma, s, kVmaFirst + 300, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + 299) << "no hits, elsewhere: half the last window, around it";
  EXPECT_EQ(w.end, kVmaFirst + 303);
}

// The window stays inside the VMA and the fault's page table (swap_ra_clamp_pfn()).
TEST(SwapReadahead, VmaWindowIsClampedToTheVmaAndThePageTable) {
  const uint64_t first = kVmaFirst + 5;  // a VMA that does not start a page table
  const uint64_t end = kVmaFirst + 203;
  SwapRaState s;
  SwapRaWindow w = swap_ra_window(SwapReadahead::kVma, s, first + 1, first, end);
  EXPECT_EQ(w.first, first) << "not before the VMA";
  EXPECT_EQ(w.end, first + 6);
  s = SwapRaState{};
  w = swap_ra_window(SwapReadahead::kVma, s, end - 2, first, end);
  EXPECT_EQ(w.first, end - 5);
  EXPECT_EQ(w.end, end) << "not past the VMA";
  const uint64_t pmd_pages = uint64_t{1} << (PMD_SHIFT - PAGE_SHIFT);
  s = SwapRaState{};
  w = swap_ra_window(SwapReadahead::kVma, s, kVmaFirst + pmd_pages - 1, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + pmd_pages - 4);
  EXPECT_EQ(w.end, kVmaFirst + pmd_pages) << "not past the fault's page table";
  s = SwapRaState{};
  w = swap_ra_window(SwapReadahead::kVma, s, kVmaFirst + pmd_pages + 1, kVmaFirst, kVmaEnd);
  EXPECT_EQ(w.first, kVmaFirst + pmd_pages) << "not before it";
}

TEST(SwapReadahead, AVmaHitMovesTheLastPageAndCountsUpToTheMax) {
  SwapRaState s{100, 8, SWAP_RA_HITS_MAX};
  swap_ra_hit(SwapReadahead::kVma, s, 105);
  EXPECT_EQ(s.pfn, 105u);
  EXPECT_EQ(s.hits, SWAP_RA_HITS_MAX);
}

}  // namespace
}  // namespace mmreplay::kernelsim
