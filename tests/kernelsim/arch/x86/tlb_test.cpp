// TLB shootdowns: who gets an IPI, how many pages are flushed and how, for madvise and munmap.

#include "kernelsim/arch/x86/tlb.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr uint64_t kMapPages = 1024;

// Thread 0 on CPU 0 maps and dirties kMapPages pages, then runs `advice_ops` at ~100 us. Threads
// on CPUs 1..k-1 of the same mm run user code meanwhile (they keep the mm loaded, not lazy).
std::unique_ptr<Simulation> run_on_k_cpus(uint32_t k, const std::string& policy,
                                          std::vector<Op> advice_ops) {
  auto sim = make_sim(k, policy);
  std::vector<Op> ops = {Op::mmap_anon(kBase, kMapPages * kPage, PROT_READ | PROT_WRITE),
                         Op::touch(kBase, kMapPages * kPage, true), Op::think(SimTime::us(100))};
  for (Op& op : advice_ops) ops.push_back(std::move(op));
  ops.push_back(Op::think(SimTime::ms(50)));  // keep the mm alive past the check
  thread(*sim, 1, 0, ops);
  for (uint32_t cpu = 1; cpu < k; ++cpu) thread(*sim, 1, cpu, {Op::think(SimTime::ms(50))});
  sim->run_until(SimTime::ms(20));  // before the others exit and tear the mm down
  return sim;
}

TEST(TlbTest, DontneedSendsOneIpiPerOtherCpuAndFlushesByTheCeiling) {
  for (uint32_t k : {1u, 2u, 4u, 8u, 64u, NR_CPUS}) {
    for (uint64_t n : {1ull, 33ull, 34ull, 512ull}) {
      auto sim = run_on_k_cpus(k, "", {Op::madvise(kBase, n * kPage, MADV_DONTNEED)});
      SCOPED_TRACE("k=" + std::to_string(k) + " n=" + std::to_string(n));
      const CpuCounters total = sim->cpu_totals();
      EXPECT_EQ(sim->cpu(0).counters.ipis_sent, k - 1);
      EXPECT_EQ(total.ipis_received, k - 1);
      for (uint32_t c = 1; c < k; ++c) EXPECT_EQ(sim->cpu(c).counters.ipis_received, 1u);
      if (n > tlb_single_page_flush_ceiling) {
        EXPECT_EQ(sim->cpu(0).counters.tlb_local_full, 1u);
        EXPECT_EQ(sim->cpu(0).counters.tlb_local_single, 0u);
        EXPECT_EQ(total.tlb_remote_full, k - 1);
      } else {
        EXPECT_EQ(sim->cpu(0).counters.tlb_local_full, 0u);
        EXPECT_EQ(sim->cpu(0).counters.tlb_local_single, n);
        EXPECT_EQ(total.tlb_remote_single, n * (k - 1));
      }
      EXPECT_EQ(sim->stats().vm.nr_tlb_flush_calls, 1u);
      EXPECT_EQ(sim->stats().vm.madv_dontneed_pages, n);
    }
  }
}

// A munmap that frees the mapping's page table flushes its cleared ptes and one page at the
// table's PMD (pte_free_tlb() -> tlb_flush_pmd_range(tlb, addr, PAGE_SIZE)), not the 2 MiB the
// table mapped: 8 pages at a PMD's start are 8 INVLPGs on the other CPU, not a full flush.
TEST(TlbTest, UnmapThatFreesItsTableFlushesItsPagesNotThePmd) {
  constexpr uint64_t kPages = 8;
  auto sim = make_sim(2);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, kPages * kPage, true), Op::munmap(kBase, kPages * kPage),
          Op::think(SimTime::ms(50))});
  thread(*sim, 1, 1, {Op::think(SimTime::ms(50))});
  sim->run_until(SimTime::ms(20));
  EXPECT_EQ(sim->stats().vm.pgtable_free, 1u) << "the table went with the mapping";
  EXPECT_EQ(sim->cpu(1).counters.tlb_remote_single, kPages);
  EXPECT_EQ(sim->cpu(1).counters.tlb_remote_full, 0u);
}

