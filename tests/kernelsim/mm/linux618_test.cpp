// The linux-6.18 preset's locking against linux-6.6's: faults and single-VMA MADV_DONTNEED /
// MADV_FREE never take mmap_sem on 6.18 (as `perf stat -e 'mmap_lock:*'` shows on a 6.18
// machine), process_madvise() batches its ranges' flushes, and munmap's downgraded zap lets a
// fault elsewhere in the mm take mmap_sem meanwhile.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

constexpr uint64_t kPages = 64;
constexpr uint64_t kRounds = 10;

uint64_t acquisitions(const Simulation& sim, std::string_view lock_class) {
  const LockClassStats* c = sim.lockstat().find(lock_class);
  return c == nullptr ? 0 : c->acquisitions;
}
uint64_t mmap_sem_reads(const Simulation& sim) {
  return acquisitions(sim, "&mm->mmap_sem-R");
}

// The perf test program: fault kPages pages of one anonymous VMA, drop them, kRounds times.
std::unique_ptr<Simulation> fault_and_advise(const std::string& policy, int advice) {
  auto sim = make_sim(1, policy);
  std::vector<Op> ops = {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE)};
  for (uint64_t r = 0; r < kRounds; ++r) {
    ops.push_back(Op::touch(kBase, kPages * kPage, true));
    ops.push_back(Op::madvise(kBase, kPages * kPage, advice));
  }
  ops.push_back(Op::think(SimTime::ms(100)));
  thread(*sim, 1, 0, std::move(ops));
  sim->run_until(SimTime::ms(50));
  return sim;
}

TEST(Linux618Test, FaultsAndSingleVmaDontneedTakeNoMmapSem) {
  auto v618 = fault_and_advise("linux-6.18", MADV_DONTNEED);
  EXPECT_EQ(v618->stats().vm.pgfault, kPages * kRounds);
  EXPECT_EQ(v618->stats().vm.fault_vma_lock, kPages * kRounds);
  EXPECT_EQ(mmap_sem_reads(*v618), 0u) << "faults and DONTNEED under the per-VMA lock";
  EXPECT_EQ(acquisitions(*v618, "&mm->mmap_sem-W"), 1u) << "the mmap only";
  EXPECT_EQ(acquisitions(*v618, "&vma->vm_lock-R"), kPages * kRounds + kRounds);
  EXPECT_EQ(v618->stats().vm.madv_dontneed_pages, kPages * kRounds);

  auto v66 = fault_and_advise("linux-6.6", MADV_DONTNEED);
  EXPECT_EQ(v66->stats().vm.fault_vma_lock, kPages * kRounds) << "6.6 faults: per-VMA lock";
  EXPECT_EQ(mmap_sem_reads(*v66), kRounds) << "6.6 MADV_DONTNEED: mmap_sem for read";
  EXPECT_EQ(v66->stats().vm.madv_dontneed_pages, kPages * kRounds);
}

TEST(Linux618Test, MadvFreeTakesNoMmapSemEither) {
  auto v618 = fault_and_advise("linux-6.18", MADV_FREE);
  EXPECT_EQ(mmap_sem_reads(*v618), 0u);
  EXPECT_EQ(v618->stats().vm.madv_lazyfree_pages, kPages * kRounds);
  auto v66 = fault_and_advise("linux-6.6", MADV_FREE);
  EXPECT_EQ(mmap_sem_reads(*v66), kRounds);
}

// Read then write (COW) faults on a private file mapping, kRounds times (DONTNEED between).
std::unique_ptr<Simulation> file_faults(const std::string& policy) {
  auto sim = make_sim(1, policy);
  std::vector<Op> ops = {
      Op::mmap_file(kBase, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE, 7, 0)};
  for (uint64_t r = 0; r < kRounds; ++r) {
    ops.push_back(Op::touch(kBase, kPages * kPage, false));
    ops.push_back(Op::touch(kBase, kPages * kPage, true));
    ops.push_back(Op::madvise(kBase, kPages * kPage, MADV_DONTNEED));
  }
  ops.push_back(Op::think(SimTime::ms(100)));
  thread(*sim, 1, 0, std::move(ops));
  sim->run_until(SimTime::ms(50));
  EXPECT_EQ(sim->stats().vm.fault_cow, kPages * kRounds);
  return sim;
}

TEST(Linux618Test, FileBackedFaultsTakeNoMmapSemEither) {
  // perf on 6.18: 25,652 read and COW faults of a private file mapping, no mmap_lock.
  auto v618 = file_faults("linux-6.18");
  EXPECT_EQ(mmap_sem_reads(*v618), 0u);
  EXPECT_EQ(v618->stats().vm.fault_vma_lock, v618->stats().vm.pgfault);
  auto v66 = file_faults("linux-6.6");  // 6.4-6.6: anonymous VMAs only
  EXPECT_EQ(v66->stats().vm.fault_vma_lock, 0u);
  EXPECT_EQ(mmap_sem_reads(*v66), v66->stats().vm.pgfault + kRounds);
}

