// Page states after MADV_FREE and MADV_DONTNEED, as mm/madvise.c leaves them.

#include "kernelsim/mm/madvise.h"

#include <gtest/gtest.h>

#include "kernelsim/mm/pgtable.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::pte_at;
using testing::thread;

constexpr uint64_t kPages = 64;

std::vector<Op> dirty_then(std::vector<Op> more) {
  std::vector<Op> ops = {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE),
                         Op::touch(kBase, kPages * kPage, true)};
  for (Op& op : more) ops.push_back(std::move(op));
  ops.push_back(Op::think(SimTime::ms(10)));  // keep the mm alive for the checks
  return ops;
}

TEST(MadviseTest, MadvFreeLeavesPagesMappedAndLazyfree) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0, dirty_then({Op::madvise(kBase, kPages * kPage, MADV_FREE)}));
  sim->run_until(SimTime::ms(5));
  const Mm& mm = *sim->find_mm(1);
  EXPECT_EQ(mm.rss_anon, kPages);
  EXPECT_EQ(sim->stats().vm.madv_lazyfree_pages, kPages);
  EXPECT_EQ(sim->stats().vm.pages_free, 0u);
  for (uint64_t i = 0; i < kPages; ++i) {
    const uint8_t p = pte_at(*sim, kBase + i * kPage);
    EXPECT_EQ(pte::state(p), pte::kLazyFree);
    EXPECT_TRUE(pte::is_mapped(p));
    EXPECT_EQ(p & (pte::kDirty | pte::kYoung), 0) << "MADV_FREE clears dirty and young";
  }
  EXPECT_EQ(sim->stats().vm.nr_tlb_flush_calls, 1u);  // dirty/young entries were flushed
}

TEST(MadviseTest, WriteAfterMadvFreeMakesThePageNormalWithoutAFault) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0,
         dirty_then({Op::madvise(kBase, kPages * kPage, MADV_FREE),
                     Op::touch(kBase, 4 * kPage, true),                  // write 4 pages
                     Op::touch(kBase + 4 * kPage, 4 * kPage, false)}));  // read 4 more
  sim->run_until(SimTime::ms(5));
  for (uint64_t i = 0; i < 4; ++i) {
    const uint8_t p = pte_at(*sim, kBase + i * kPage);
    EXPECT_EQ(pte::state(p), pte::kPresent);
    EXPECT_NE(p & pte::kDirty, 0);
  }
  for (uint64_t i = 4; i < 8; ++i)
    EXPECT_EQ(pte::state(pte_at(*sim, kBase + i * kPage)), pte::kLazyFree);
  EXPECT_EQ(sim->stats().vm.lazyfree_reused, 4u);
  EXPECT_EQ(sim->stats().vm.pgfault, kPages) << "only the first-touch faults";
}

// MADV_FREE left the ptes old and clean: the first access to each sets the bits again
// (pte_ad_update: a host fault under shadow page tables, 10-15 us on a PVM guest), a write to a
// page already written since does not.
TEST(MadviseTest, TheFirstAccessAfterMadvFreePaysPteAdUpdateOnce) {
  constexpr int64_t kUpdateNs = 5000;
  uint64_t touch_ns[2] = {0, 0};
  for (const int64_t update : {int64_t{0}, kUpdateNs}) {
    CostProfile costs = cost_profile_default();
    costs.pte_ad_update = SimTime::ns(update);
    auto sim = make_sim(1, "", costs);
    thread(*sim, 1, 0,
           dirty_then({Op::madvise(kBase, kPages * kPage, MADV_FREE),
                       Op::touch(kBase, 4 * kPage, true),  // 4 old, clean: 4 updates
                       Op::touch(kBase, 4 * kPage, true),  // young and dirty now: none
                       Op::touch(kBase + 4 * kPage, 4 * kPage, false)}));  // 4 old: 4 updates
    sim->run_until(SimTime::ms(5));
    touch_ns[update == 0 ? 0 : 1] = sim->stats().latency(OpKind::kTouch).sum();
    EXPECT_EQ(sim->stats().vm.pgfault, kPages) << "no fault: the pages stayed mapped";
  }
  EXPECT_EQ(touch_ns[1] - touch_ns[0], 8u * kUpdateNs);
}