// mremap moving a mapping flushes the moved ptes in move_ptes() (flush_tlb_range(), a page at a
// time) and the old range's freed table in its unmap, one INVLPG at the PMD's stride.
TEST(TlbTest, MremapFlushesTheMovedPtesThenTheFreedTable) {
  constexpr uint64_t kPages = 8;
  constexpr uint64_t kTarget = kBase + 4 * PMD_SIZE;
  auto sim = make_sim(2);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, kPages * kPage, true), Op::think(SimTime::us(100)),
          Op::mremap(kBase, kPages * kPage, kPages * kPage, MREMAP_MAYMOVE | MREMAP_FIXED, kTarget),
          Op::think(SimTime::ms(50))});
  thread(*sim, 1, 1, {Op::think(SimTime::ms(50))});
  const uint64_t before = [&] {
    sim->run_until(SimTime::us(50));
    return sim->stats().vm.nr_tlb_flush_calls;
  }();
  sim->run_until(SimTime::ms(20));
  EXPECT_EQ(sim->stats().vm.nr_tlb_flush_calls - before, 2u);
  EXPECT_EQ(sim->cpu(1).counters.ipis_received, 2u);
  EXPECT_EQ(sim->cpu(1).counters.tlb_remote_single, kPages + 1);
  EXPECT_EQ(sim->cpu(1).counters.tlb_remote_full, 0u);
  EXPECT_EQ(sim->find_mm(1)->rss_anon, kPages);
}

TEST(TlbTest, BroadcastSendsNoIpis) {
  auto sim = run_on_k_cpus(8, "tlb=broadcast", {Op::madvise(kBase, 64 * kPage, MADV_DONTNEED)});
  EXPECT_EQ(sim->cpu_totals().ipis_sent, 0u);
  EXPECT_EQ(sim->cpu_totals().ipis_received, 0u);
  EXPECT_EQ(sim->stats().vm.nr_tlb_broadcast, 1u);
  EXPECT_EQ(sim->cpu_totals().irq_ns, 0u);
}

TEST(TlbTest, HandlerTimeIsStolenFromTheTargetsTask) {
  auto sim = make_sim(2);
  thread(
      *sim, 1, 0,
      {Op::mmap_anon(kBase, 8 * kPage, PROT_READ | PROT_WRITE), Op::touch(kBase, 8 * kPage, true),
       Op::think(SimTime::us(100)), Op::madvise(kBase, 8 * kPage, MADV_DONTNEED)});
  thread(*sim, 1, 1, {Op::think(SimTime::ms(1))});
  sim->run();
  const CostProfile& c = sim->costs();
  const SimTime handler = c.ipi_handler_entry + c.tlb_flush_single * 8;
  EXPECT_EQ(sim->cpu(1).counters.irq_ns, static_cast<uint64_t>(handler.count_ns()));
  // The 1 ms of user code on CPU 1 took 1 ms + the handler.
  EXPECT_EQ(sim->stats().latency(OpKind::kThink).max(),
            static_cast<uint64_t>((SimTime::ms(1) + handler).count_ns()));
}

// CPU 3's thread sleeps across the madvise: CPU 3 is idle with the mm loaded (lazy TLB).
std::unique_ptr<Simulation> run_with_lazy_cpu(const std::string& policy, int madvises) {
  auto sim = make_sim(4, policy);
  std::vector<Op> ops = {Op::mmap_anon(kBase, 64 * kPage, PROT_READ | PROT_WRITE),
                         Op::touch(kBase, 64 * kPage, true), Op::think(SimTime::us(200))};
  for (int i = 0; i < madvises; ++i) {
    ops.push_back(Op::touch(kBase, 8 * kPage, true));
    ops.push_back(Op::madvise(kBase, 8 * kPage, MADV_DONTNEED));
  }
  thread(*sim, 1, 0, ops);
  thread(*sim, 1, 1, {Op::think(SimTime::ms(5))});
  thread(*sim, 1, 2, {Op::think(SimTime::ms(5))});
  thread(*sim, 1, 3,
         {Op::think(SimTime::us(10)), Op::sleep(SimTime::ms(1)), Op::think(SimTime::us(10))});
  sim->run_until(SimTime::ms(3));
  return sim;
}