TEST(Linux618Test, DontneedAcrossTwoVmasFallsBackToMmapSem) {
  // As on 6.18 (perf: one mmap_lock acquisition per call): the range ends past its first VMA.
  auto sim = make_sim(1, "linux-6.18");
  std::vector<Op> ops = {Op::mmap_anon(kBase, kPages * kPage, PROT_READ | PROT_WRITE),
                         Op::mprotect(kBase + kPages / 2 * kPage, kPages / 2 * kPage, PROT_READ)};
  for (uint64_t r = 0; r < kRounds; ++r) {
    ops.push_back(Op::touch(kBase, kPages / 2 * kPage, true));
    ops.push_back(Op::madvise(kBase, kPages * kPage, MADV_DONTNEED));
  }
  ops.push_back(Op::think(SimTime::ms(100)));
  thread(*sim, 1, 0, std::move(ops));
  sim->run_until(SimTime::ms(50));
  EXPECT_EQ(mmap_sem_reads(*sim), kRounds);
  EXPECT_EQ(sim->stats().vm.madv_dontneed_pages, kPages / 2 * kRounds);
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 0u);
}

// Thread 0 on CPU 0 maps kRanges chunks of kChunk pages with a gap after each, dirties them and
// drops them with one vector call; threads on CPUs 1..3 of the same mm keep it loaded. With
// `split`, an mprotect splits the VMA inside range 3.
constexpr uint64_t kRanges = 8;
constexpr uint64_t kChunk = 16;
constexpr uint32_t kCpus = 4;

std::unique_ptr<Simulation> vector_dontneed(const std::string& policy, bool split,
                                            bool call = true) {
  auto sim = make_sim(kCpus, policy);
  const uint64_t len = 2 * kRanges * kChunk * kPage;
  std::vector<AddrRange> ranges;
  for (uint64_t i = 0; i < kRanges; ++i)
    ranges.push_back({kBase + 2 * i * kChunk * kPage, kChunk * kPage});
  std::vector<Op> ops = {Op::mmap_anon(kBase, len, PROT_READ | PROT_WRITE)};
  if (split) {  // a different protection, still writable: a VMA of its own
    ops.push_back(Op::mprotect(ranges[3].addr + kChunk / 2 * kPage, kPage,
                               PROT_READ | PROT_WRITE | PROT_EXEC));
  }
  ops.push_back(Op::touch(kBase, len, false));
  for (const AddrRange& r : ranges) ops.push_back(Op::touch(r.addr, r.len, true));
  ops.push_back(Op::think(SimTime::us(100)));
  if (call) ops.push_back(Op::madvise_vec(ranges, MADV_DONTNEED));
  ops.push_back(Op::think(SimTime::ms(50)));
  thread(*sim, 1, 0, std::move(ops));
  for (uint32_t cpu = 1; cpu < kCpus; ++cpu) thread(*sim, 1, cpu, {Op::think(SimTime::ms(50))});
  sim->run_until(SimTime::ms(20));
  EXPECT_EQ(sim->stats().vm.madv_dontneed_pages, call ? kRanges * kChunk : 0);
  return sim;
}

// The TLB flushes and CPU 0's IPIs of the vector call alone: the setup's writes to zero-page
// ptes flush too (wp_page_copy()'s ptep_clear_flush()), so the same run without the call is
// subtracted.
struct CallFlushes {
  uint64_t flushes = 0;
  uint64_t ipis = 0;
  uint64_t broadcasts = 0;
};
CallFlushes vector_dontneed_flushes(const std::string& policy, bool split) {
  auto with = vector_dontneed(policy, split);
  auto without = vector_dontneed(policy, split, false);
  return {with->stats().vm.nr_tlb_flush_calls - without->stats().vm.nr_tlb_flush_calls,
          with->cpu(0).counters.ipis_sent - without->cpu(0).counters.ipis_sent,
          with->stats().vm.nr_tlb_broadcast - without->stats().vm.nr_tlb_broadcast};
}

TEST(Linux618Test, ProcessMadviseFlushesOnceForAllRanges) {
  const CallFlushes per_call = vector_dontneed_flushes("linux-6.18+madvise=per-call", false);
  EXPECT_EQ(per_call.flushes, kRanges);
  EXPECT_EQ(per_call.ipis, kRanges * (kCpus - 1));

  const CallFlushes batched = vector_dontneed_flushes("linux-6.18", false);
  EXPECT_EQ(batched.flushes, 1u);
  EXPECT_EQ(batched.ipis, kCpus - 1);

  const CallFlushes broadcast = vector_dontneed_flushes("linux-6.18+tlb=broadcast", false);
  EXPECT_EQ(broadcast.broadcasts, 1u);
  EXPECT_EQ(broadcast.ipis, 0u);
}

