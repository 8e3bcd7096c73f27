// The STLB a flush empties: which user pages a CPU still translates after a shootdown, and the
// page walks the program then pays to get them back.

#include "kernelsim/arch/x86/stlb.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernelsim/arch/x86/tlb.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

Stlb stlb_of(uint32_t entries, uint32_t ways) {
  Stlb s;
  s.configure(StlbGeometry{entries, ways});
  return s;
}

TEST(StlbTest, APageIsTranslatedFromItsSecondAccessUntilAFlush) {
  Stlb s = stlb_of(512, 4);
  EXPECT_FALSE(s.access(7)) << "the first access walks";
  EXPECT_TRUE(s.access(7));
  EXPECT_EQ(s.nr_valid(), 1u);
  s.flush_all();
  EXPECT_EQ(s.nr_valid(), 0u);
  EXPECT_FALSE(s.access(7)) << "a full flush took it";
}

// Pages whose vpns share the low bits share a set: the fifth of a 4-way set evicts the least
// recently used one, not the most recently touched.
TEST(StlbTest, AFullSetEvictsItsLeastRecentlyUsedPage) {
  Stlb s = stlb_of(512, 4);  // 128 sets
  constexpr uint64_t kSets = 128;
  for (uint64_t i = 0; i < 4; ++i) EXPECT_FALSE(s.access(3 + i * kSets));
  EXPECT_TRUE(s.access(3)) << "page 3 becomes the most recently used";
  EXPECT_FALSE(s.access(3 + 4 * kSets));  // evicts 3 + kSets, the least recently used
  EXPECT_TRUE(s.access(3));
  EXPECT_TRUE(s.access(3 + 2 * kSets));
  EXPECT_TRUE(s.access(3 + 3 * kSets));
  EXPECT_TRUE(s.access(3 + 4 * kSets));
  EXPECT_FALSE(s.access(3 + kSets)) << "the evicted page walks again";
  EXPECT_EQ(s.nr_valid(), 4u);
}

// INVLPG of a range drops its pages and keeps the rest, whether the range is narrower than the
// sets (looked up page by page) or wider (every entry looked at).
TEST(StlbTest, ARangedFlushDropsOnlyItsPages) {
  for (uint64_t width : {uint64_t{1}, uint64_t{33}, uint64_t{127}, uint64_t{128}, uint64_t{1000}}) {
    SCOPED_TRACE("width " + std::to_string(width));
    Stlb s = stlb_of(512, 4);
    for (uint64_t v = 1000; v < 1300; ++v) s.access(v);  // 300 pages, no set over 4
    ASSERT_EQ(s.nr_valid(), 300u);
    s.flush_range(1100, 1100 + width);
    const uint64_t dropped = std::min<uint64_t>(width, 200);
    EXPECT_EQ(s.nr_valid(), 300u - dropped);
    for (uint64_t v = 1000; v < 1300; ++v) {
      const bool flushed = v >= 1100 && v < 1100 + width;
      EXPECT_EQ(s.access(v), !flushed) << "vpn " << v;
    }
  }
}

// The generation that makes a full flush O(1) wraps after 2^24 flushes: the entries are cleared
// then, so one filled 2^24 flushes ago is not taken for a current one.
TEST(StlbTest, AFlushWhenTheGenerationWrapsStillEmptiesIt) {
  Stlb s = stlb_of(512, 4);
  s.access(5);
  for (uint64_t i = 0; i < (uint64_t{1} << 24); ++i) s.flush_all();
  EXPECT_EQ(s.nr_valid(), 0u);
  EXPECT_FALSE(s.access(5));
  EXPECT_TRUE(s.access(5));
  s.flush_range(5, 6);
  EXPECT_FALSE(s.access(5)) << "an INVLPG after the wrap still finds the page";
}