TEST(TlbTest, LazyCpuIsSkippedAndFlushesOnReturnSince419) {
  auto sim = run_with_lazy_cpu("lazy_tlb=skip", 1);
  EXPECT_EQ(sim->cpu(0).counters.ipis_sent, 2u);
  EXPECT_EQ(sim->cpu(3).counters.ipis_received, 0u);
  EXPECT_EQ(sim->cpu(3).counters.tlb_lazy_flushes, 1u) << "stale tlb_gen must be caught on return";
  EXPECT_EQ(sim->cpu(3).counters.leave_mm, 0u);
}

TEST(TlbTest, LazyCpuTakesOneIpiAndLeavesTheMmIn3x) {
  auto sim = run_with_lazy_cpu("lazy_tlb=leave_mm", 2);
  // First flush: CPUs 1, 2 and lazy 3 (which leaves the mm); second: CPUs 1 and 2 only.
  EXPECT_EQ(sim->cpu(0).counters.ipis_sent, 5u);
  EXPECT_EQ(sim->cpu(3).counters.ipis_received, 1u);
  EXPECT_EQ(sim->cpu(3).counters.leave_mm, 1u);
  EXPECT_EQ(sim->cpu(3).counters.tlb_lazy_flushes, 0u);
}

TEST(TlbTest, UnmapThatFreesPageTablesReachesLazyCpus) {
  auto sim = make_sim(2, "lazy_tlb=skip");
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 2 * PMD_SIZE, PROT_READ | PROT_WRITE),
          Op::touch(kBase, 2 * PMD_SIZE, true), Op::think(SimTime::us(200)),
          Op::munmap(kBase, 2 * PMD_SIZE), Op::think(SimTime::ms(5))});
  thread(*sim, 1, 1, {Op::think(SimTime::us(10))});  // exits early: CPU 1 goes lazy
  sim->run_until(SimTime::ms(2));
  EXPECT_EQ(sim->cpu(1).counters.ipis_received, 1u);
  EXPECT_EQ(sim->cpu(1).counters.leave_mm, 1u);
  EXPECT_EQ(sim->stats().vm.pgtable_free, 2u);
}

// tlb=pv: a guest whose flush_tlb_multi() is a hypercall (hyperv_flush_tlb_multi(), this
// machine's PVM guest): the TLB line of /proc/interrupts does not move.
TEST(TlbTest, ParavirtFlushSendsNoIpisAndMakesOneHypercallPerFlush) {
  for (uint32_t k : {2u, 8u, 64u}) {
    for (uint64_t n : {1ull, 34ull}) {
      auto sim = run_on_k_cpus(k, "tlb=pv", {Op::madvise(kBase, n * kPage, MADV_DONTNEED)});
      SCOPED_TRACE("k=" + std::to_string(k) + " n=" + std::to_string(n));
      const CpuCounters total = sim->cpu_totals();
      EXPECT_EQ(total.ipis_sent, 0u);
      EXPECT_EQ(total.ipis_received, 0u);
      EXPECT_EQ(total.irq_ns, 0u);
      EXPECT_EQ(total.tlb_remote_single + total.tlb_remote_full, 0u) << "no handler ran";
      for (uint32_t c = 1; c < k; ++c) EXPECT_EQ(sim->cpu(c).counters.tlb_pv_remote, 1u);
      EXPECT_EQ(sim->cpu(0).counters.tlb_pv_remote, 0u);
      EXPECT_EQ(sim->stats().vm.nr_tlb_pv_flushes, 1u);
      EXPECT_EQ(sim->stats().vm.nr_tlb_shootdowns, 0u);
      EXPECT_EQ(sim->stats().vm.nr_tlb_flush_calls, 1u);
    }
  }
}

