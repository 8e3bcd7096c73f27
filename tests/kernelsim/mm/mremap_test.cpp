// Addresses as recorded (issue 19 item 2): mmap, mremap and brk of a recorded trace put the
// mapping where the real kernel did (Op::addr_recorded), whatever the model would have chosen,
// and count addr_mismatch where the model's own view of the address space disagrees.

#include "kernelsim/mm/mremap.h"

#include <gtest/gtest.h>

#include "kernelsim/mm/mm_types.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr uint64_t kRw = PROT_READ | PROT_WRITE;
constexpr uint64_t kElsewhere = kBase + 1024 * kPage;  // where the "kernel" put it

using testing::mm1;
using testing::run_ops;

Op recorded(Op op) {
  op.addr_recorded = true;
  return op;
}

uint64_t result(const Simulation& sim) {
  return static_cast<uint64_t>(sim.tasks()[0]->last_result);
}

TEST(MremapTest, AMoveGoesToTheRecordedAddressWithItsPages) {
  auto sim = run_ops({Op::mmap_anon(kBase, 4 * kPage, kRw), Op::touch(kBase, 4 * kPage, true),
                      Op::mmap_anon(kBase + 4 * kPage, kPage, PROT_READ),  // blocks growth
                      recorded(Op::mremap(kBase, 4 * kPage, 8 * kPage, MREMAP_MAYMOVE, kElsewhere)),
                      Op::touch(kElsewhere, 8 * kPage, true)});
  const Mm& mm = mm1(*sim);
  const Vma* v = mm.vmas.vma_lookup(kElsewhere);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->start, kElsewhere);
  EXPECT_EQ(v->nr_pages(), 8u);
  for (uint64_t i = 0; i < 8; ++i) EXPECT_TRUE(pte::is_mapped(v->ptes.get(kElsewhere + i * kPage)));
  EXPECT_EQ(mm.vmas.vma_lookup(kBase), nullptr);
  EXPECT_EQ(mm.rss_anon, 8u);
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pages_alloc, 8u) << "the 4 moved pages came along; only the new 4 were allocated";
  EXPECT_EQ(vm.fault_segv, 0u);
  EXPECT_EQ(vm.ops_failed, 0u);
  EXPECT_EQ(vm.addr_mismatch, 0u);
}

// MREMAP_DONTUNMAP (5.7+): the pages move, the old range stays mapped and empty, so a later
// access there faults in a fresh zeroed page (what userfaultfd-based GCs rely on).
TEST(MremapTest, DontUnmapMovesThePagesAndLeavesTheOldRangeMappedAndEmpty) {
  auto sim = run_ops({Op::mmap_anon(kBase, 4 * kPage, kRw), Op::touch(kBase, 4 * kPage, true),
                      recorded(Op::mremap(kBase, 4 * kPage, 4 * kPage,
                                          MREMAP_MAYMOVE | MREMAP_DONTUNMAP, kElsewhere))});
  const Mm& mm = mm1(*sim);
  EXPECT_EQ(result(*sim), kElsewhere);
  const Vma* old_vma = mm.vmas.vma_lookup(kBase);
  ASSERT_NE(old_vma, nullptr);
  EXPECT_EQ(old_vma->nr_pages(), 4u);
  const Vma* moved = mm.vmas.vma_lookup(kElsewhere);
  ASSERT_NE(moved, nullptr);
  for (uint64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(old_vma->ptes.get(kBase + i * kPage), pte::kNone) << i;
    EXPECT_TRUE(pte::is_mapped(moved->ptes.get(kElsewhere + i * kPage))) << i;
  }
  EXPECT_EQ(mm.rss_anon, 4u);
  EXPECT_EQ(sim->stats().vm.pages_alloc, 4u);

  // Touching both ranges afterwards: the old one faults in 4 new pages, the moved one none.
  auto sim2 = run_ops({Op::mmap_anon(kBase, 4 * kPage, kRw), Op::touch(kBase, 4 * kPage, true),
                       recorded(Op::mremap(kBase, 4 * kPage, 4 * kPage,
                                           MREMAP_MAYMOVE | MREMAP_DONTUNMAP, kElsewhere)),
                       Op::touch(kElsewhere, 4 * kPage, true), Op::touch(kBase, 4 * kPage, true)});
  const VmCounters& vm = sim2->stats().vm;
  EXPECT_EQ(vm.pages_alloc, 8u);
  EXPECT_EQ(vm.fault_segv, 0u);
  EXPECT_EQ(vm.ops_failed, 0u);
  EXPECT_EQ(mm1(*sim2).rss_anon, 8u);

  // The kernel refuses DONTUNMAP with a size change.
  auto sim3 = run_ops({Op::mmap_anon(kBase, 4 * kPage, kRw),
                       Op::mremap(kBase, 4 * kPage, 8 * kPage, MREMAP_MAYMOVE | MREMAP_DONTUNMAP)});
  EXPECT_EQ(sim3->tasks()[0]->last_result, -ERRNO_EINVAL);
}