TEST(MadviseTest, DontneedZapsAndTheNextTouchFaultsAndZeroFills) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0, dirty_then({Op::madvise(kBase, kPages * kPage, MADV_DONTNEED)}));
  sim->run_until(SimTime::ms(5));
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 0u);
  EXPECT_EQ(sim->stats().vm.pages_free, kPages);
  for (uint64_t i = 0; i < kPages; ++i) EXPECT_EQ(pte_at(*sim, kBase + i * kPage), pte::kNone);

  auto again = make_sim(1);
  thread(*again, 1, 0,
         dirty_then({Op::madvise(kBase, kPages * kPage, MADV_DONTNEED),
                     Op::touch(kBase, kPages * kPage, true)}));
  again->run_until(SimTime::ms(5));
  EXPECT_EQ(again->stats().vm.pgfault, 2 * kPages);
  EXPECT_EQ(again->stats().vm.fault_anon, 2 * kPages) << "each refault allocates a zeroed page";
  EXPECT_EQ(again->stats().vm.pages_alloc, 2 * kPages);
  EXPECT_EQ(again->find_mm(1)->rss_anon, kPages);
}

TEST(MadviseTest, ReadAfterDontneedMapsTheZeroPage) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0,
         dirty_then({Op::madvise(kBase, kPages * kPage, MADV_DONTNEED),
                     Op::touch(kBase, kPages * kPage, false)}));
  sim->run_until(SimTime::ms(5));
  EXPECT_EQ(sim->stats().vm.fault_zero_page, kPages);
  EXPECT_NE(pte_at(*sim, kBase) & pte::kZeroPage, 0);
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 0u);
}

TEST(MadviseTest, MadvFreeAsDontneedPolicyZaps) {
  auto sim = make_sim(1, "madv_free=as-dontneed");
  thread(*sim, 1, 0, dirty_then({Op::madvise(kBase, kPages * kPage, MADV_FREE)}));
  sim->run_until(SimTime::ms(5));
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 0u);
  EXPECT_EQ(sim->stats().vm.madv_lazyfree_pages, 0u);
  EXPECT_EQ(sim->stats().vm.madv_dontneed_pages, kPages);
}

TEST(MadviseTest, MadvFreeOnAFileMappingIsEinval) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0,
         {Op::mmap_file(kBase, 4 * kPage, PROT_READ, MAP_PRIVATE, 7, 0),
          Op::madvise(kBase, 4 * kPage, MADV_FREE)});
  sim->run();
  EXPECT_EQ(sim->stats().vm.ops_failed, 1u);
}

TEST(MadviseTest, HoleInTheRangeIsEnomemButMappedPartsAreAdvised) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0,
         dirty_then({Op::munmap(kBase + 8 * kPage, 8 * kPage),
                     Op::madvise(kBase, 32 * kPage, MADV_DONTNEED)}));
  sim->run_until(SimTime::ms(5));
  EXPECT_EQ(sim->stats().vm.ops_failed, 1u);
  EXPECT_EQ(sim->stats().vm.madv_dontneed_pages, 24u);
}

TEST(MadviseTest, FullGatherForcesAFlushMidOperation) {
  // MAX_GATHER_BATCH * MAX_GATHER_BATCH_COUNT pages fill the gather: one forced flush + the final.
  constexpr uint64_t kBig = 12'000;
  auto sim = make_sim(1);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, kBig * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, kBig * kPage, true), Op::madvise(kBase, kBig * kPage, MADV_DONTNEED),
          Op::think(SimTime::ms(100))});
  sim->run_until(SimTime::ms(50));
  EXPECT_EQ(sim->stats().vm.gather_forced_flushes, 1u);
  EXPECT_EQ(sim->stats().vm.nr_tlb_flush_calls, 2u);
  EXPECT_EQ(sim->stats().vm.pages_free, kBig);
}

}  // namespace
}  // namespace mmreplay::kernelsim
