// Faults taken in the kernel inside a syscall's user copy (mm/memory.h do_kernel_copy_fault()).

#include <gtest/gtest.h>

#include "kernelsim/mm/memory.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr uint64_t kPages = 16;  // a 64 KiB read into fresh memory

// The run time of one thread that maps kPages and takes one fault per page, from user or kernel
// mode, reading or writing.
SimTime faults_take(bool user, bool write, const CostProfile& costs) {
  auto sim = make_sim(1, "", costs);
  std::vector<Op> ops = {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE)};
  for (uint64_t i = 0; i < kPages; ++i)
    ops.push_back(Op::page_fault(kBase + i * kPage, write, user));
  Task& t = thread(*sim, 1, 0, std::move(ops));
  sim->run();
  EXPECT_TRUE(t.finished());
  EXPECT_EQ(sim->stats().vm.fault_segv, 0u);
  return sim->now();
}

TEST(KernelFaultTest, AWriteFaultInACopyToUserPaysTheKernelEntryAndTheColdCopy) {
  CostProfile c = cost_profile_default();
  c.fault_from_kernel = SimTime::ns(700);
  c.copy_page_cold = c.file_copy_page + SimTime::ns(450);
  const SimTime extra = faults_take(false, true, c) - faults_take(true, true, c);
  EXPECT_EQ(extra, (SimTime::ns(700) + SimTime::ns(450)) * static_cast<int64_t>(kPages));
}

TEST(KernelFaultTest, AReadFaultInACopyFromUserCopiesNothingIntoTheFreshPage) {
  // copy_from_user() out of an untouched page reads the zero page: no cold destination.
  CostProfile c = cost_profile_default();
  c.fault_from_kernel = SimTime::ns(700);
  const SimTime extra = faults_take(false, false, c) - faults_take(true, false, c);
  EXPECT_EQ(extra, SimTime::ns(700) * static_cast<int64_t>(kPages));
}

TEST(KernelFaultTest, AColdCopyCheaperThanTheSyscallsOwnCopyTakesNothingBack) {
  CostProfile c = cost_profile_default();
  c.fault_from_kernel = SimTime::zero();
  c.copy_page_cold = c.file_copy_page - SimTime::ns(100);
  EXPECT_EQ(faults_take(false, true, c), faults_take(true, true, c));
}

}  // namespace
}  // namespace mmreplay::kernelsim