TEST(TlbTest, ParavirtFlushOfAnMmOnlyThisCpuHasIsLocal) {
  auto sim = run_on_k_cpus(1, "tlb=pv", {Op::madvise(kBase, 4 * kPage, MADV_DONTNEED)});
  EXPECT_EQ(sim->stats().vm.nr_tlb_pv_flushes, 0u) << "flush_tlb_multi() only with other CPUs";
  EXPECT_EQ(sim->cpu(0).counters.tlb_local_single, 4u);
}

// The initiator pays the hypercall (with the host's invalidation of the range); the target's
// task loses nothing, unlike HandlerTimeIsStolenFromTheTargetsTask.
TEST(TlbTest, ParavirtFlushCostsTheInitiatorAndStealsNothingFromTheTargets) {
  auto madvise_ns = [](SimTime hypercall, uint64_t* think_ns) {
    CostProfile costs = cost_profile_default();
    costs.pv_flush_tlb_multi = hypercall;
    auto sim = make_sim(2, "tlb=pv", costs);
    thread(
        *sim, 1, 0,
        {Op::mmap_anon(kBase, 8 * kPage, PROT_READ | PROT_WRITE), Op::touch(kBase, 8 * kPage, true),
         Op::think(SimTime::us(100)), Op::madvise(kBase, 8 * kPage, MADV_DONTNEED)});
    thread(*sim, 1, 1, {Op::think(SimTime::ms(1))});
    sim->run();
    *think_ns = sim->stats().latency(OpKind::kThink).max();
    return sim->stats().latency(OpKind::kMadvise).max();
  };
  uint64_t think_a = 0, think_b = 0;
  const uint64_t a = madvise_ns(SimTime::ns(2000), &think_a);
  const uint64_t b = madvise_ns(SimTime::ns(5000), &think_b);
  EXPECT_EQ(b - a, 3000u);
  EXPECT_EQ(think_a, static_cast<uint64_t>(SimTime::ms(1).count_ns()));
  EXPECT_EQ(think_b, think_a);
}

TEST(TlbTest, ParavirtFlushSkipsLazyCpusWhichStayAndFlushOnReturn) {
  auto sim = run_with_lazy_cpu("tlb=pv,lazy_tlb=skip", 1);
  EXPECT_EQ(sim->cpu(1).counters.tlb_pv_remote, 1u);
  EXPECT_EQ(sim->cpu(2).counters.tlb_pv_remote, 1u);
  EXPECT_EQ(sim->cpu(3).counters.tlb_pv_remote, 0u);
  EXPECT_EQ(sim->cpu(3).counters.leave_mm, 0u);
  EXPECT_EQ(sim->cpu(3).counters.tlb_lazy_flushes, 1u) << "stale tlb_gen must be caught on return";
  EXPECT_EQ(sim->cpu_totals().ipis_received, 0u);
}

TEST(TlbTest, ParavirtUnmapThatFreesPageTablesNamesLazyCpusWhichStayInTheMm) {
  auto sim = make_sim(2, "tlb=pv,lazy_tlb=skip");
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 2 * PMD_SIZE, PROT_READ | PROT_WRITE),
          Op::touch(kBase, 2 * PMD_SIZE, true), Op::think(SimTime::us(200)),
          Op::munmap(kBase, 2 * PMD_SIZE), Op::think(SimTime::ms(5))});
  thread(*sim, 1, 1, {Op::think(SimTime::us(10))});  // exits early: CPU 1 goes lazy
  sim->run_until(SimTime::ms(2));
  EXPECT_EQ(sim->stats().vm.pgtable_free, 2u);
  EXPECT_EQ(sim->cpu(1).counters.tlb_pv_remote, 1u);
  EXPECT_EQ(sim->cpu(1).counters.ipis_received, 0u);
  EXPECT_EQ(sim->cpu(1).counters.leave_mm, 0u) << "no handler in the guest to leave the mm";
  EXPECT_TRUE(sim->cpu(1).is_lazy);
}