TEST(StlbTest, NoEntriesMeansNotModelled) {
  Stlb s = stlb_of(0, 4);
  EXPECT_TRUE(s.access(1));
  s.flush_all();
  EXPECT_TRUE(s.access(1));
  EXPECT_STREQ(check_stlb_geometry(StlbGeometry{0, 0}), "");
  EXPECT_STRNE(check_stlb_geometry(StlbGeometry{512, 3}), "");
  EXPECT_STRNE(check_stlb_geometry(StlbGeometry{384, 4}), "") << "96 sets: not a power of two";
}

TEST(StlbTest, AMachineWithAnUnbuildableStlbIsRefused) {
  MachineConfig m;
  m.stlb = StlbGeometry{384, 4};
  std::string error;
  EXPECT_EQ(Simulation::create(m, cost_profile_default(), "", &error), nullptr);
  EXPECT_NE(error.find("power of two"), std::string::npos) << error;
}

// Without PCID a CR3 write to another mm empties the STLB; going back to the same mm from lazy
// mode does not.
TEST(StlbTest, WithoutPcidSwitchingToAnotherMmEmptiesIt) {
  auto sim = make_sim(1, "pcid=off");
  Cpu& cpu = sim->cpu(0);
  Mm& a = sim->mm(1);
  Mm& b = sim->mm(2);
  switch_mm_irqs_off(*sim, cpu, &a);
  cpu.stlb.access(5);
  switch_mm_irqs_off(*sim, cpu, nullptr);  // a kernel thread borrows a
  switch_mm_irqs_off(*sim, cpu, &a);
  EXPECT_EQ(cpu.stlb.nr_valid(), 1u);
  switch_mm_irqs_off(*sim, cpu, &b);
  EXPECT_EQ(cpu.stlb.nr_valid(), 0u);
  switch_mm_irqs_off(*sim, cpu, &a);
  EXPECT_FALSE(cpu.stlb.access(5)) << "a's translation went with the switch to b";
}

// With PCID (4.14+) each of the last TLB_NR_DYN_ASIDS mms keeps its entries under its ASID; a
// seventh mm takes the oldest ASID round robin and empties it.
TEST(StlbTest, WithPcidTheLastSixMmsKeepTheirTranslations) {
  auto sim = make_sim(1, "pcid=on");
  Cpu& cpu = sim->cpu(0);
  std::vector<Mm*> mms;
  for (uint32_t i = 1; i <= TLB_NR_DYN_ASIDS + 1; ++i) mms.push_back(&sim->mm(i));
  for (uint32_t i = 0; i < TLB_NR_DYN_ASIDS; ++i) {
    switch_mm_irqs_off(*sim, cpu, mms[i]);
    EXPECT_FALSE(cpu.stlb.access(100 + i));  // one page of each
  }
  for (uint32_t i = 0; i < TLB_NR_DYN_ASIDS; ++i) {
    switch_mm_irqs_off(*sim, cpu, mms[i]);
    EXPECT_EQ(cpu.stlb.nr_valid(), 1u) << "mm " << i;
    EXPECT_TRUE(cpu.stlb.access(100 + i)) << "mm " << i << " kept its entry";
  }
  // init_mm took ASID 0 at boot; the first six went to ASIDs 1..5 and 0 (round robin), so the
  // seventh takes ASID 1, the first mm's.
  switch_mm_irqs_off(*sim, cpu, mms[TLB_NR_DYN_ASIDS]);
  EXPECT_EQ(cpu.stlb.nr_valid(), 0u);
  switch_mm_irqs_off(*sim, cpu, mms[1]);
  EXPECT_TRUE(cpu.stlb.access(101)) << "the second kept its own";
  switch_mm_irqs_off(*sim, cpu, mms[0]);
  EXPECT_FALSE(cpu.stlb.access(100)) << "the first mm lost its ASID";
}

