// Hot and cold pages (kernelsim/mm/pcp_high.h PerCpuPages): a page freed to this CPU's pcp list
// comes back off it first and is zeroed at clear_page; one the list took from the buddy lists in
// a refill is zeroed at clear_page_cold. A mapping unmapped and written again reuses its pages hot;
// a region larger than the list's high mark (before 6.7) or than the caches hold (the profile's
// pcp_hot_window) gets most of them back cold.

#include <gtest/gtest.h>

#include "kernelsim/mm/page_alloc.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr int64_t kColdExtraNs = 1000;

// The run's end with clear_page_cold at clear_page + kColdExtraNs, less the run's end with it
// unset (every page at clear_page), in units of kColdExtraNs: the pages zeroed cold.
int64_t cold_clears(const std::vector<Op>& ops, const std::string& policy = "",
                    uint64_t hot_window = 0) {
  auto end_ns = [&](bool cold_costs_more) {
    CostProfile costs = cost_profile_default();
    if (cold_costs_more) costs.clear_page_cold = costs.clear_page + SimTime::ns(kColdExtraNs);
    costs.pcp_hot_window = hot_window;
    auto sim = make_sim(1, policy, costs);
    thread(*sim, 1, 0, ops);
    sim->run();
    return sim->now().count_ns();
  };
  const int64_t extra = end_ns(true) - end_ns(false);
  EXPECT_EQ(extra % kColdExtraNs, 0) << extra;
  return extra / kColdExtraNs;
}

std::vector<Op> write_unmap_write(uint64_t pages) {
  const uint64_t len = pages * kPage;
  return {Op::mmap_anon(kBase, len, PROT_READ | PROT_WRITE), Op::touch(kBase, len, true),
          Op::munmap(kBase, len), Op::mmap_anon(kBase, len, PROT_READ | PROT_WRITE),
          Op::touch(kBase, len, true)};
}

TEST(HotColdPageTest, AFreshRegionIsZeroedColdOnlyTheFirstTime) {
  constexpr uint64_t kPages = 64;
  const uint64_t len = kPages * kPage;
  // The first pass: 64 pages and their page table from refills of an empty list.
  const int64_t once =
      cold_clears({Op::mmap_anon(kBase, len, PROT_READ | PROT_WRITE), Op::touch(kBase, len, true)});
  EXPECT_EQ(once, static_cast<int64_t>(kPages) + 1);
  // Unmapped and written again: all back off the list, hot.
  EXPECT_EQ(cold_clears(write_unmap_write(kPages)), once);
}

// The cold clears of the second pass over a region of `pages` unmapped and written again.
int64_t second_pass_cold(uint64_t pages, const std::string& policy, uint64_t hot_window = 0) {
  const uint64_t len = pages * kPage;
  const int64_t both = cold_clears(write_unmap_write(pages), policy, hot_window);
  const int64_t once =
      cold_clears({Op::mmap_anon(kBase, len, PROT_READ | PROT_WRITE), Op::touch(kBase, len, true)},
                  policy, hot_window);
  return both - once;
}

TEST(HotColdPageTest, PagesBeyondTheListsHighMarkComeBackCold) {
  constexpr uint64_t kPages = 4096;
  // Before 5.14 the unmap left at most `high` pages on the list; the second pass gets those hot,
  // the rest of its pages (and page tables) cold. (From 5.14 a one-CPU machine's high is its
  // whole low watermark, which holds them all.)
  const int64_t second = second_pass_cold(kPages, "pcp_high=batch");
  EXPECT_GE(second, static_cast<int64_t>(kPages - PCP_HIGH));
  EXPECT_LT(second, static_cast<int64_t>(kPages));
}

// 6.7+ raises high for the frees in a row, so the whole region waits on the list and comes back
// hot, until the caches are the bound: with a window of 1,024 pages the rest are cold.
TEST(HotColdPageTest, UnderAutoTunedHighTheCachesBoundTheHotPages) {
  constexpr uint64_t kPages = 4096;
  EXPECT_EQ(second_pass_cold(kPages, "pcp_high=auto"), 0);
  constexpr uint64_t kWindow = 1024;
  const int64_t second = second_pass_cold(kPages, "pcp_high=auto", kWindow);
  // The region's pages and its page tables, less the window's last-freed pages.
  const int64_t tables = 2;  // a pte table per 512 pages: 8 of them, and the ones above
  EXPECT_GE(second, static_cast<int64_t>(kPages - kWindow));
  EXPECT_LE(second, static_cast<int64_t>(kPages - kWindow) + 8 + tables);
}

// Counter pcp_alloc_cold: every page zeroed cold, so a replay says how many of its faults paid
// clear_page_cold.
TEST(HotColdPageTest, TheColdPagesAreCounted) {
  constexpr uint64_t kPages = 4096;
  constexpr uint64_t kWindow = 1024;
  CostProfile costs = cost_profile_default();
  costs.pcp_hot_window = kWindow;
  auto sim = make_sim(1, "pcp_high=auto", costs);
  thread(*sim, 1, 0, write_unmap_write(kPages));
  sim->run();
  EXPECT_EQ(static_cast<int64_t>(sim->stats().vm.pcp_alloc_cold),
            cold_clears(write_unmap_write(kPages), "pcp_high=auto", kWindow));
  EXPECT_GT(sim->stats().vm.pcp_alloc_cold, 2 * kPages - kWindow);
}

}  // namespace
}  // namespace mmreplay::kernelsim
