// Contiguous allocation (mm/cma.c, alloc_contig_range(), mm/migrate.c) and the bh_lru
// invalidation policies of seed 004: IPI counts per policy, busy buffer heads failing migration,
// the refill misses after an invalidation, and migration keeping the page's data and accounting.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/sim/op.h"
#include "kernelsim/simulation.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

constexpr uint32_t kCpus = 4;
constexpr uint64_t kBlock = EXT4_DEFAULT_BLOCK_SIZE;  // one buffer head per page
using testing::kFile;
constexpr uint32_t kDriverMm = 99;
constexpr SimTime kDriverStart = SimTime::us(200);  // after the workers' first reads
constexpr SimTime kPause = SimTime::ms(1);          // workers wait past the allocation
constexpr uint64_t kAddr = 0x10000000;

// A machine whose whole zone is the CMA area: every movable page lands in it, in order, so the
// first page a test creates sits at the area's first pfn, which cma_alloc() tries first.
// With `cma_bytes`, a smaller area at the top of the zone (the first movable page still lands in
// it).
std::unique_ptr<Simulation> make_cma_sim(const std::string& policy, uint64_t cma_bytes = 0) {
  std::string err;
  MachineConfig m;
  m.nr_cpus = kCpus;
  m.memory_bytes = uint64_t{64} << 20;
  m.cma_bytes = cma_bytes != 0 ? cma_bytes : m.memory_bytes;
  // Each read brings in its own page only (no readahead window, mm/readahead.h): the tests place
  // and count the area's pages one by one.
  const std::string no_readahead = "read_ahead_kb=0";
  auto sim = Simulation::create(m, cost_profile_default(),
                                policy.empty() ? no_readahead : policy + "," + no_readahead, &err);
  EXPECT_NE(sim, nullptr) << err;
  return sim;
}

Op read_block(uint64_t b) {
  return Op::file_read(kFile, b * kBlock, kBlock);
}

// Worker on each CPU in `cpus`: reads block 0 (the area's first page), pauses, reads it again.
void spawn_readers(Simulation& sim, const std::vector<uint32_t>& cpus, std::vector<Op> after = {}) {
  for (uint32_t cpu : cpus) {
    std::vector<Op> ops{read_block(0), Op::sleep(kPause), read_block(0)};
    ops.insert(ops.end(), after.begin(), after.end());
    sim.spawn_thread(1, cpu, std::make_unique<VectorOpSource>(std::move(ops)));
  }
}

void spawn_driver(Simulation& sim, uint64_t bytes, bool free_it = true,
                  SimTime start = kDriverStart) {
  std::vector<Op> ops{Op::contig_alloc(1, bytes)};
  if (free_it) ops.push_back(Op::contig_free(1));
  sim.spawn_thread(kDriverMm, 0, std::make_unique<VectorOpSource>(std::move(ops)), start);
}

TEST(ContigAlloc, AllSendsAnIpiToEveryOtherCpu) {
  auto sim = make_cma_sim("bh_invalidate=all");
  spawn_readers(*sim, {1});  // only CPU 1 holds an entry; `all` interrupts CPUs 2 and 3 too
  spawn_driver(*sim, PAGE_SIZE);
  sim->run();
  const VmCounters& vm = sim->vm();
  EXPECT_EQ(vm.bh_invalidate_ipis, kCpus - 1);
  EXPECT_EQ(vm.cma_alloc_success, 1u);
  EXPECT_EQ(vm.cma_alloc_fail, 0u);
  EXPECT_EQ(vm.pgmigrate_success, 1u) << "block 0's page sat in the range";
  EXPECT_EQ(vm.pgmigrate_fail, 0u);
  EXPECT_EQ(sim->stats().count(OpKind::kContigAlloc), 1u);
  EXPECT_EQ(sim->stats().count(OpKind::kContigFree), 1u);
  EXPECT_GT(sim->cpu(2).counters.irq_ns, 0u) << "an idle CPU's handler still runs";
}

