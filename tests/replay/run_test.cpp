// End-to-end runs of generated traces through the model: results a kernel engineer can check.

#include "replay/run.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/counters.h"
#include "replay/policy_spec.h"
#include "replay/results_json.h"
#include "replay/results_table.h"
#include "tests/replay/generated_trace.h"

namespace mmreplay::replay {
namespace {

std::unique_ptr<formats::TraceReader> generate(const std::string& name,
                                               std::vector<std::string> params) {
  return testing::open_trace(testing::generate_file(name, params, name + ".mmtrace"));
}

TEST(Run, MadvBombFaultsEveryPageOfEveryLoop) {
  auto reader = generate(
      "madv-bomb", {"--processes", "2", "--size", "1M", "--loops", "3", "--advice", "dontneed"});
  ChunkCache cache(64);
  RunSpec spec;
  spec.policy_name = "default";
  RunResult r;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &r));
  // DONTNEED drops the pages, so every loop's memset faults all 256 pages again.
  EXPECT_EQ(r.counters.at("faults"), 2u * 3u * 256u);
  EXPECT_EQ(r.counters.at("madv_dontneed_pages"), 2u * 3u * 256u);
  EXPECT_EQ(r.ops.at("madvise").count(), 6u);
  EXPECT_EQ(r.ops.at("mmap").count(), 2u);
  EXPECT_GT(r.makespan_ns, 0u);
  EXPECT_EQ(r.cpus, 12u);  // the trace's machine (seed 000)
}

TEST(Run, EveryCounterOfTheListsReachesTheResultsUnderItsKey) {
  auto reader = generate("madv-bomb",
                         {"--processes", "2", "--size", "1M", "--loops", "3", "--advice", "free"});
  ChunkCache cache(64);
  RunSpec spec;
  spec.policy_name = "default";
  RunResult r;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &r));
  for (const common::CounterInfo& c : common::kVmCounterInfo) {
    EXPECT_EQ(r.counters.count(std::string(c.key)), 1u) << c.key;
  }
  for (const common::CounterInfo& c : common::kCpuCounterInfo) {
    EXPECT_EQ(r.counters.count(std::string(c.key)), 1u) << c.key;
  }
  EXPECT_EQ(r.counters.size(), common::kVmCounterCount + common::kCpuCounterCount);
  // Once-missing counters carry the model's figures: MADV_FREE moved pages to the lazyfree list
  // (counted as the per-CPU batch drains: pages freed or isolated meanwhile, or still batched at
  // the end, are not).
  EXPECT_GT(r.counters.at("pglazyfree"), 0u);
  EXPECT_LE(r.counters.at("pglazyfree"), r.counters.at("madv_lazyfree_pages"));
  // CPU counters are the totals of the per-CPU figures.
  uint64_t sent = 0, busy = 0;
  for (const CpuResult& c : r.per_cpu) {
    sent += c.ipis_sent;
    busy += c.busy_ns;
  }
  EXPECT_EQ(r.counters.at("tlb_ipis_sent"), sent);
  EXPECT_EQ(r.counters.at("busy_ns"), busy);
}

TEST(Run, CmaBhReadsAndWritesGoThroughTheBhLru) {
  // 8 blocks per worker file fit the default 16-entry bh_lru: after each CPU's first pass, hits
  // (bh_invalidate=none: the trace's contiguous allocations invalidate nothing).
  auto reader =
      generate("cma-bh", {"--threads", "2", "--loops", "200", "--size", "32K", "--io-size", "4K"});
  ChunkCache cache(64);
  RunSpec spec;
  spec.policy_name = "none";
  ASSERT_TRUE(resolve_policy("bh_invalidate=none", &spec.config));
  RunResult r;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &r));
  const uint64_t io = r.ops.at("read").count() + r.ops.at("write").count();
  EXPECT_EQ(io, 2u * 200u);
  EXPECT_GT(r.ops.at("read").count(), 0u);
  EXPECT_GT(r.ops.at("read").percentile(50), 0u);
  EXPECT_GT(r.ops.at("write").count(), 0u);
  EXPECT_GT(r.ops.at("write").percentile(50), 0u);
  // One aligned 4 KiB block per I/O: one bh_lru lookup each.
  EXPECT_EQ(r.counters.at("bh_lru_hits") + r.counters.at("bh_lru_misses"), io);
  EXPECT_GT(r.counters.at("bh_lru_hits"), 0u);
  EXPECT_LE(r.counters.at("bh_lru_misses"), 2u * 8u);
}