std::vector<AddrRange> ranges(int r) {
  std::vector<AddrRange> out;
  for (int i = 0; i < r; ++i)
    out.push_back({kBase + static_cast<uint64_t>(i) * 16 * kPage, 4 * kPage});
  return out;
}

TEST(TlbTest, VectorMadviseSendsOneRoundOfIpisPerCallSendsOnePerRange) {
  constexpr uint32_t k = 8;
  constexpr int r = 16;
  auto per_call = run_on_k_cpus(k, "madvise=per-call", {Op::madvise_vec(ranges(r), MADV_DONTNEED)});
  auto vector = run_on_k_cpus(k, "madvise=vector", {Op::madvise_vec(ranges(r), MADV_DONTNEED)});
  EXPECT_EQ(per_call->cpu(0).counters.ipis_sent, static_cast<uint64_t>(r) * (k - 1));
  EXPECT_EQ(vector->cpu(0).counters.ipis_sent, k - 1);
  EXPECT_EQ(per_call->stats().vm.nr_tlb_flush_calls, static_cast<uint64_t>(r));
  EXPECT_EQ(vector->stats().vm.nr_tlb_flush_calls, 1u);
  const LockClassStats* pc = per_call->lockstat().find("&mm->mmap_sem-R");
  const LockClassStats* vc = vector->lockstat().find("&mm->mmap_sem-R");
  ASSERT_TRUE(pc != nullptr && vc != nullptr);
  EXPECT_EQ(pc->acquisitions - vc->acquisitions, static_cast<uint64_t>(r - 1));
  EXPECT_EQ(per_call->stats().vm.madv_dontneed_pages, vector->stats().vm.madv_dontneed_pages);
}

// 6.14+ keeps a CPU in mm_cpumask after it switches to another mm (mm_cpumask=lazy,
// 209954cbc7d0); a flush of the mm reaches it only once a second (should_trim_cpumask(),
// 6db2526c1d69), and that IPI takes it out of the mask (TLB_REMOTE_WRONG_CPU): the flushes after it
// reach nobody. Before, switch_mm_irqs_off() took it out as it switched.
TEST(TlbTest, AStaleCpuOfTheMaskIsTrimmedOnceASecondFrom614) {
  for (const char* mode : {"mm_cpumask=eager", "mm_cpumask=lazy"}) {
    SCOPED_TRACE(mode);
    auto sim = make_sim(2, mode);
    std::vector<Op> ops = {Op::mmap_anon(kBase, 8 * kPage, PROT_READ | PROT_WRITE),
                           Op::think(SimTime::us(200))};
    for (int i = 0; i < 30; ++i) {  // 30 one-page purges, 100 ms apart: 3 s
      ops.push_back(Op::touch(kBase, kPage, true));
      ops.push_back(Op::madvise(kBase, kPage, MADV_DONTNEED));
      ops.push_back(Op::sleep(SimTime::ms(100)));
    }
    thread(*sim, 1, 0, ops);
    thread(*sim, 1, 1, {Op::think(SimTime::us(50))});  // the mm's second thread, on CPU 1, exits
    thread(*sim, 2, 1, {Op::sleep(SimTime::us(100)), Op::think(SimTime::ms(3500))});  // then busy
    sim->run_until(SimTime::ms(3200));
    const Mm& mm = *sim->find_mm(1);
    EXPECT_FALSE(mm.cpumask.test(1)) << "CPU 1 runs mm 2";
    const bool lazy = std::string(mode) == "mm_cpumask=lazy";
    EXPECT_EQ(sim->cpu(1).counters.ipis_received, lazy ? 1u : 0u);
    EXPECT_EQ(sim->cpu(1).counters.tlb_remote_wrong_cpu, lazy ? 1u : 0u);
    EXPECT_FALSE(mm.ran_on.test(1) && lazy) << "trimmed by that IPI";
    EXPECT_EQ(sim->cpu(1).counters.tlb_remote_single, 0u) << "it flushes nothing";
  }
}

}  // namespace
}  // namespace mmreplay::kernelsim