TEST(ContigAlloc, CondInterruptsOnlyCpusHoldingEntries) {
  auto sim = make_cma_sim("bh_invalidate=cond");
  spawn_readers(*sim, {1, 2});
  spawn_driver(*sim, PAGE_SIZE);
  sim->run();
  EXPECT_EQ(sim->vm().bh_invalidate_ipis, 2u) << "CPUs 1 and 2, not the idle 3";
  EXPECT_EQ(sim->cpu(3).counters.irq_ns, 0u);
  EXPECT_EQ(sim->vm().cma_alloc_success, 1u);
}

TEST(ContigAlloc, SelectedDropsOnlyTheMigratedPagesEntriesWithoutIpis) {
  auto sim = make_cma_sim("bh_invalidate=selected");
  // CPU 1 also holds block 5 (a page outside the one-page range): it must survive.
  for (uint32_t cpu : {1u, 2u}) {
    sim->spawn_thread(
        1, cpu, std::make_unique<VectorOpSource>(std::vector<Op>{read_block(0), read_block(5)}));
  }
  spawn_driver(*sim, PAGE_SIZE, /*free_it=*/false);
  sim->run();
  const VmCounters& vm = sim->vm();
  EXPECT_EQ(vm.bh_invalidate_ipis, 0u);
  EXPECT_EQ(vm.cma_alloc_success, 1u);
  EXPECT_EQ(vm.bh_lru_invalidated, 2u) << "block 0 dropped from CPUs 1 and 2";
  EXPECT_EQ(vm.bh_lru_drop_searches, kCpus) << "one search of every CPU for the one busy bh";
  for (uint32_t cpu : {1u, 2u}) {
    ASSERT_EQ(sim->buffers().lru(cpu).size(), 1u);
    EXPECT_EQ(sim->buffers().lru(cpu)[0]->key.block, 5u);
  }
}

TEST(ContigAlloc, NoneFailsExactlyWhileAHeldBufferHeadSitsInTheRange) {
  // Held: block 0 stays in CPU 1's bh_lru for the whole allocation. A one-page area has no
  // other range to try, so the allocation fails.
  auto held = make_cma_sim("bh_invalidate=none", PAGE_SIZE);
  spawn_readers(*held, {1});
  spawn_driver(*held, PAGE_SIZE);
  held->run();
  EXPECT_EQ(held->vm().cma_alloc_fail, 1u);
  EXPECT_EQ(held->vm().pgmigrate_fail, ALLOC_CONTIG_MIGRATE_TRIES);
  EXPECT_EQ(held->vm().cma_alloc_retries, ALLOC_CONTIG_MIGRATE_TRIES - 1);
  EXPECT_EQ(held->vm().pgmigrate_success, 0u);
  EXPECT_EQ(held->vm().ops_failed, 2u) << "the allocation and the free of the handle it never got";
  // A larger area: cma_alloc() gives up the busy range and takes the next one.
  auto next = make_cma_sim("bh_invalidate=none");
  spawn_readers(*next, {1});
  spawn_driver(*next, PAGE_SIZE, /*free_it=*/false);
  next->run();
  EXPECT_EQ(next->vm().pgmigrate_fail, ALLOC_CONTIG_MIGRATE_TRIES);
  EXPECT_EQ(next->vm().cma_alloc_success, 1u);
  ASSERT_NE(next->cma().find_allocation(1), nullptr);
  EXPECT_EQ(next->cma().find_allocation(1)->pfn, next->cma().base_pfn() + 1);
  EXPECT_EQ(next->cma().pfn_of_file(kFile, 0), next->cma().base_pfn())
      << "the held page never moved";
  // Not held: 16 more blocks push block 0 out of the bh_lru before the allocation.
  auto evicted = make_cma_sim("bh_invalidate=none", PAGE_SIZE);
  std::vector<Op> ops{read_block(0)};
  for (uint64_t b = 1; b <= BH_LRU_SIZE; ++b) ops.push_back(read_block(b));
  evicted->spawn_thread(1, 1, std::make_unique<VectorOpSource>(ops));
  // Each of the 17 reads misses the page cache and waits for the device: start the driver once
  // they are all done, so block 0 has left the bh_lru.
  const SimTime after_reads =
      kDriverStart + evicted->costs().page_cache_miss_read * (2 * (BH_LRU_SIZE + 1));
  spawn_driver(*evicted, PAGE_SIZE, /*free_it=*/true, after_reads);
  evicted->run();
  EXPECT_EQ(evicted->vm().cma_alloc_success, 1u);
  EXPECT_EQ(evicted->vm().pgmigrate_fail, 0u);
  EXPECT_EQ(evicted->vm().pgmigrate_success, 1u);
  EXPECT_EQ(evicted->vm().bh_invalidate_ipis, 0u);
}

