// Every workload at small scale: the events per kind are what its recipe implies, process and
// thread modes give the right mm ids, and jemalloc-purge/bulk-free with and without --vector (under
// one purge rule) touch the same pages and purge the same ranges (only the grouping differs).

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gen_test_util.h"
#include "tools/gen/jemalloc_model.h"
#include "tools/gen/params.h"
#include "tools/gen/program_thread.h"

namespace mmreplay::gen {
namespace {

using formats::Event;
using formats::EventKind;
using formats::Range;
using testing::run_workload;

constexpr uint64_t kKiB = 1024;

// Every range a stream's madvise calls covered, plain and vector, in call order.
std::vector<Range> madvised_ranges(const CollectingSink& sink, uint32_t stream) {
  std::vector<Range> out;
  for (const Event& event : sink.events(stream)) {
    if (event.kind == EventKind::kMadvise) out.push_back(Range{event.addr, event.len});
    if (event.kind == EventKind::kMadviseVector) {
      for (uint32_t i = 0; i < event.range_count; ++i)
        out.push_back(sink.ranges()[event.range_begin + i]);
    }
  }
  return out;
}

std::vector<std::tuple<uint64_t, uint64_t, uint8_t>> touches(const CollectingSink& sink,
                                                             uint32_t stream) {
  std::vector<std::tuple<uint64_t, uint64_t, uint8_t>> out;
  for (const Event& event : sink.events(stream)) {
    if (event.kind == EventKind::kTouch) out.emplace_back(event.addr, event.len, event.flags);
  }
  return out;
}

TEST(GenWorkloads, MadvBombIsPMmapsAndPxLTouchesAndFrees) {
  const uint64_t p = 3, l = 4, size = 256 * kKiB;
  CollectingSink sink =
      run_workload("madv-bomb", {"--processes", "3", "--loops", "4", "--size", "256K"});
  EXPECT_EQ(sink.threads().size(), p);
  EXPECT_EQ(sink.count(EventKind::kThreadStart), p);
  EXPECT_EQ(sink.count(EventKind::kThreadExit), p);
  EXPECT_EQ(sink.count(EventKind::kMmap), p);
  EXPECT_EQ(sink.count(EventKind::kTouch), p * l);
  EXPECT_EQ(sink.count(EventKind::kMadvise), p * l);
  EXPECT_EQ(sink.total(), p * (3 + 2 * l));
  EXPECT_EQ(sink.touched_write_bytes() / kPageSize, p * l * size / kPageSize);
  std::set<uint64_t> mms;
  for (uint32_t s = 0; s < p; ++s) {
    mms.insert(sink.threads()[s].mm_id);
    for (const Event& event : sink.events(s)) {
      if (event.kind == EventKind::kMadvise) {
        EXPECT_EQ(event.arg0, formats::kMadvFree);
        EXPECT_EQ(event.len, size);
      }
      if (event.kind == EventKind::kTouch) {
        EXPECT_EQ(event.arg0, kPageSize) << "stride = page";
      }
    }
  }
  EXPECT_EQ(mms.size(), p) << "process mode: one mm per process";
}

// Each process's thread_start, by stream.
std::vector<uint64_t> start_times(const CollectingSink& sink) {
  std::vector<uint64_t> starts;
  for (uint32_t s = 0; s < sink.threads().size(); ++s) {
    for (const Event& event : sink.events(s)) {
      if (event.kind == EventKind::kThreadStart) starts.push_back(event.ts_ns);
    }
  }
  return starts;
}

TEST(GenWorkloads, MadvBombLaunchSpreadsTheStartsBySeed) {
  const std::vector<std::string> base = {"--processes", "12", "--loops", "1", "--size", "64K"};
  const std::vector<uint64_t> together = start_times(run_workload("madv-bomb", base));
  ASSERT_EQ(together.size(), 12u);
  for (uint64_t t : together) EXPECT_EQ(t, together[0]) << "no --launch: every process at once";

  auto launched = [&](const char* seed) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--launch", "5ms", "--seed", seed});
    return start_times(run_workload("madv-bomb", args));
  };
  const std::vector<uint64_t> one = launched("1");
  const std::vector<uint64_t> two = launched("2");
  ASSERT_EQ(one.size(), 12u);
  const uint64_t first = *std::min_element(one.begin(), one.end());
  EXPECT_GE(first, together[0]);
  EXPECT_LT(*std::max_element(one.begin(), one.end()) - together[0], 5'000'000u);
  EXPECT_GT(std::set<uint64_t>(one.begin(), one.end()).size(), 10u) << "instants of their own";
  EXPECT_EQ(launched("1"), one) << "a seed is one draw, every time";
  EXPECT_NE(two, one) << "another seed, another draw";
}

TEST(GenWorkloads, MadvBombScaleSmallShrinksRegionAndMachine) {
  formats::TraceMeta meta;
  CollectingSink sink = run_workload("madv-bomb", {"--scale", "small"}, &meta);
  EXPECT_EQ(sink.count(EventKind::kMadvise), 12u * 5u);
  EXPECT_EQ(sink.touched_write_bytes(), 12u * 5u * (512ull << 20) / 256);
  EXPECT_EQ(meta.recorder.cpus, 12u);
  EXPECT_EQ(meta.recorder.memory_bytes, (3ull << 30) / 256);
  EXPECT_EQ(meta.recorder.swap_bytes, (8ull << 30) / 256);
}

TEST(GenWorkloads, JemallocPurgeVectorUnderTheThresholdRuleOnlyRegroupsThePurges) {
  std::vector<std::string> base = {"--threads", "3",  "--loops", "3000",
                                   "--slots",   "64", "--seed",  "42"};
  std::vector<std::string> vec = base;
  vec.insert(vec.end(), {"--vector", "--vlen", "8", "--purge", "threshold"});
  CollectingSink plain = run_workload("jemalloc-purge", base);
  CollectingSink vector = run_workload("jemalloc-purge", vec);
  ASSERT_GT(plain.count(EventKind::kMadvise), 0u) << "the recipe must purge at this size";
  EXPECT_EQ(plain.count(EventKind::kMadviseVector), 0u);
  EXPECT_EQ(vector.count(EventKind::kMadvise), 0u);
  EXPECT_LT(vector.count(EventKind::kMadviseVector), plain.count(EventKind::kMadvise));
  EXPECT_EQ(vector.ranges_total(), plain.count(EventKind::kMadvise));
  EXPECT_EQ(vector.madvised_bytes(), plain.madvised_bytes());
  EXPECT_EQ(vector.count(EventKind::kMmap), plain.count(EventKind::kMmap));
  for (uint32_t s = 0; s < 3; ++s) {
    EXPECT_EQ(touches(vector, s), touches(plain, s)) << "stream " << s;
    std::vector<Range> a = madvised_ranges(plain, s);
    std::vector<Range> b = madvised_ranges(vector, s);
    auto by_addr = [](const Range& x, const Range& y) {
      return x.addr < y.addr || (x.addr == y.addr && x.len < y.len);
    };
    std::sort(a.begin(), a.end(), by_addr);
    std::sort(b.begin(), b.end(), by_addr);
    EXPECT_EQ(a, b) << "stream " << s;
  }
  // Each vector call holds at most vlen ranges, sorted and disjoint as madvisev() demands.
  for (uint32_t s = 0; s < 3; ++s) {
    for (const Event& event : vector.events(s)) {
      if (event.kind != EventKind::kMadviseVector) continue;
      EXPECT_EQ(event.arg0, formats::kMadvDontNeed);
      ASSERT_GE(event.range_count, 1u);
      ASSERT_LE(event.range_count, 8u);
      for (uint32_t i = 1; i < event.range_count; ++i) {
        const Range& prev = vector.ranges()[event.range_begin + i - 1];
        const Range& next = vector.ranges()[event.range_begin + i];
        EXPECT_LE(prev.addr + prev.len, next.addr);
      }
    }
  }
  // Thread mode: one mm.
  for (const auto& thread : plain.threads()) EXPECT_EQ(thread.mm_id, 1u);
}

// --vector alone is seed 002's je.patch: purge passes of at least half the dirty pages, in
// madvisev() calls of at most 32 runs (MAX_IOVEC), so far fewer calls than jemalloc 4.0 made.
TEST(GenWorkloads, JemallocPurgeVectorIsThePatchedJemalloc) {
  std::vector<std::string> base = {"--threads", "2",    "--loops", "6000",
                                   "--slots",   "1024", "--seed",  "5"};
  std::vector<std::string> vec = base;
  vec.push_back("--vector");
  CollectingSink plain = run_workload("jemalloc-purge", base);
  CollectingSink vector = run_workload("jemalloc-purge", vec);
  const uint64_t calls = vector.count(EventKind::kMadviseVector);
  ASSERT_GT(calls, 0u);
  EXPECT_EQ(vector.count(EventKind::kMadvise), 0u);
  EXPECT_GT(vector.ranges_total(), 8 * calls) << "many runs per call";
  EXPECT_LT(calls * 10, plain.count(EventKind::kMadvise)) << "a tenth of the calls or fewer";
  bool full = false;
  for (uint32_t s = 0; s < 2; ++s) {
    for (const Event& event : vector.events(s)) {
      if (event.kind != EventKind::kMadviseVector) continue;
      ASSERT_LE(event.range_count, kJePatchMaxIovec);
      full = full || event.range_count == kJePatchMaxIovec;
    }
  }
  EXPECT_TRUE(full) << "some pass fills a whole iovec";
}

TEST(GenWorkloads, BulkFreeFreesEverythingInManySmallPurges) {
  std::vector<std::string> args = {"--threads", "4", "--size", "8M", "--seed", "3"};
  CollectingSink plain = run_workload("bulk-free", args);
  args.insert(args.end(), {"--vector", "--purge", "threshold"});
  CollectingSink vector = run_workload("bulk-free", args);
  EXPECT_EQ(plain.count(EventKind::kThreadStart), 4u);
  EXPECT_GT(plain.count(EventKind::kMadvise), 4u * 10) << "many small-range madvise calls";
  EXPECT_EQ(vector.ranges_total(), plain.count(EventKind::kMadvise));
  EXPECT_LT(vector.count(EventKind::kMadviseVector), plain.count(EventKind::kMadvise));
  EXPECT_EQ(vector.madvised_bytes(), plain.madvised_bytes());
  EXPECT_GE(plain.touched_write_bytes(), 4u * (8u << 20)) << "each thread wrote its heap";
  // The free phase starts together: every thread's first madvise comes after all allocation.
  uint64_t last_alloc_touch = 0;
  uint64_t first_purge = ~0ull;
  for (uint32_t s = 0; s < 4; ++s) {
    for (const Event& event : plain.events(s)) {
      if (event.kind == EventKind::kTouch)
        last_alloc_touch = std::max(last_alloc_touch, event.ts_ns);
      if (event.kind == EventKind::kMadvise) first_purge = std::min(first_purge, event.ts_ns);
    }
  }
  EXPECT_GT(first_purge, last_alloc_touch);
}

TEST(GenWorkloads, PageFaultScaleMapsAPrivateFilePerProcess) {
  formats::TraceMeta meta;
  CollectingSink sink = run_workload("page-fault-scale",
                                     {"--processes", "4", "--loops", "3", "--size", "64K"}, &meta);
  EXPECT_EQ(sink.count(EventKind::kMmap), 12u);
  EXPECT_EQ(sink.count(EventKind::kTouch), 12u);
  EXPECT_EQ(sink.count(EventKind::kMunmap), 12u);
  EXPECT_EQ(sink.touched_write_bytes(), 12u * 64 * kKiB);
  ASSERT_EQ(meta.files.size(), 4u);
  EXPECT_EQ(meta.recorder.cpus, 48u);
  for (uint32_t s = 0; s < 4; ++s) {
    for (const Event& event : sink.events(s)) {
      if (event.kind != EventKind::kMmap) continue;
      EXPECT_EQ(event.arg1, s + 1u) << "task i maps file i+1";
      EXPECT_EQ(event.map_flags(), kMapPrivate);
    }
  }
}

TEST(GenWorkloads, PageFaultVariantsInProcessAndThreadMode) {
  struct Case {
    const char* name;
    uint32_t flags;
    bool file;
  };
  for (Case c : {Case{"page_fault1", kMapPrivate | kMapAnonymous, false},
                 Case{"page_fault2", kMapPrivate, true}, Case{"page_fault3", kMapShared, true}}) {
    formats::TraceMeta meta;
    CollectingSink sink = run_workload(
        c.name, {"--processes", "2", "--threads", "3", "--loops", "2", "--scale", "small"}, &meta);
    const uint64_t tasks = 6, size = (128ull << 20) / 256;
    EXPECT_EQ(sink.count(EventKind::kMmap), tasks * 2) << c.name;
    EXPECT_EQ(sink.count(EventKind::kMunmap), tasks * 2) << c.name;
    EXPECT_EQ(sink.touched_write_bytes(), tasks * 2 * size) << c.name;
    EXPECT_EQ(meta.files.size(), c.file ? tasks : 0u) << c.name;
    for (uint32_t s = 0; s < tasks; ++s) {
      EXPECT_EQ(sink.threads()[s].mm_id, s / 3 + 1u) << "three threads per process";
      EXPECT_EQ(sink.events(s)[1].map_flags(), c.flags) << c.name;
    }
  }
}

TEST(GenWorkloads, TlbFlushWritesAndDropsEveryPage) {
  for (const char* name : {"tlb_flush1", "tlb_flush2", "tlb_flush3"}) {
    CollectingSink sink =
        run_workload(name, {"--threads", "2", "--processes", "1", "--size", "64K", "--loops", "2"});
    const uint64_t pages = 16;
    EXPECT_EQ(sink.count(EventKind::kMmap), 2u) << name;
    EXPECT_EQ(sink.count(EventKind::kTouch), 2 * 2 * pages) << name;
    EXPECT_EQ(sink.count(EventKind::kMadvise), 2 * 2 * pages) << name;
    EXPECT_EQ(sink.madvised_bytes(), 2 * 2 * pages * kPageSize) << name;
    EXPECT_EQ(sink.threads()[0].mm_id, sink.threads()[1].mm_id) << "thread mode shares the mm";
  }
}

TEST(GenWorkloads, EbizzyMallocModePurgesEveryBufferAndMmapModeUnmaps) {
  const uint64_t threads = 2, chunks = 4, loops = 5;
  std::vector<std::string> args = {"--threads", "2",   "--chunks", "4",
                                   "--size",    "16K", "--loops",  "5"};
  CollectingSink heap = run_workload("ebizzy", args);
  EXPECT_EQ(heap.threads().size(), threads + 1) << "main + workers";
  EXPECT_EQ(heap.count(EventKind::kTouch), chunks + 3 * threads * loops);
  EXPECT_EQ(heap.count(EventKind::kMadvise), threads * loops) << "each free purges its buffer";
  EXPECT_EQ(heap.count(EventKind::kMunmap), 0u);
  args.insert(args.end(), {"--mmap", "on"});
  CollectingSink mapped = run_workload("ebizzy", args);
  EXPECT_EQ(mapped.count(EventKind::kMmap), chunks + threads * loops);
  EXPECT_EQ(mapped.count(EventKind::kMunmap), threads * loops);
  EXPECT_EQ(mapped.count(EventKind::kMadvise), 0u);
  // Workers start after main has filled the chunks.
  uint64_t main_end = heap.events(0).back().ts_ns;
  EXPECT_GE(heap.events(1).front().ts_ns, main_end);
}

TEST(GenWorkloads, MadviseVectorGroupsRangesVlenPerCall) {
  // 64K region, ranges of 4K every 8K: 8 ranges.
  CollectingSink vec = run_workload("madvise-vector", {"--size", "64K", "--vlen", "3"});
  EXPECT_EQ(vec.count(EventKind::kTouch), 1u);
  EXPECT_EQ(vec.count(EventKind::kMadviseVector), 3u);  // 3 + 3 + 2
  EXPECT_EQ(vec.ranges_total(), 8u);
  CollectingSink plain = run_workload("madvise-vector", {"--size", "64K", "--vlen", "1"});
  EXPECT_EQ(plain.count(EventKind::kMadvise), 8u);
  EXPECT_EQ(plain.count(EventKind::kMadviseVector), 0u);
  EXPECT_EQ(plain.madvised_bytes(), vec.madvised_bytes());
}

// Each thread keeps a page mapped beside its loop's regions (a native task's libraries or stack),
// so that its regions share a page table with it and munmap frees none.
TEST(GenWorkloads, MmapMunmapThreadsUseDisjointRegionsBesideAKeptPage) {
  CollectingSink sink =
      run_workload("mmap-munmap", {"--threads", "4", "--loops", "3", "--size", "1M"});
  EXPECT_EQ(sink.count(EventKind::kMmap), 4u * (3 + 1));
  EXPECT_EQ(sink.count(EventKind::kTouch), 12u);
  EXPECT_EQ(sink.count(EventKind::kMunmap), 4u * (3 + 1));
  std::set<uint64_t> addrs;
  for (uint32_t s = 0; s < 4; ++s) {
    EXPECT_EQ(sink.threads()[s].mm_id, 1u);
    std::vector<const Event*> maps;
    for (const Event& event : sink.events(s)) {
      if (event.kind == EventKind::kMmap) maps.push_back(&event);
    }
    ASSERT_EQ(maps.size(), 4u);
    const uint64_t kept = maps.front()->addr;
    EXPECT_EQ(maps.front()->len, kPageSize);
    std::set<uint64_t> own;
    for (size_t i = 1; i < maps.size(); ++i) own.insert(maps[i]->addr);
    ASSERT_EQ(own.size(), 1u) << "a thread's munmap'd region is reused by its next mmap";
    const uint64_t region = *own.begin();
    EXPECT_EQ(region + (uint64_t{1} << 20), kept) << "the region lies just below the kept page";
    EXPECT_EQ(region >> 21, kept >> 21) << "and in its PMD (2 MiB)";
    EXPECT_EQ(sink.events(s).back().kind, EventKind::kThreadExit);
    addrs.insert(own.begin(), own.end());
  }
  EXPECT_EQ(addrs.size(), 4u) << "threads of one mm never share a live region";
}

TEST(GenWorkloads, ParallelDdWritersAndMmtestsReaders) {
  formats::TraceMeta meta;
  CollectingSink seed = run_workload("parallel-dd", {"--size", "64K", "--block", "16K"}, &meta);
  EXPECT_EQ(seed.threads().size(), 3u);
  EXPECT_EQ(seed.count(EventKind::kFileWrite), 4u + 8u + 16u) << "files of size x 1, 2, 4";
  ASSERT_EQ(meta.files.size(), 3u);
  EXPECT_EQ(meta.files[2].size_bytes, 4 * 64 * kKiB);
  CollectingSink mmtests = run_workload(
      "parallel-dd",
      {"--variant", "mmtests", "--processes", "2", "--size", "64K", "--block", "16K"}, &meta);
  EXPECT_EQ(mmtests.count(EventKind::kFileWrite), 4u);
  EXPECT_EQ(mmtests.count(EventKind::kFileRead), 2u * 4u);
  EXPECT_EQ(meta.files.size(), 1u);
  // Readers start once the writer is done.
  EXPECT_GE(mmtests.events(1).front().ts_ns, mmtests.events(0).back().ts_ns);
}

TEST(GenWorkloads, CmaBhFileTrafficBesideContiguousAllocations) {
  CollectingSink sink = run_workload(
      "cma-bh", {"--threads", "2", "--loops", "50", "--cma-rate", "1000000", "--cma-hold", "1us"});
  EXPECT_EQ(sink.threads().size(), 3u) << "two workers and the device thread";
  EXPECT_EQ(sink.count(EventKind::kFileRead) + sink.count(EventKind::kFileWrite), 100u);
  EXPECT_GT(sink.count(EventKind::kContigAlloc), 0u);
  EXPECT_EQ(sink.count(EventKind::kContigAlloc), sink.count(EventKind::kContigFree));
  EXPECT_NE(sink.threads()[2].mm_id, sink.threads()[0].mm_id) << "the device is not a worker";
  CollectingSink lmbench = run_workload(
      "cma-bh", {"--threads", "2", "--loops", "50", "--lmbench", "--cma-rate", "1000"});
  EXPECT_EQ(lmbench.count(EventKind::kMmap), 2u + 100u);  // prot page + one per op
  EXPECT_EQ(lmbench.count(EventKind::kMunmap), 100u);
  EXPECT_EQ(lmbench.count(EventKind::kMprotect), 200u);
  EXPECT_EQ(lmbench.count(EventKind::kTouch), 200u);
  // Each lmbench round's file create reads the 9 metadata blocks of the shared metadata file.
  EXPECT_EQ(lmbench.count(EventKind::kFileRead) + lmbench.count(EventKind::kFileWrite), 200u);
  uint64_t creates = 0;
  for (uint32_t stream = 0; stream < 2; ++stream) {
    for (const formats::Event& e : lmbench.events(stream)) {
      creates += e.kind == EventKind::kFileRead && e.arg0 == 3 && e.len == 9 * 4096 ? 1 : 0;
    }
  }
  EXPECT_EQ(creates, 100u);
}

}  // namespace
}  // namespace mmreplay::gen