TEST(Run, CmaBhContigAllocationsAreReplayedUnderEachInvalidationPolicy) {
  // An allocation every 10 us beside the file I/O: dozens of cma_alloc()/cma_release().
  auto reader = generate("cma-bh", {"--threads", "3", "--loops", "300", "--size", "64K",
                                    "--cma-rate", "100000", "--cma-hold", "5us"});
  ChunkCache cache(64);
  RunResult all, selected;
  RunSpec spec;
  spec.policy_name = "bh-invalidate-all";
  // csd_ipi=always: an IPI per target, as before 4.15, so the count below is one per CPU
  // interrupted; since 4.15 (the default) a target whose queue still holds a csd gets none.
  ASSERT_TRUE(resolve_policy("bh_invalidate=all+csd_ipi=always", &spec.config));
  ASSERT_TRUE(execute_run(spec, *reader, cache, &all));
  spec.policy_name = "bh-drop-selected";
  ASSERT_TRUE(resolve_policy("bh_invalidate=selected+csd_ipi=always", &spec.config));
  ASSERT_TRUE(execute_run(spec, *reader, cache, &selected));
  for (const RunResult* r : {&all, &selected}) {
    const uint64_t allocs = r->ops.at("contig_alloc").count();
    EXPECT_GT(allocs, 2u);
    EXPECT_EQ(r->ops.at("contig_free").count(), allocs) << "every allocation is freed";
    EXPECT_EQ(r->counters.at("contig_allocs") + r->counters.at("contig_alloc_fails"), allocs);
    EXPECT_EQ(r->counters.count("skipped_contig_alloc"), 0u);
    EXPECT_EQ(r->counters.count("skipped_contig_free"), 0u);
  }
  // bh_invalidate=all interrupts the 3 other CPUs of the trace's 4 once per alloc_contig_range().
  EXPECT_GE(all.counters.at("bh_invalidate_ipis"), 3u * all.counters.at("contig_allocs"));
  EXPECT_EQ(selected.counters.at("bh_invalidate_ipis"), 0u);
  EXPECT_GE(all.counters.at("bh_lru_misses"), selected.counters.at("bh_lru_misses"));
}

TEST(Run, MadvFreeLazyKeepsPagesSoLaterLoopsDoNotFault) {
  auto reader = generate("madv-bomb",
                         {"--processes", "1", "--size", "1M", "--loops", "3", "--advice", "free"});
  ChunkCache cache(64);
  RunSpec lazy;
  lazy.policy_name = "lazy";
  ASSERT_TRUE(resolve_policy("madv_free=lazy", &lazy.config));
  RunSpec dontneed;
  dontneed.policy_name = "as-dontneed";
  ASSERT_TRUE(resolve_policy("madv_free=as-dontneed", &dontneed.config));
  RunResult a, b;
  ASSERT_TRUE(execute_run(lazy, *reader, cache, &a));
  ASSERT_TRUE(execute_run(dontneed, *reader, cache, &b));
  EXPECT_EQ(a.counters.at("faults"), 256u);       // only the first memset faults
  EXPECT_EQ(b.counters.at("faults"), 3u * 256u);  // every loop refaults
  EXPECT_EQ(a.counters.at("lazyfree_reused"), 2u * 256u);
}