// Two mms' translations of one page sit side by side under their ASIDs: an INVLPG in one leaves
// the other's, and the filter of each ASID goes and comes back with it.
TEST(StlbTest, WithPcidAnInvlpgTakesOnlyTheLoadedMmsPage) {
  auto sim = make_sim(1, "pcid=on");
  Cpu& cpu = sim->cpu(0);
  Mm& a = sim->mm(1);
  Mm& b = sim->mm(2);
  switch_mm_irqs_off(*sim, cpu, &a);
  EXPECT_FALSE(cpu.stlb.access(5));
  switch_mm_irqs_off(*sim, cpu, &b);
  EXPECT_FALSE(cpu.stlb.access(5)) << "b's page 5 is not a's";
  cpu.stlb.flush_range(5, 6);
  EXPECT_EQ(cpu.stlb.nr_valid(), 0u);
  switch_mm_irqs_off(*sim, cpu, &a);
  EXPECT_EQ(cpu.stlb.nr_valid(), 1u) << "b's INVLPG left a's entry";
  cpu.stlb.flush_range(5, 6);  // found through a's filter, restored with its ASID
  EXPECT_EQ(cpu.stlb.nr_valid(), 0u);
  EXPECT_FALSE(cpu.stlb.access(5));
}

// An mm flushed elsewhere while this CPU ran another has a newer tlb_gen: coming back to its
// ASID flushes it (choose_new_asid()'s need_flush).
TEST(StlbTest, WithPcidAnMmFlushedMeanwhileIsFlushedOnReturn) {
  auto sim = make_sim(1, "pcid=on");
  Cpu& cpu = sim->cpu(0);
  Mm& a = sim->mm(1);
  Mm& b = sim->mm(2);
  switch_mm_irqs_off(*sim, cpu, &a);
  cpu.stlb.access(5);
  switch_mm_irqs_off(*sim, cpu, &b);
  ++a.tlb_gen;  // a flush of `a` this CPU, off a's cpumask, took no IPI for
  switch_mm_irqs_off(*sim, cpu, &a);
  EXPECT_EQ(cpu.stlb.nr_valid(), 0u);
  EXPECT_FALSE(cpu.stlb.access(5));
}

constexpr uint64_t kWorkingSet = 20;  // pages CPU 1's thread keeps re-writing
constexpr uint64_t kOtherRange = kBase + 512 * kPage;

// CPU 1's thread writes its working set at 0 (faults), 50 us (STLB hits) and 200 us; CPU 0's
// thread of the same mm purges `purge_pages` pages of another range at 100 us.
// Stops at 900 us, before the threads exit, or runs to the end with `to_end`.
std::unique_ptr<Simulation> rewrite_around_a_purge(uint64_t purge_pages, const CostProfile& c,
                                                   bool to_end = false,
                                                   const std::string& policy = "") {
  auto sim = make_sim(2, policy, c);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 1024 * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kOtherRange, purge_pages * kPage, true), Op::think(SimTime::us(100)),
          Op::madvise(kOtherRange, purge_pages * kPage, MADV_DONTNEED), Op::think(SimTime::ms(1))});
  thread(*sim, 1, 1,
         {Op::think(SimTime::us(10)), Op::touch(kBase, kWorkingSet * kPage, true),
          Op::think(SimTime::us(50)), Op::touch(kBase, kWorkingSet * kPage, true),
          Op::think(SimTime::us(150)), Op::touch(kBase, kWorkingSet * kPage, true),
          Op::think(SimTime::ms(1))});
  if (to_end) {
    sim->run();
  } else {
    sim->run_until(SimTime::us(900));
  }
  return sim;
}

TEST(StlbTest, AFullShootdownCostsTheOtherCpuAWalkPerPageItUsesAgain) {
  auto sim = rewrite_around_a_purge(tlb_single_page_flush_ceiling + 1, cost_profile_default());
  EXPECT_EQ(sim->cpu(1).counters.tlb_remote_full, 1u);
  EXPECT_EQ(sim->cpu(1).counters.tlb_refill_walks, kWorkingSet)
      << "the second pass hit; the third walked once per page";
}