TEST(ContigAlloc, NextReadOnEveryCpuMissesOnceAfterInvalidation) {
  const std::vector<uint32_t> cpus{1, 2, 3};
  auto with = make_cma_sim("bh_invalidate=all");
  spawn_readers(*with, cpus, {read_block(0)});
  spawn_driver(*with, PAGE_SIZE);
  with->run();
  auto without = make_cma_sim("bh_invalidate=all");
  spawn_readers(*without, cpus, {read_block(0)});
  without->run();
  // Each CPU: miss, [invalidated], miss, hit -- against miss, hit, hit without the allocation.
  EXPECT_EQ(with->vm().bh_lru_misses, 2 * cpus.size());
  EXPECT_EQ(without->vm().bh_lru_misses, cpus.size());
  EXPECT_EQ(with->vm().bh_lru_hits, cpus.size());
  const Histogram& r_with = with->stats().latency(OpKind::kFileRead);
  const Histogram& r_without = without->stats().latency(OpKind::kFileRead);
  ASSERT_EQ(r_with.count(), r_without.count());
  const uint64_t refill = static_cast<uint64_t>(
      (with->costs().find_get_page + with->costs().find_get_block_slow).count_ns());
  EXPECT_GE(r_with.sum(), r_without.sum() + cpus.size() * refill)
      << "the refill shows in read latency";
}

TEST(ContigAlloc, InFlightWriteBackHoldsTheBufferHeadUntilItCompletes) {
  auto sim = make_cma_sim("bh_invalidate=all");
  // CPU 1 dirties block 0 and fsyncs it while the allocation runs; the I/O holds a reference.
  sim->spawn_thread(1, 1,
                    std::make_unique<VectorOpSource>(std::vector<Op>{
                        Op::file_write(kFile, 0, kBlock), Op::sleep(kDriverStart - SimTime::us(10)),
                        Op::fsync(kFile)}));
  spawn_driver(*sim, PAGE_SIZE);
  sim->run();
  EXPECT_GE(sim->vm().cma_alloc_retries, 1u) << "busy while the write was in flight";
  EXPECT_GE(sim->vm().pgmigrate_fail, 1u);
  EXPECT_EQ(sim->vm().cma_alloc_success, 1u) << "the back-off outlasted the write";
  EXPECT_EQ(sim->buffers().find({kFile, 0})->b_count, 0u);
}

TEST(ContigAlloc, MigrationKeepsTheAnonPageAndNoPageLeaks) {
  auto sim = make_cma_sim("bh_invalidate=all");
  sim->spawn_thread(1, 1,
                    std::make_unique<VectorOpSource>(std::vector<Op>{
                        Op::mmap_anon(kAddr, PAGE_SIZE, PROT_READ | PROT_WRITE),
                        Op::touch(kAddr, PAGE_SIZE, /*write=*/true), Op::sleep(kPause)}));
  sim->spawn_thread(
      kDriverMm, 0,
      std::make_unique<VectorOpSource>(std::vector<Op>{Op::contig_alloc(7, PAGE_SIZE)}),
      kDriverStart);
  sim->run_until(kDriverStart - SimTime::us(1));
  Mm& mm = *sim->find_mm(1);
  ASSERT_NE(mm.anon_pages.find(kAddr), AnonRmap::kNone);
  const uint32_t f = mm.anon_pages.find(kAddr);
  const CmaArea& cma = sim->cma();
  ASSERT_EQ(cma.pfn_of_anon(f), cma.base_pfn()) << "the first movable page takes the first pfn";
  const uint64_t allocated = sim->page_alloc().allocated();
  const uint64_t flushes = sim->vm().nr_tlb_flush_calls;

  sim->run_until(kDriverStart + SimTime::us(100));
  const CmaAllocation* a = cma.find_allocation(7);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->pfn, cma.base_pfn());
  EXPECT_EQ(cma.page(a->pfn).use, PhysUse::kCma);
  // The mapping still leads to the same page (frame), now at another pfn; the pte is unchanged.
  EXPECT_EQ(mm.anon_pages.find(kAddr), f);
  EXPECT_NE(cma.pfn_of_anon(f), a->pfn);
  EXPECT_EQ(cma.page(cma.pfn_of_anon(f)).frame, f);
  const Vma* vma = mm.vmas.vma_lookup(kAddr);
  ASSERT_NE(vma, nullptr);
  const uint8_t p = vma->ptes.get(kAddr);
  EXPECT_TRUE(pte::is_mapped(p));
  EXPECT_NE(p & pte::kDirty, 0) << "the data (dirty page) went along";
  EXPECT_EQ(mm.rss_anon, 1u);
  EXPECT_EQ(sim->vm().nr_tlb_flush_calls, flushes + 1) << "the owning mm's TLB flushed once";
  EXPECT_EQ(sim->page_alloc().allocated(), allocated + 1) << "the range taken, the moved page kept";
  EXPECT_EQ(sim->vm().pgmigrate_success, 1u);
  sim->run();
}