TEST(Run, MemcgCountersReachTheResults) {
  // Seed 001: the same DONTNEED loop under the 3.17-rc2 uncharge and its fix.
  auto reader = generate(
      "madv-bomb", {"--processes", "1", "--size", "1M", "--loops", "3", "--advice", "dontneed"});
  ChunkCache cache(64);
  RunSpec pagevec;
  pagevec.policy_name = "uncharge-pagevec";
  ASSERT_TRUE(resolve_policy(pagevec.policy_name, &pagevec.config));
  RunSpec gather;
  gather.policy_name = "uncharge-gather";
  ASSERT_TRUE(resolve_policy(gather.policy_name, &gather.config));
  RunResult a, b;
  ASSERT_TRUE(execute_run(pagevec, *reader, cache, &a));
  ASSERT_TRUE(execute_run(gather, *reader, cache, &b));
  EXPECT_EQ(a.counters.at("memcg_charged_pages"), a.counters.at("fault_anon"));
  EXPECT_EQ(a.counters.at("memcg_counter_locks"),
            a.counters.at("memcg_counter_charges") + a.counters.at("memcg_counter_uncharges"));
  EXPECT_GT(a.counters.at("memcg_counter_uncharges"), b.counters.at("memcg_counter_uncharges"));
  EXPECT_GT(a.locks.at("counter->lock").acquisitions, b.locks.at("counter->lock").acquisitions);

  RunSpec limited;  // 512 KiB per group: the 1 MiB memset must be reclaimed from the group
  ASSERT_TRUE(resolve_policy("memcg=page_counter", &limited.config));
  limited.memcg_limit_bytes = 512 << 10;
  RunResult c;
  ASSERT_TRUE(execute_run(limited, *reader, cache, &c));
  EXPECT_GT(c.counters.at("memcg_reclaim"), 0u);
  EXPECT_GT(c.counters.at("swapouts") + c.counters.at("memcg_oom"), 0u) << "swapped out or OOM";
  EXPECT_EQ(c.counters.at("allocstalls"), 0u) << "the machine is not short of memory";
}

TEST(Run, SameSpecTwiceGivesIdenticalResults) {
  auto reader = generate("mmap-munmap", {"--threads", "4", "--loops", "20", "--size", "256K"});
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 4;
  RunResult a, b;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &a));
  ASSERT_TRUE(execute_run(spec, *reader, cache, &b));
  EXPECT_EQ(a.makespan_ns, b.makespan_ns);
  EXPECT_EQ(a.counters, b.counters);
  for (const auto& [k, h] : a.ops) EXPECT_EQ(h, b.ops.at(k)) << k;
  EXPECT_GT(a.locks.at("mmap_sem").contentions, 0u);
}

TEST(Run, BadPolicyAndProfileAreNamed) {
  auto reader = generate("madv-bomb", {"--processes", "1", "--size", "64K", "--loops", "1"});
  ChunkCache cache(8);
  RunSpec spec;
  spec.policy_name = "bogus";
  Status s = resolve_policy("no_such_knob=1", &spec.config);
  EXPECT_FALSE(s);  // a bad policy is stopped before any run (study_command, run_case)
  EXPECT_NE(s.message().find("no_such_knob"), std::string::npos) << s.message();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  RunResult r;
  spec.profile = "nope";
  s = execute_run(spec, *reader, cache, &r);
  EXPECT_NE(s.message().find("--profile nope"), std::string::npos) << s.message();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

// A one-mmap trace whose recorder says what `recorder` says of the recording machine.
std::unique_ptr<formats::TraceReader> recorded_on(const std::string& name,
                                                  const formats::RecorderInfo& recorder) {
  const std::string path = formats::testing::temp_path(name);
  formats::TraceMeta meta;
  meta.recorder = recorder;
  meta.threads = {{1, 1, "a", -1}};
  Status s;
  auto w = formats::TraceWriter::create(path, meta, formats::WriterOptions(), &s);
  EXPECT_TRUE(w) << s.message();
  if (!w) return nullptr;
  EXPECT_TRUE(w->append(0, formats::ev::mmap(100, 0x7f0000000000, 1 << 16, 3, 0x22)));
  EXPECT_TRUE(w->close());
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
  EXPECT_TRUE(reader) << s.message();
  return reader;
}

// The same, recorded on a machine with `memory_bytes` and `min_free_kbytes`.
std::unique_ptr<formats::TraceReader> recorded_with_min_free(const std::string& name,
                                                             uint64_t memory_bytes,
                                                             uint64_t min_free_kbytes) {
  formats::RecorderInfo recorder;
  recorder.memory_bytes = memory_bytes;
  recorder.min_free_kbytes = min_free_kbytes;
  return recorded_on(name, recorder);
}

// Format 1.12: a trace recorded on a machine whose vm.min_free_kbytes THP raised replays with
// those watermarks on the recorded memory; on other memory, with the boot formula's; and
// --min-free-kbytes wins over both.
TEST(Run, RecordedMinFreeKbytesSetsTheWatermarksOnTheRecordedMemory) {
  auto reader = recorded_with_min_free("min_free.mmtrace", uint64_t{8} << 30, 67584);
  ASSERT_TRUE(reader);
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 1;
  RunResult recorded;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &recorded));
  EXPECT_EQ(recorded.min_free_kbytes, 67584u);

  spec.memory_bytes = uint64_t{4} << 30;  // another machine: int_sqrt(4 GiB in KB * 16)
  RunResult other;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &other));
  EXPECT_EQ(other.min_free_kbytes, 8192u);

  spec.memory_bytes = 0;
  spec.min_free_kbytes = 1000;
  RunResult given;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &given));
  EXPECT_EQ(given.min_free_kbytes, 1000u);

  // Watermarks at or above the memory would stall every allocation: refused.
  spec.min_free_kbytes = uint64_t{8} << 20;
  RunResult refused;
  const Status s_flag = execute_run(spec, *reader, cache, &refused);
  EXPECT_EQ(s_flag.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s_flag.message().find("--min-free-kbytes 8388608"), std::string::npos)
      << s_flag.message();
}