TEST(MremapTest, WithoutARecordedAddressTheModelChooses) {
  auto sim = run_ops({Op::mmap_anon(kBase, 4 * kPage, kRw),
                      Op::mmap_anon(kBase + 4 * kPage, kPage, PROT_READ),
                      Op::mremap(kBase, 4 * kPage, 8 * kPage, MREMAP_MAYMOVE, kElsewhere)});
  EXPECT_NE(result(*sim), kElsewhere) << "new_addr without MREMAP_FIXED is not a request";
  EXPECT_EQ(sim->stats().vm.addr_mismatch, 0u);
}

TEST(MremapTest, RecordedInPlaceGrowthStaysPut) {
  auto sim = run_ops({Op::mmap_anon(kBase, 4 * kPage, kRw), Op::touch(kBase, 4 * kPage, true),
                      recorded(Op::mremap(kBase, 4 * kPage, 8 * kPage, MREMAP_MAYMOVE, kBase))});
  EXPECT_EQ(result(*sim), kBase);
  EXPECT_EQ(mm1(*sim).vmas.vma_lookup(kBase)->end, kBase + 8 * kPage);
  EXPECT_EQ(sim->stats().vm.addr_mismatch, 0u);
}

TEST(MremapTest, ARecordedMoveOntoAModelMappingReplacesItAndCounts) {
  auto sim =
      run_ops({Op::mmap_anon(kBase, 4 * kPage, kRw), Op::touch(kBase, 4 * kPage, true),
               Op::mmap_anon(kBase + 4 * kPage, kPage, PROT_READ),   // blocks growth
               Op::mmap_anon(kElsewhere + kPage, kPage, PROT_READ),  // stale in the model
               recorded(Op::mremap(kBase, 4 * kPage, 8 * kPage, MREMAP_MAYMOVE, kElsewhere))});
  EXPECT_EQ(result(*sim), kElsewhere);
  const Vma* v = mm1(*sim).vmas.vma_lookup(kElsewhere + kPage);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->start, kElsewhere);
  EXPECT_EQ(v->prot, kRw);
  EXPECT_EQ(sim->stats().vm.addr_mismatch, 1u);
}

TEST(MremapTest, ARecordedMoveWhereTheModelCouldGrowCounts) {
  auto sim =
      run_ops({Op::mmap_anon(kBase, 4 * kPage, kRw),
               recorded(Op::mremap(kBase, 4 * kPage, 8 * kPage, MREMAP_MAYMOVE, kElsewhere))});
  EXPECT_EQ(result(*sim), kElsewhere) << "the trace is followed";
  EXPECT_EQ(mm1(*sim).vmas.vma_lookup(kBase), nullptr);
  EXPECT_EQ(sim->stats().vm.addr_mismatch, 1u);
}

TEST(MremapTest, RecordedInPlaceGrowthOverAModelMappingCounts) {
  auto sim = run_ops({Op::mmap_anon(kBase, 4 * kPage, kRw),
                      Op::mmap_anon(kBase + 4 * kPage, kPage, PROT_READ),
                      recorded(Op::mremap(kBase, 4 * kPage, 8 * kPage, MREMAP_MAYMOVE, kBase))});
  EXPECT_EQ(result(*sim), kBase);
  const Vma* v = mm1(*sim).vmas.vma_lookup(kBase + 4 * kPage);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->start, kBase);
  EXPECT_EQ(v->end, kBase + 8 * kPage);
  EXPECT_EQ(sim->stats().vm.addr_mismatch, 1u);
}

TEST(MremapTest, ARecordedMmapOverAModelMappingTakesItsPlaceAndCounts) {
  auto sim = run_ops(
      {Op::mmap_anon(kBase, 4 * kPage, PROT_READ), recorded(Op::mmap_anon(kBase, 2 * kPage, kRw))});
  EXPECT_EQ(result(*sim), kBase);
  EXPECT_EQ(mm1(*sim).vmas.vma_lookup(kBase)->prot, kRw);
  EXPECT_EQ(sim->stats().vm.addr_mismatch, 1u);

  auto hint = run_ops({Op::mmap_anon(kBase, 4 * kPage, PROT_READ),
                       Op::mmap_anon(kBase, 2 * kPage, kRw)});  // a hint: goes elsewhere
  EXPECT_NE(result(*hint), kBase);
  EXPECT_EQ(hint->stats().vm.addr_mismatch, 0u);
}

TEST(MremapTest, ARecordedBrkGrowsOverAModelMappingAndCounts) {
  const uint64_t start = 0x600000;
  auto sim = run_ops({Op::brk(start), Op::mmap_anon(start + 8 * kPage, kPage, PROT_READ),
                      recorded(Op::brk(start + 16 * kPage)), Op::touch(start, 16 * kPage, true)});
  EXPECT_EQ(mm1(*sim).brk, start + 16 * kPage);
  EXPECT_EQ(sim->stats().vm.addr_mismatch, 1u);
  EXPECT_EQ(sim->stats().vm.fault_segv, 0u);

  auto model = run_ops({Op::brk(start), Op::mmap_anon(start + 8 * kPage, kPage, PROT_READ),
                        Op::brk(start + 16 * kPage)});
  EXPECT_EQ(mm1(*model).brk, start) << "not recorded: the kernel's check refuses the growth";
  EXPECT_EQ(model->stats().vm.addr_mismatch, 0u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
