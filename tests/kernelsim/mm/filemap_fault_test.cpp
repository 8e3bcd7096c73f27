// Faults on file mappings through the page cache (mm/filemap_fault.h): major faults and mmap
// read-around on a cold file, warm files, the mapcount of mapped pages across munmap and fork,
// a shared mapping's writes dirtying pages, and reclaim unmapping mapped pages.

#include "kernelsim/mm/filemap_fault.h"

#include <gtest/gtest.h>

#include "kernelsim/fs/file.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/mm_types.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::run_then_look;
using testing::sim_with_file;
using testing::thread;

using testing::kFile;
using testing::kMiB;
using testing::pte_at;

uint32_t mapcount_of_page(const Simulation& sim, uint64_t index) {
  const uint32_t f = sim.page_cache().find_get_page(kFile, index);
  return f == kNoFrame ? 0 : sim.page_cache().mapcount(f);
}

// Each read fault maps its own page only (fault_around_bytes=0, as before 3.15), so every page of
// the walk faults and the read-around windows show one by one.
constexpr const char* kNoFaultAround = "fault_around_bytes=0";

TEST(FilemapFaultTest, ColdFileReadsAroundTheFirstMissThenAheadOfTheFaults) {
  auto sim = sim_with_file(kFile, /*warm=*/false, 256, 1, kNoFaultAround);
  run_then_look(*sim, {Op::mmap_file(kBase, 256 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
                       Op::touch(kBase, 64 * kPage, false)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.fault_file, 64u);
  EXPECT_EQ(vm.pgmajfault, 1u) << "only the first fault waits for a read";
  EXPECT_EQ(vm.fault_file_major, 1u);
  // Read-around of page 0: pages 0-31, page 24 marked. The faults at 24 and 32 each read the
  // next 32 pages without waiting (do_async_mmap_readahead()).
  EXPECT_EQ(vm.ra_async, 2u);
  EXPECT_EQ(vm.pgcache_miss, 96u);
  EXPECT_EQ(sim->page_cache().nr_pages(), 96u);
  EXPECT_EQ(sim->page_cache().nr_mapped(), 64u);
  EXPECT_EQ(sim->find_mm(1)->rss_file, 64u);
  EXPECT_EQ(mapcount_of_page(*sim, 63), 1u);
  EXPECT_EQ(mapcount_of_page(*sim, 64), 0u) << "read ahead, not mapped";
}

// do_fault_around() (3.15+): a read fault first maps the cached, uptodate pages of its aligned
// 16-page window, its own among them, so a walk faults once a window. The read-around windows are
// read as without it: the first fault misses and waits, and a window's readahead mark (page 24,
// then 56) is never mapped by fault-around, so its fault starts the next window.
TEST(FilemapFaultTest, FaultAroundMapsTheCachedWindowAndLeavesTheReadaheadMarkToItsFault) {
  auto sim = sim_with_file(kFile, /*warm=*/false, 256);
  run_then_look(*sim, {Op::mmap_file(kBase, 256 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
                       Op::touch(kBase, 64 * kPage, false)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_LT(vm.fault_file, 64u / 4) << "one fault a window, and the marks'";
  EXPECT_EQ(vm.fault_file + vm.fault_around_pages, 64u) << "every page mapped once";
  EXPECT_EQ(vm.pgmajfault, 1u);
  EXPECT_EQ(vm.ra_async, 2u) << "the marks at 24 and 56 still start the next windows";
  EXPECT_EQ(vm.pgcache_miss, 96u);
  EXPECT_EQ(sim->page_cache().nr_mapped(), 64u);
  EXPECT_EQ(sim->find_mm(1)->rss_file, 64u);
  EXPECT_EQ(mapcount_of_page(*sim, 63), 1u);
  EXPECT_EQ(mapcount_of_page(*sim, 64), 0u) << "past the walk's last window";

  // The window stays inside the VMA: a 3-page mapping of a warm file maps 3 pages on one fault.
  auto small = sim_with_file(kFile, /*warm=*/true, 256);
  run_then_look(*small, {Op::mmap_file(kBase + kPage, 3 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
                         Op::touch(kBase + 2 * kPage, kPage, false)});
  EXPECT_EQ(small->stats().vm.fault_file, 1u);
  EXPECT_EQ(small->stats().vm.fault_around_pages, 2u);
  EXPECT_EQ(small->find_mm(1)->rss_file, 3u);
  EXPECT_EQ(small->page_cache().nr_pages(), 3u) << "only the VMA's pages got frames";
}

TEST(FilemapFaultTest, WarmFilePagesGetFramesOnTheirFaultWithoutARead) {
  auto sim = sim_with_file(kFile, /*warm=*/true, 256);
  run_then_look(*sim, {Op::mmap_file(kBase, 256 * kPage, PROT_READ, MAP_PRIVATE, kFile, 0),
                       Op::touch(kBase, 16 * kPage, false)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.fault_file, 1u) << "fault-around maps the other 15 of the window";
  EXPECT_EQ(vm.fault_around_pages, 15u);
  EXPECT_EQ(vm.pgmajfault, 0u);
  EXPECT_EQ(vm.pgcache_miss, 0u);
  EXPECT_EQ(vm.pgcache_warm, 16u);
  EXPECT_EQ(sim->page_cache().nr_pages(), 16u) << "only the pages faulted hold frames";
  EXPECT_EQ(sim->page_cache().nr_mapped(), 16u);
}

TEST(FilemapFaultTest, MunmapUnmapsThePagesAndLeavesThemCached) {
  auto sim = sim_with_file(kFile, /*warm=*/false, 256);
  run_then_look(*sim,
                {Op::mmap_file(kBase, 8 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
                 Op::touch(kBase, 8 * kPage, false), Op::munmap(kBase, 8 * kPage),
                 Op::mmap_file(kBase + 64 * kPage, 8 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
                 Op::touch(kBase + 64 * kPage, 8 * kPage, false)});
  const VmCounters& vm = sim->stats().vm;
  // The first mapping: the miss at 0, then one fault maps 1-7 (fault-around); the second mapping
  // finds all 8 cached and maps them on its first fault.
  EXPECT_EQ(vm.fault_file, 3u);
  EXPECT_EQ(vm.fault_file + vm.fault_around_pages, 16u);
  EXPECT_EQ(vm.pgmajfault, 1u) << "the second mapping finds the pages the first one read";
  EXPECT_EQ(sim->page_cache().nr_pages(), 32u);
  EXPECT_EQ(sim->page_cache().nr_mapped(), 8u);
  EXPECT_EQ(sim->find_mm(1)->rss_file, 8u);
  EXPECT_EQ(mapcount_of_page(*sim, 0), 1u);
}

TEST(FilemapFaultTest, SharedWritesDirtyPagesAndFsyncMakesTheNextWriteFault) {
  auto sim = sim_with_file(kFile, /*warm=*/true, 64);
  run_then_look(*sim,
                {Op::mmap_file(kBase, 4 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, kFile, 0),
                 Op::touch(kBase, 4 * kPage, false), Op::touch(kBase, 4 * kPage, true)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.fault_file, 1u) << "the read maps all four (fault-around)";
  EXPECT_EQ(vm.fault_spurious, 4u) << "a write through a clean shared pte faults once";
  EXPECT_EQ(sim->page_cache().nr_dirty(), 4u);
  EXPECT_TRUE(pte_at(*sim, kBase) & pte::kDirty);

  auto again = sim_with_file(kFile, /*warm=*/true, 64);
  run_then_look(
      *again,
      {Op::mmap_file(kBase, 4 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, kFile, 0),
       Op::touch(kBase, 4 * kPage, true), Op::fsync(kFile), Op::touch(kBase, 4 * kPage, true)});
  const VmCounters& vm2 = again->stats().vm;
  EXPECT_EQ(vm2.fault_file, 4u) << "write faults map the pages dirty";
  EXPECT_EQ(vm2.fault_spurious, 4u) << "fsync's page_mkclean() write-protected them";
  EXPECT_EQ(again->page_cache().nr_dirty(), 4u) << "dirty again after the second writes";
}

TEST(FilemapFaultTest, UnmapOfADirtyPteDirtiesThePage) {
  auto sim = sim_with_file(kFile, /*warm=*/true, 64);
  run_then_look(
      *sim, {Op::mmap_file(kBase, 4 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, kFile, 0),
             Op::touch(kBase, 4 * kPage, true), Op::fsync(kFile), Op::munmap(kBase, 4 * kPage)});
  EXPECT_EQ(sim->page_cache().nr_dirty(), 0u) << "fsync cleaned the pages and their ptes";
  EXPECT_EQ(sim->page_cache().nr_mapped(), 0u);
}

// A private mapping: fork copies its ptes (a shared one's the child faults in: vma_needs_copy()).
TEST(FilemapFaultTest, ForkedChildMapsTheSamePagesUntilItExits) {
  constexpr uint32_t kChild = 2;
  auto sim = sim_with_file(kFile, /*warm=*/true, 64, 2);
  thread(*sim, 1, 0,
         {Op::mmap_file(kBase, 4 * kPage, PROT_READ, MAP_PRIVATE, kFile, 0),
          Op::touch(kBase, 4 * kPage, false), Op::sleep(SimTime::ms(10))});
  thread(*sim, kChild, 1, {Op::mm_create(kChild, 1), Op::sleep(SimTime::ms(1))}, SimTime::us(100));
  sim->run_until(SimTime::us(500));
  EXPECT_EQ(mapcount_of_page(*sim, 0), 2u) << "fork copied the pte: both map the page";
  EXPECT_EQ(sim->find_mm(kChild)->rss_file, 4u);
  sim->run_until(SimTime::ms(5));
  EXPECT_EQ(mapcount_of_page(*sim, 0), 1u) << "the child's exit unmapped its copy";
  EXPECT_EQ(sim->page_cache().nr_mapped(), 4u);
}

TEST(FilemapFaultTest, ManyMissesWithoutHitsStopReadAround) {
  auto sim = sim_with_file(kFile, /*warm=*/false, 64 * 1024);
  constexpr uint64_t kStride = 64;  // each fault lands outside the last window
  constexpr uint64_t kFaults = 150;
  run_then_look(*sim, {Op::mmap_file(kBase, 64 * 1024 * kPage, PROT_READ, MAP_SHARED, kFile, 0),
                       Op::touch(kBase, kFaults * kStride * kPage, false, kStride * kPage)});
  const VmCounters& vm = sim->stats().vm;
  EXPECT_EQ(vm.pgmajfault, kFaults);
  // MMAP_LOTSAMISS (100) windows of 32 pages, then each miss reads its page alone.
  EXPECT_EQ(vm.pgcache_miss, MMAP_LOTSAMISS * 32 + (kFaults - MMAP_LOTSAMISS));
}

// A 32 MiB cold file read through a mapping one fault every 16 pages, as a kernel with
// fault-around (do_fault_around(), 64 KiB) faults it, on a device with `read_ahead_kb`
// (FileSpec: -1 leaves the knob's 128 KiB).
std::unique_ptr<Simulation> strided_read_on_device(int32_t read_ahead_kb) {
  constexpr uint64_t kPages = 8192;
  constexpr uint64_t kStride = 16;
  auto sim = make_sim(1);
  FileSpec spec{FileType::kRegular, /*cached_at_start=*/false, kPages * kPage};
  spec.read_ahead_kb = read_ahead_kb;
  sim->files().set(kFile, spec);
  run_then_look(*sim, {Op::mmap_file(kBase, kPages * kPage, PROT_READ, MAP_PRIVATE, kFile, 0),
                       Op::touch(kBase, kPages * kPage, false, kStride * kPage)});
  EXPECT_EQ(sim->stats().vm.fault_file, kPages / kStride);
  return sim;
}

// file_ra_state_init(): a file's readahead window is its device's (bdi->ra_pages). At 8 MiB, as
// a virtio disk here has it, the first fault reads 2,048 pages around itself and each window's
// marked page starts the next one, so one fault of 512 waits for the device; at the kernel's
// default 128 KiB every fault past the first window misses the 32 pages read around the last.
TEST(FilemapFaultTest, ReadAroundUsesTheFilesDeviceWindow) {
  const auto fast = strided_read_on_device(8192);
  EXPECT_EQ(fast->stats().vm.pgmajfault, 1u);
  // Windows of 2,048 pages from 0: marks at 1536, then 2048, 4096 and 6144 (the last finds the
  // file's end).
  EXPECT_EQ(fast->stats().vm.ra_async, 4u);
  EXPECT_EQ(fast->stats().vm.pgcache_miss, 8192u);

  const auto knob = strided_read_on_device(-1);
  // Page 16 is the one hit: the window around page 0 reaches page 31 and every later window
  // (centred on its miss) ends before the next fault's page.
  EXPECT_EQ(knob->stats().vm.pgmajfault, 511u);
  EXPECT_EQ(knob->stats().vm.ra_async, 0u);
}

// With a device request cost, the window's size is what it saves: a 2,048-page window pays one
// request per 2,048 pages where the default window pays one per miss (queue_device_read()).
TEST(FilemapFaultTest, ALargerWindowSavesDeviceRequests) {
  CostProfile costs = cost_profile_default();
  costs.page_cache_read_request = SimTime::us(100);
  costs.page_cache_miss_read = SimTime::us(1);
  auto makespan = [&costs](int32_t read_ahead_kb) {
    constexpr uint64_t kPages = 8192;
    auto sim = make_sim(1, "", costs);
    FileSpec spec{FileType::kRegular, /*cached_at_start=*/false, kPages * kPage};
    spec.read_ahead_kb = read_ahead_kb;
    sim->files().set(kFile, spec);
    thread(*sim, 1, 0,
           {Op::mmap_file(kBase, kPages * kPage, PROT_READ, MAP_PRIVATE, kFile, 0),
            Op::touch(kBase, kPages * kPage, false, 16 * kPage)});
    sim->run();
    return std::pair{sim->now(), sim->stats().vm.pgmajfault};
  };
  const auto [fast, fast_majors] = makespan(8192);
  const auto [slow, slow_majors] = makespan(-1);
  EXPECT_EQ(fast_majors, 1u);
  EXPECT_EQ(slow_majors, 511u);
  // 511 waits of at least a request each (54.8 ms), against 4 requests and 8,192 pages read
  // ahead of the faults (9.2 ms).
  EXPECT_GT(slow, SimTime::us(100) * 511);
  EXPECT_LT(fast, SimTime::us(100) * 4 + SimTime::us(1) * 8192 + SimTime::ms(2));
  EXPECT_GT(slow.count_ns(), 5 * fast.count_ns());
}

constexpr uint64_t kAnon = 0x40000000;  // the pressure's mapping

// 64 MiB, no swap, 2 CPUs (the thread on CPU 0, kswapd on CPU 1): `prot` maps a 32 MiB cold
// file, it is read once, then 40 MiB of anonymous writes that only the file's pages can make
// room for, then `after`.
std::unique_ptr<Simulation> read_file_then_pressure(uint32_t prot, std::vector<Op> after = {}) {
  MachineConfig m;
  m.nr_cpus = 2;
  m.memory_bytes = 64 * kMiB;
  m.swap_bytes = 0;
  std::string error;
  auto sim = Simulation::create(m, cost_profile_default(), "", &error);
  EXPECT_NE(sim, nullptr) << error;
  sim->files().set(kFile, FileSpec{FileType::kRegular, /*cached_at_start=*/false, 32 * kMiB});
  std::vector<Op> ops = {Op::mmap_file(kBase, 32 * kMiB, prot, MAP_PRIVATE, kFile, 0),
                         Op::touch(kBase, 32 * kMiB, false),
                         Op::mmap_anon(kAnon, 40 * kMiB, PROT_READ | PROT_WRITE),
                         Op::touch(kAnon, 40 * kMiB, true)};
  ops.insert(ops.end(), after.begin(), after.end());
  run_then_look(*sim, std::move(ops));
  return sim;
}

// page_check_references(): a mapped file page referenced by one pte gets one more pass on the
// inactive list (PAGEREF_KEEP) and, untouched since, is reclaimed; an executable mapping's page
// is activated instead.
TEST(FilemapFaultTest, AMappedPageReferencedOnceIsKeptOneMorePassUnlessExecutable) {
  const VmCounters data = read_file_then_pressure(PROT_READ)->stats().vm;
  EXPECT_EQ(data.fault_oom, 0u);
  EXPECT_GT(data.pgcache_unmapped, 0u);
  EXPECT_EQ(data.pgactivate, 0u) << "no swap: only file pages are scanned, and none is activated";
  const VmCounters text = read_file_then_pressure(PROT_READ | PROT_EXEC)->stats().vm;
  EXPECT_EQ(text.fault_oom, 0u);
  EXPECT_GT(text.pgactivate, 0u) << "VM_EXEC: referenced text is activated";
}

TEST(FilemapFaultTest, ReclaimUnmapsMappedFilePagesAndTheyFaultBackIn) {
  constexpr uint64_t kFilePages = 32 * kMiB / kPage;
  auto sim = read_file_then_pressure(PROT_READ, {Op::touch(kBase, 32 * kMiB, false)});
  ASSERT_NE(sim, nullptr);
  const VmCounters& vm = sim->stats().vm;
  const Mm& mm = *sim->find_mm(1);
  EXPECT_EQ(vm.fault_oom, 0u);
  EXPECT_GT(vm.pgcache_unmapped, 0u) << "no swap: only the file pages could go";
  EXPECT_GT(vm.fault_file_major, 1u) << "the second pass re-read what reclaim dropped";
  // The second pass maps again the pages reclaim unmapped, by its faults and their fault-around
  // (and reclaim goes on unmapping pages of it: 24 MiB are left for the 32 MiB file).
  const uint64_t maps = vm.fault_file + vm.fault_around_pages;
  EXPECT_GT(maps, kFilePages);
  EXPECT_LE(maps - kFilePages, vm.pgcache_unmapped);
  // Every mapped pte's page is in the cache and counts it (PageCache invariant (3)).
  uint64_t mapped = 0;
  for (uint64_t i = 0; i < kFilePages; ++i) {
    if (!pte::is_mapped(pte_at(*sim, kBase + i * kPage))) continue;
    ++mapped;
    EXPECT_EQ(mapcount_of_page(*sim, i), 1u) << "page " << i;
  }
  EXPECT_EQ(mapped, mm.rss_file);
  EXPECT_EQ(sim->page_cache().nr_mapped(), mm.rss_file);
}

}  // namespace
}  // namespace mmreplay::kernelsim