// Format 1.13: a trace recorded with zram as swap replays with zram as its swap, unless
// --swap-device says otherwise; the recording's swap size is the run's, unless --swap 0 asks for
// none (kNoSwap).
TEST(Run, RecordedSwapDeviceIsTheRunsUnlessGiven) {
  formats::RecorderInfo recorder;
  recorder.swap_bytes = uint64_t{1} << 30;
  recorder.swap_device = "zram";
  auto reader = recorded_on("zram_recorded.mmtrace", recorder);
  ASSERT_TRUE(reader);
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 1;
  RunResult recorded;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &recorded));
  EXPECT_EQ(recorded.swap_device, kernelsim::SwapDevice::kSynchronous);
  EXPECT_EQ(recorded.swap_bytes, uint64_t{1} << 30);
  spec.swap_device = "block";
  RunResult given;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &given));
  EXPECT_EQ(given.swap_device, kernelsim::SwapDevice::kBlock);
  EXPECT_EQ(given.swap_bytes, uint64_t{1} << 30);
  spec.swap_bytes = kNoSwap;
  RunResult none;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &none));
  EXPECT_EQ(none.swap_bytes, 0u);
  EXPECT_EQ(run_to_json(0, none)["machine"]["swap_bytes"], 0u);
}

// Format 1.14: a trace recorded in a limited cgroup replays under its limit, with a memory
// controller the policy did not name (memcg=page_counter), unless --memcg-limit or the policy
// says otherwise.
TEST(Run, RecordedMemcgLimitIsTheRunsUnlessGiven) {
  formats::RecorderInfo recorder;
  recorder.memcg_limit_bytes = uint64_t{256} << 20;
  auto reader = recorded_on("memcg_recorded.mmtrace", recorder);
  ASSERT_TRUE(reader);
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 1;
  RunResult recorded;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &recorded));
  EXPECT_EQ(recorded.memcg_limit_bytes, uint64_t{256} << 20);
  EXPECT_NE(recorded.effective_policy.find("memcg=page_counter"), std::string::npos)
      << recorded.effective_policy;
  EXPECT_EQ(run_to_json(0, recorded)["machine"]["memcg_limit_bytes"], uint64_t{256} << 20);
  spec.memcg_limit_bytes = uint64_t{1} << 30;
  RunResult given;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &given));
  EXPECT_EQ(given.memcg_limit_bytes, uint64_t{1} << 30);

  // A trace without one (every trace before format 1.14) runs as it always did.
  auto plain = recorded_on("memcg_none.mmtrace", formats::RecorderInfo{});
  ASSERT_TRUE(plain);
  RunSpec none;
  none.cpus = 1;
  RunResult unlimited;
  ASSERT_TRUE(execute_run(none, *plain, cache, &unlimited));
  EXPECT_EQ(unlimited.memcg_limit_bytes, 0u);
  EXPECT_NE(unlimited.effective_policy.find("memcg=off"), std::string::npos)
      << unlimited.effective_policy;

  // A policy that names memcg=off replays the recorded trace without a limit, and says so.
  RunSpec off;
  off.cpus = 1;
  off.policy_name = "default+memcg=off";
  ASSERT_TRUE(resolve_policy("memcg=off", &off.config));
  RunResult without;
  ASSERT_TRUE(execute_run(off, *reader, cache, &without));
  EXPECT_EQ(without.memcg_limit_bytes, 0u);
}

