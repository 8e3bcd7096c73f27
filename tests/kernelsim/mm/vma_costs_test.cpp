// What the VMA syscalls charge for the VMA tree work (issue 19: calibrate fits these fields, so
// each must be charged where the kernel does that work, once per unit): vma_remove per VMA a
// munmap or a moving mremap takes out, vma_expand per in-place growth, move_vma per move, and
// get_unmapped_area for a move whether or not the trace recorded where it went.

#include <gtest/gtest.h>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr int64_t kStepNs = 1000;

// The summed latency of the `kind` ops when one thread runs `ops` with `costs`.
int64_t op_ns(const CostProfile& costs, std::vector<Op> ops, OpKind kind) {
  auto sim = make_sim(1, "", costs);
  thread(*sim, 1, 0, std::move(ops));
  sim->run();
  EXPECT_EQ(sim->stats().vm.ops_failed, 0u);
  return static_cast<int64_t>(sim->stats().latency(kind).sum());
}

// How many times `ops` charge `field` in their `kind` ops: the latency added by kStepNs more.
int64_t charges(SimTime CostProfile::*field, const std::vector<Op>& ops, OpKind kind) {
  CostProfile more = cost_profile_default();
  more.*field += SimTime::ns(kStepNs);
  const int64_t added = op_ns(more, ops, kind) - op_ns(cost_profile_default(), ops, kind);
  EXPECT_EQ(added % kStepNs, 0);
  return added / kStepNs;
}

const uint32_t kVmaRw = PROT_READ | PROT_WRITE;

TEST(VmaCostsTest, MunmapChargesOneRemovalPerVma) {
  // Two VMAs (different protections do not merge), one munmap over both.
  const std::vector<Op> ops = {Op::mmap_anon(kBase, kPage, kVmaRw),
                               Op::mmap_anon(kBase + kPage, kPage, PROT_READ),
                               Op::munmap(kBase, 2 * kPage)};
  EXPECT_EQ(charges(&CostProfile::vma_remove, ops, OpKind::kMunmap), 2);
}

TEST(VmaCostsTest, InPlaceGrowthChargesOneExpand) {
  const std::vector<Op> ops = {Op::mmap_anon(kBase, 4 * kPage, kVmaRw),
                               Op::mremap(kBase, 4 * kPage, 5 * kPage, 0)};
  EXPECT_EQ(charges(&CostProfile::vma_expand, ops, OpKind::kMremap), 1);
  EXPECT_EQ(charges(&CostProfile::move_vma, ops, OpKind::kMremap), 0);
}

TEST(VmaCostsTest, AMoveChargesItsFixedWorkTheOldVmaAndOneSearch) {
  for (const bool recorded : {false, true}) {
    Op move = Op::mremap(kBase, 4 * kPage, 5 * kPage, MREMAP_MAYMOVE, recorded ? 2 * kBase : 0);
    move.addr_recorded = recorded;
    const std::vector<Op> ops = {Op::mmap_anon(kBase, 4 * kPage, kVmaRw),
                                 Op::touch(kBase, 4 * kPage, true),
                                 Op::mmap_anon(kBase + 4 * kPage, kPage, PROT_READ), move};
    EXPECT_EQ(charges(&CostProfile::move_vma, ops, OpKind::kMremap), 1) << recorded;
    EXPECT_EQ(charges(&CostProfile::vma_remove, ops, OpKind::kMremap), 1) << recorded;
    EXPECT_EQ(charges(&CostProfile::get_unmapped_area, ops, OpKind::kMremap), 1) << recorded;
    EXPECT_EQ(charges(&CostProfile::pte_move, ops, OpKind::kMremap), 4) << recorded;
  }
}

}  // namespace
}  // namespace mmreplay::kernelsim