// INVLPGB (the hardware) and a paravirt flush (the host) empty the other CPU's STLB as the IPI's
// handler does, under either era's ASIDs.
TEST(StlbTest, BroadcastAndParavirtFlushesEmptyTheOtherCpusStlbToo) {
  for (const char* policy : {"tlb=broadcast", "tlb=pv", "tlb=broadcast,pcid=off", "pcid=off"}) {
    SCOPED_TRACE(policy);
    auto sim = rewrite_around_a_purge(tlb_single_page_flush_ceiling + 1, cost_profile_default(),
                                      false, policy);
    EXPECT_EQ(sim->cpu(1).counters.tlb_refill_walks, kWorkingSet);
  }
}

// The initiating CPU's own full flush empties its STLB: its thread walks its pages again.
TEST(StlbTest, TheInitiatorsOwnFullFlushEmptiesItsStlb) {
  auto sim = make_sim(1);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 1024 * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, kWorkingSet * kPage, true), Op::touch(kBase, kWorkingSet * kPage, true),
          Op::touch(kOtherRange, 34 * kPage, true),
          Op::madvise(kOtherRange, 34 * kPage, MADV_DONTNEED),
          Op::touch(kBase, kWorkingSet * kPage, true), Op::think(SimTime::ms(1))});
  sim->run_until(SimTime::us(900));
  EXPECT_EQ(sim->cpu(0).counters.tlb_local_full, 1u);
  EXPECT_EQ(sim->cpu(0).counters.tlb_refill_walks, kWorkingSet);
}

// mprotect() of half the other CPU's working set: INVLPGs of pages it uses, so it walks for
// those and not for the rest (its ptes stay present: the reads do not fault).
TEST(StlbTest, AnInvlpgOfPagesInUseCostsAWalkForEachOfThem) {
  constexpr uint64_t kProtected = kWorkingSet / 2;
  auto sim = make_sim(2);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 1024 * kPage, PROT_READ | PROT_WRITE), Op::think(SimTime::us(100)),
          Op::mprotect(kBase, kProtected * kPage, PROT_READ), Op::think(SimTime::ms(1))});
  thread(*sim, 1, 1,
         {Op::think(SimTime::us(10)), Op::touch(kBase, kWorkingSet * kPage, true),
          Op::think(SimTime::us(50)), Op::touch(kBase, kWorkingSet * kPage, false),
          Op::think(SimTime::us(150)), Op::touch(kBase, kWorkingSet * kPage, false),
          Op::think(SimTime::ms(1))});
  sim->run_until(SimTime::us(900));
  EXPECT_EQ(sim->cpu(1).counters.tlb_remote_single, kProtected);
  EXPECT_EQ(sim->cpu(1).counters.tlb_refill_walks, kProtected);
}

TEST(StlbTest, ARangedShootdownLeavesTheOtherCpusPages) {
  auto sim = rewrite_around_a_purge(tlb_single_page_flush_ceiling, cost_profile_default());
  EXPECT_EQ(sim->cpu(1).counters.tlb_remote_single, tlb_single_page_flush_ceiling);
  EXPECT_EQ(sim->cpu(1).counters.tlb_refill_walks, 0u) << "INVLPG took only the purged pages";
}

TEST(StlbTest, EachWalkCostsTheProfilesRefillTime) {
  CostProfile no_walk = cost_profile_default();
  no_walk.tlb_refill_walk = SimTime::zero();
  CostProfile walk = no_walk;
  walk.tlb_refill_walk = SimTime::ns(40);
  const uint64_t full = tlb_single_page_flush_ceiling + 1;
  auto a = rewrite_around_a_purge(full, no_walk, true);
  auto b = rewrite_around_a_purge(full, walk, true);
  EXPECT_EQ(b->cpu_totals().tlb_refill_walks, a->cpu_totals().tlb_refill_walks);
  // CPU 1's thread ends last; nothing it shares waits on it after its third pass.
  EXPECT_EQ(b->now() - a->now(), walk.tlb_refill_walk * static_cast<int64_t>(kWorkingSet));
}

}  // namespace
}  // namespace mmreplay::kernelsim