// An OOM kill reaches the results as the kernel logs it: the victim's process id and name from the
// trace's thread table, its resident pages at the kill, the process whose allocation invoked it.
TEST(Run, OomKillsReachTheResultsAsTheKernelLogsThem) {
  auto reader = generate("madv-bomb", {"--processes", "2", "--size", "32M", "--loops", "1",
                                       "--advice", "dontneed", "--write", "page"});
  ASSERT_TRUE(reader);
  ChunkCache cache(64);
  RunSpec spec;
  spec.cpus = 2;
  spec.memory_bytes = uint64_t{48} << 20;
  spec.swap_bytes = kNoSwap;
  RunResult r;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &r));
  ASSERT_EQ(r.oom_kills.size(), 1u);
  EXPECT_EQ(r.counters.at("oom"), 1u);
  const OomKillResult& k = r.oom_kills.front();
  bool named = false;
  for (const formats::ThreadInfo& t : reader->meta().threads)
    named = named || (t.mm_id == k.pid && t.name == k.comm);
  EXPECT_TRUE(named) << "pid " << k.pid << " comm " << k.comm;
  EXPECT_FALSE(k.memcg);
  EXPECT_GT(k.anon_rss_kb, uint64_t{8} << 10) << "about half of 48 MiB each when they ran out";
  EXPECT_LE(k.anon_rss_kb, uint64_t{32} << 10);
  EXPECT_GT(k.pgtables_kb, 0u);
  EXPECT_GT(k.at_ns, 0u);
  const nlohmann::json j = run_to_json(0, r);
  ASSERT_TRUE(j.contains("oom_kills"));
  EXPECT_EQ(j["oom_kills"][0]["pid"], k.pid);
  EXPECT_EQ(j["oom_kills"][0]["constraint"], "none");
  EXPECT_EQ(j["oom_kills"][0]["anon_rss_kb"], k.anon_rss_kb);
  std::ostringstream table;
  print_comparison(table, {r}, {"default"});
  EXPECT_NE(table.str().find("out of memory: Killed process " + std::to_string(k.pid) + " (" +
                             k.comm + ") anon-rss:" + std::to_string(k.anon_rss_kb) + "kB"),
            std::string::npos)
      << table.str();

  // A run without a kill carries no key.
  RunSpec roomy = spec;
  roomy.memory_bytes = uint64_t{256} << 20;
  RunResult fits;
  ASSERT_TRUE(execute_run(roomy, *reader, cache, &fits));
  EXPECT_TRUE(fits.oom_kills.empty());
  EXPECT_FALSE(run_to_json(0, fits).contains("oom_kills"));
}

