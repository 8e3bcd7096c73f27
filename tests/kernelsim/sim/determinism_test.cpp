// Same input, same machine, same policy: bit-identical results.

#include <gtest/gtest.h>

#include <thread>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

// A mixed workload: 8 threads of two processes on 4 CPUs (time-shared), faults, madvise,
// munmap/mmap churn and a vector madvise, all contending on mmap_sem and zone->lock.
std::unique_ptr<Simulation> workload(const std::string& policy) {
  auto sim = make_sim(4, policy);
  for (uint32_t i = 0; i < 8; ++i) {
    const uint32_t mm = 1 + i % 2;
    const uint64_t base = kBase + static_cast<uint64_t>(i) * 1024 * kPage;
    std::vector<Op> ops;
    for (int round = 0; round < 6; ++round) {
      ops.push_back(Op::mmap_anon(base, 512 * kPage, PROT_READ | PROT_WRITE));
      ops.push_back(Op::touch(base, 512 * kPage, (round + i) % 3 != 0, kPage * (1 + i % 3)));
      ops.push_back(Op::madvise(base, 64 * kPage, round % 2 ? MADV_FREE : MADV_DONTNEED));
      ops.push_back(Op::madvise_vec(
          {{base + 128 * kPage, 8 * kPage}, {base + 256 * kPage, 40 * kPage}}, MADV_DONTNEED));
      ops.push_back(Op::think(SimTime::us(37 * (i + 1))));
      ops.push_back(Op::munmap(base, 512 * kPage));
    }
    thread(*sim, mm, i % 4, std::move(ops), SimTime::us(i));
  }
  sim->run();
  return sim;
}

TEST(DeterminismTest, SameInputTwiceGivesIdenticalResults) {
  for (const char* policy :
       {"", "fault_lock=per-vma,madvise=vector,madv_free=as-dontneed",
        "tlb=broadcast,lazy_tlb=leave_mm,rwsem_wake=contiguous,rwsem_writer_wake=steal"}) {
    auto a = workload(policy);
    auto b = workload(policy);
    SCOPED_TRACE(policy);
    EXPECT_EQ(a->nr_live_tasks(), 0u);
    EXPECT_EQ(a->now(), b->now());
    EXPECT_TRUE(a->stats() == b->stats());
    EXPECT_TRUE(a->lockstat() == b->lockstat());
    for (uint32_t c = 0; c < a->nr_cpus(); ++c)
      EXPECT_TRUE(a->cpu(c).counters == b->cpu(c).counters);
    EXPECT_EQ(a->events().events_fired(), b->events().events_fired());
    // And the run did real work.
    EXPECT_GT(a->stats().vm.pgfault, 10'000u);
    EXPECT_EQ(a->stats().vm.pages_alloc, a->stats().vm.pages_free);
  }
}

TEST(DeterminismTest, ResultsDoNotDependOnHostThreads) {
  // Simulations share no state: two runs side by side on host threads equal one run alone.
  auto alone = workload("fault_lock=per-vma");
  std::unique_ptr<Simulation> a, b;
  std::thread ta([&a] { a = workload("fault_lock=per-vma"); });
  std::thread tb([&b] { b = workload("fault_lock=per-vma"); });
  ta.join();
  tb.join();
  EXPECT_TRUE(a->stats() == alone->stats());
  EXPECT_TRUE(b->stats() == alone->stats());
  EXPECT_TRUE(a->lockstat() == alone->lockstat());
  EXPECT_EQ(b->now(), alone->now());
}

TEST(DeterminismTest, PoliciesChangeTheResult) {
  auto ipi = workload("tlb=ipi");
  auto bcast = workload("tlb=broadcast");
  EXPECT_GT(ipi->cpu_totals().ipis_sent, 0u);
  EXPECT_EQ(bcast->cpu_totals().ipis_sent, 0u);
  EXPECT_NE(ipi->now(), bcast->now());
}

}  // namespace
}  // namespace mmreplay::kernelsim