// A page-cache page that a mapping maps (mm/filemap_fault.h) is migrated with its ptes: each
// mapping's TLB entry is flushed, and the page stays mapped and cached.
TEST(ContigAlloc, MigratingAMappedFilePageFlushesItsMappings) {
  auto sim = make_cma_sim("bh_invalidate=all");
  sim->spawn_thread(
      1, 1,
      std::make_unique<VectorOpSource>(std::vector<Op>{
          read_block(0), Op::mmap_file(kAddr, PAGE_SIZE, PROT_READ, MAP_SHARED, kFile, 0),
          Op::touch(kAddr, PAGE_SIZE, /*write=*/false), Op::sleep(kPause)}));
  spawn_driver(*sim, PAGE_SIZE, /*free_it=*/false);
  sim->run_until(kDriverStart - SimTime::us(1));
  const uint32_t f = sim->page_cache().find_get_page(kFile, 0);
  ASSERT_NE(f, kNoFrame);
  ASSERT_EQ(sim->page_cache().mapcount(f), 1u);
  ASSERT_EQ(sim->cma().page(sim->cma().base_pfn()).use, PhysUse::kFile) << "block 0 is first";
  const uint64_t flushes = sim->vm().nr_tlb_flush_calls;

  sim->run_until(kDriverStart + SimTime::us(500));
  EXPECT_EQ(sim->vm().pgmigrate_success, 1u);
  EXPECT_EQ(sim->vm().nr_tlb_flush_calls, flushes + 1) << "the mapping's TLB entry flushed";
  EXPECT_EQ(sim->page_cache().find_get_page(kFile, 0), f);
  EXPECT_EQ(sim->page_cache().mapcount(f), 1u);
  EXPECT_EQ(sim->find_mm(1)->rss_file, 1u);
  sim->run();
}

TEST(ContigAlloc, ReleaseReturnsTheRangeAndTheZonePages) {
  auto sim = make_cma_sim("bh_invalidate=cond");
  spawn_readers(*sim, {1});
  const uint64_t free_before = sim->page_alloc().nr_free_pages();
  spawn_driver(*sim, 2 * PAGE_SIZE);
  sim->run();
  EXPECT_EQ(sim->vm().cma_alloc_success, 1u);
  EXPECT_EQ(sim->cma().find_allocation(1), nullptr);
  EXPECT_EQ(sim->cma().nr_allocated(), 0u);
  // What is still allocated is the page cache's page of block 0 (mm/filemap.h); the range is back.
  EXPECT_EQ(sim->page_alloc().nr_contig_pages(), 0u);
  EXPECT_EQ(sim->page_alloc().allocated(), 1u);
  EXPECT_EQ(sim->page_alloc().nr_free_pages() + sim->page_alloc().allocated(), free_before);
  EXPECT_EQ(sim->vm().ops_failed, 0u);
  // The file page moved once and kept its buffer head (and its place in the page cache).
  EXPECT_NE(sim->cma().pfn_of_file(kFile, 0), kNoPfn);
  EXPECT_NE(sim->buffers().find({kFile, 0}), nullptr);
}