// Per-VMA read locks taken by madvise: all of them but the faults'.
uint64_t madvise_vma_locks(const Simulation& sim) {
  return acquisitions(sim, "&vma->vm_lock-R") - sim.stats().vm.fault_vma_lock;
}

TEST(Linux618Test, ProcessMadviseLocksPerRangeUntilOneFallsBack) {
  // Each range lies in one VMA: one per-VMA read lock per range, no mmap_sem.
  auto per_vma = vector_dontneed("linux-6.18", false);
  EXPECT_EQ(mmap_sem_reads(*per_vma), 0u);
  EXPECT_EQ(madvise_vma_locks(*per_vma), kRanges);

  // Range 3 spans two VMAs: ranges 0-2 under their VMA locks, range 3's lock taken and dropped,
  // then mmap_sem for read for ranges 3-7 (try_vma_read_lock() switches the whole call).
  auto split = vector_dontneed("linux-6.18", true);
  EXPECT_EQ(mmap_sem_reads(*split), 1u);
  EXPECT_EQ(madvise_vma_locks(*split), 4u);
  EXPECT_EQ(vector_dontneed_flushes("linux-6.18", true).flushes, 1u);

  // madvise_lock=mmap_sem (6.15-6.16): one mmap_sem hold for the call.
  auto mmap_sem = vector_dontneed("linux-6.18+madvise_lock=mmap_sem", false);
  EXPECT_EQ(mmap_sem_reads(*mmap_sem), 1u);
  EXPECT_EQ(vector_dontneed_flushes("linux-6.18+madvise_lock=mmap_sem", false).flushes, 1u);
}

// CPU 0 populates a large VMA and unmaps it; CPU 1 faults pages of another VMA all along, taking
// mmap_sem (fault_lock=mmap_sem). Returns the longest a fault waited for mmap_sem.
uint64_t longest_fault_wait(const std::string& policy) {
  constexpr uint64_t kBig = 8192;
  constexpr uint64_t kOther = kBase + (uint64_t{1} << 30);
  auto sim = make_sim(2, policy + "+fault_lock=mmap_sem");
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, kBig * kPage, PROT_READ | PROT_WRITE),
          Op::mmap_anon(kOther, kBig * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, kBig * kPage, true), Op::munmap(kBase, kBig * kPage),
          Op::think(SimTime::ms(500))});
  std::vector<Op> faults = {Op::think(SimTime::us(100))};
  for (uint64_t i = 0; i < kBig; ++i) {
    faults.push_back(Op::page_fault(kOther + i * kPage, true));
    faults.push_back(Op::think(SimTime::us(5)));
  }
  faults.push_back(Op::think(SimTime::ms(500)));
  thread(*sim, 1, 1, std::move(faults));
  sim->run_until(SimTime::ms(200));  // both threads done, the mm still live
  EXPECT_EQ(sim->find_mm(1)->rss_anon, kBig) << "the munmap done, every fault of CPU 1 mapped";
  const LockClassStats* r = sim->lockstat().find("&mm->mmap_sem-R");
  return r == nullptr ? 0 : r->wait_time.max();
}

TEST(Linux618Test, MunmapDowngradeLetsAFaultProceedDuringTheZap) {
  const uint64_t write = longest_fault_wait("linux-6.18+munmap_lock=write");
  const uint64_t downgrade = longest_fault_wait("linux-6.18");
  RecordProperty("longest_wait_write_ns", std::to_string(write));
  RecordProperty("longest_wait_downgrade_ns", std::to_string(downgrade));
  // Under write a fault waits out the whole zap of 8192 pages; after the downgrade only the
  // detach (VMA write-locking, no pte work).
  EXPECT_GT(write, 0u);
  EXPECT_LT(downgrade * 10, write) << "write " << write << " ns, downgrade " << downgrade << " ns";
}

TEST(Linux618Test, MunmapDowngradeFreesEverythingItZaps) {
  auto sim = make_sim(1, "linux-6.18");
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 1024 * kPage, PROT_READ | PROT_WRITE),
          Op::touch(kBase, 1024 * kPage, true), Op::munmap(kBase + 100 * kPage, 300 * kPage),
          Op::munmap(kBase + 2048 * kPage, kPage),  // nothing mapped there
          Op::think(SimTime::ms(10))});
  sim->run_until(SimTime::ms(5));
  EXPECT_EQ(sim->find_mm(1)->rss_anon, 724u);
  EXPECT_EQ(sim->stats().vm.pages_free, 300u);
  EXPECT_EQ(sim->find_mm(1)->vmas.size(), 2u);
  EXPECT_EQ(sim->find_mm(1)->mmap_sem.readers(), 0u);
  EXPECT_FALSE(sim->find_mm(1)->mmap_sem.is_write_locked());
  sim->run();
  EXPECT_EQ(sim->page_alloc().allocated(), 0u);
  EXPECT_EQ(sim->stats().vm.pgtable_alloc, sim->stats().vm.pgtable_free);
}

}  // namespace
}  // namespace mmreplay::kernelsim