// --memcg-limit binds under any policy: one that leaves memcg off gets page_counter, as a recorded
// limit does; one that turns it off is refused rather than run without the limit it was asked.
TEST(Run, GivenMemcgLimitTurnsTheControllerOnOrIsRefused) {
  auto reader = generate(
      "madv-bomb", {"--processes", "1", "--size", "1M", "--loops", "2", "--advice", "dontneed"});
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 1;
  spec.memcg_limit_bytes = 512 << 10;
  RunResult limited;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &limited));
  EXPECT_NE(limited.effective_policy.find("memcg=page_counter"), std::string::npos)
      << limited.effective_policy;
  EXPECT_EQ(limited.memcg_limit_bytes, uint64_t{512} << 10);
  EXPECT_GT(limited.counters.at("memcg_reclaim"), 0u) << "the 1 MiB memset is over the limit";

  RunSpec off = spec;
  off.policy_name = "default+memcg=off";
  ASSERT_TRUE(resolve_policy(off.policy_name, &off.config));
  RunResult refused;
  const Status s = execute_run(off, *reader, cache, &refused);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("memcg=off"), std::string::npos) << s.message();
}

TEST(Run, ARecordedMinFreeKbytesAboveTheMemoryIsACorruptHeader) {
  // 2 GiB of a 1 GiB machine.
  auto reader =
      recorded_with_min_free("min_free_bad.mmtrace", uint64_t{1} << 30, uint64_t{2} << 20);
  ASSERT_TRUE(reader);
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 1;
  RunResult r;
  const Status bad = execute_run(spec, *reader, cache, &r);
  EXPECT_EQ(bad.code(), StatusCode::kCorruption);
  EXPECT_NE(bad.message().find("min_free_bad.mmtrace: header: min_free_kbytes 2097152"),
            std::string::npos)
      << bad.message();
}

}  // namespace
}  // namespace mmreplay::replay

namespace mmreplay::replay {
namespace {

TEST(Run, PerCpuBusyTimeAddsUpAndIdleCpusStayIdle) {
  auto reader = generate("mmap-munmap", {"--threads", "2", "--loops", "10", "--size", "128K"});
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 4;  // two threads spread over four CPUs: CPUs 2 and 3 never run a task
  RunResult r;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &r));
  ASSERT_EQ(r.per_cpu.size(), 4u);
  EXPECT_GT(r.per_cpu[0].busy_ns, 0u);
  EXPECT_GT(r.per_cpu[1].busy_ns, 0u);
  EXPECT_EQ(r.per_cpu[2].busy_ns, 0u);
  EXPECT_EQ(r.per_cpu[3].idle_ns, r.makespan_ns);
  for (const CpuResult& c : r.per_cpu) {
    EXPECT_LE(c.busy_ns, r.makespan_ns);
    EXPECT_EQ(c.busy_ns + c.idle_ns, r.makespan_ns);
  }
}

}  // namespace
}  // namespace mmreplay::replay

namespace mmreplay::replay {
namespace {

TEST(Run, AsRecordedPlacementPutsThreadsOnTheirRecordedCpus) {
  const std::string path = formats::testing::temp_path("placed.mmtrace");
  {
    formats::TraceMeta meta;
    meta.threads = {{1, 1, "a", 3}, {2, 1, "b", 6}, {3, 1, "c", -1}};  // c: unknown, spread
    Status s;
    auto w = formats::TraceWriter::create(path, meta, formats::WriterOptions(), &s);
    ASSERT_TRUE(w);
    for (uint32_t t = 0; t < 3; ++t) {
      ASSERT_TRUE(
          w->append(t, formats::ev::mmap(100, 0x7f0000000000 + (t << 24), 1 << 16, 3, 0x22)));
      ASSERT_TRUE(w->append(t, formats::ev::touch(200, 0x7f0000000000 + (t << 24), 1 << 16, true)));
    }
    ASSERT_TRUE(w->close());
  }
  Status s;
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
  ASSERT_TRUE(reader) << s.message();
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 4;
  spec.placement = Placement::kAsRecorded;
  RunResult r;
  ASSERT_TRUE(execute_run(spec, *reader, cache, &r));
  // a on CPU 3, b on CPU 6 mod 4 = 2, c where spread puts the third thread: CPU 2 as well.
  EXPECT_GT(r.per_cpu[3].busy_ns, 0u);
  EXPECT_GT(r.per_cpu[2].busy_ns, 0u);
  EXPECT_EQ(r.per_cpu[0].busy_ns, 0u);
  EXPECT_EQ(r.per_cpu[1].busy_ns, 0u);
}

}  // namespace
}  // namespace mmreplay::replay