// A page-cache page that reclaim drops gives its place in the area back: a file streamed through
// a 64 MiB machine (128 MiB written) keeps no place for pages long gone, and the area holds no
// more file pages than the cache does.
TEST(ContigAlloc, DroppedFilePageLeavesTheArea) {
  auto sim = make_cma_sim("");
  std::vector<Op> ops;
  const uint64_t chunk = uint64_t{1} << 20;
  for (uint64_t off = 0; off < (uint64_t{128} << 20); off += chunk)
    ops.push_back(Op::file_write(kFile, off, chunk));
  sim->spawn_thread(1, 0, std::make_unique<VectorOpSource>(std::move(ops)));
  sim->run();
  ASSERT_GT(sim->vm().pgcache_drop, 0u) << "the writes must have pushed pages out";
  EXPECT_EQ(sim->page_cache().find_get_page(kFile, 0), kNoFrame);
  EXPECT_EQ(sim->cma().pfn_of_file(kFile, 0), kNoPfn) << "page 0 was dropped, its place freed";
  uint64_t file_pages_in_area = 0;
  for (uint64_t pfn = sim->cma().base_pfn(); pfn < sim->cma().base_pfn() + sim->cma().count();
       ++pfn)
    file_pages_in_area += sim->cma().page(pfn).use == PhysUse::kFile ? 1 : 0;
  EXPECT_GT(file_pages_in_area, 0u);
  EXPECT_LE(file_pages_in_area, sim->page_cache().nr_pages());
}

TEST(ContigAlloc, NoAreaFailsTheAllocation) {
  std::string err;
  auto sim = Simulation::create(MachineConfig{.nr_cpus = 2}, cost_profile_default(), "", &err);
  ASSERT_NE(sim, nullptr) << err;
  sim->spawn_thread(
      kDriverMm, 0,
      std::make_unique<VectorOpSource>(std::vector<Op>{Op::contig_alloc(1, PAGE_SIZE)}));
  sim->run();
  EXPECT_EQ(sim->vm().cma_alloc_fail, 1u);
  EXPECT_EQ(sim->vm().ops_failed, 1u);
}

TEST(ContigAlloc, DrainInvalidatesOnEveryLruAddDrainAndSkipsInstallsWhileDisabled) {
  auto sim = make_cma_sim("bh_invalidate=drain");
  sim->spawn_thread(1, 1,
                    std::make_unique<VectorOpSource>(std::vector<Op>{
                        read_block(3), Op::mmap_anon(kAddr, PAGE_SIZE, PROT_READ | PROT_WRITE),
                        Op::madvise(kAddr, PAGE_SIZE, MADV_DONTNEED)}));
  sim->run();
  EXPECT_TRUE(sim->buffers().lru(1).empty()) << "MADV_DONTNEED's lru_add_drain() invalidated it";
  EXPECT_EQ(sim->vm().bh_lru_invalidated, 1u);
  auto none = make_cma_sim("bh_invalidate=none");
  none->spawn_thread(1, 1,
                     std::make_unique<VectorOpSource>(std::vector<Op>{
                         read_block(3), Op::mmap_anon(kAddr, PAGE_SIZE, PROT_READ | PROT_WRITE),
                         Op::madvise(kAddr, PAGE_SIZE, MADV_DONTNEED)}));
  none->run();
  EXPECT_EQ(none->buffers().lru(1).size(), 1u);
}

TEST(ContigAlloc, SameInputsGiveIdenticalStats) {
  auto run = [] {
    auto sim = make_cma_sim("bh_invalidate=none");
    spawn_readers(*sim, {1, 2, 3}, {read_block(0), read_block(1)});
    spawn_driver(*sim, 2 * PAGE_SIZE);
    sim->run();
    return sim;
  };
  auto a = run();
  auto b = run();
  EXPECT_EQ(a->stats(), b->stats());
  EXPECT_EQ(a->now(), b->now());
}

}  // namespace
}  // namespace mmreplay::kernelsim
