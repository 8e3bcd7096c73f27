// seed-004-bh-lru and seed-004-frequent-cma: "CMA/HOTPLUG: clear buffer-head lru before page
// migration" (2014).
//
// Gioh Kim's lmbench "File & VM system latencies" on a cortex-a7 (Linux 3.10.19), run without
// CMA allocations, with invalidate_bh_lrus() in alloc_contig_range() (first line) and with
// Laura Abbott's drop of the migrated pages' buffer heads (second line): 0K create 25.1 / 24.9,
// mmap 5098 / 5059, page fault 3.45880 / 3.46380 us: "the same under 1% gap except Protection
// Fault". Minchan Kim's objection: "some of usecase might call it frequently with small request
// (ie, 8K, 16K)" -- then invalidating every CPU's bh_lru costs the rest of the system IPIs and
// bh_lru refills. That arm has no figures; the expected direction is the thread's argument.

#include "tools/validate/cases.h"
#include "tools/validate/extract.h"

namespace mmreplay::validate {
namespace {

constexpr double kLmbenchSameBand = 0.01;  // "the same under 1% gap"
constexpr double kTailPercentile = 99.9;

}  // namespace

ValidationCase seed_004_bh_lru() {
  ValidationCase c;
  c.name = "seed-004-bh-lru";
  c.seed = "004";
  c.title =
      "invalidate every bh_lru vs drop the migrated buffer heads: lmbench latencies, rare CMA";
  c.workload = "cma-bh";
  c.machine = "cortex-a7 (4 CPUs and 1 GiB assumed), Linux 3.10.19, lmbench File & VM latencies";
  c.profile = "xeon-2014";
  // The four workers are threads of one mm and contend for mmap_sem; a woken writer races for it
  // (rwsem_writer_wake=steal on 3.10), so which thread wins a release turns on nanoseconds, and
  // one draw's mmap latency moves by about 1% between arms that differ by one CMA allocation
  // (2026-12-06, ci: draws 1-4 gave 1.2%, 0.0%, 0.0% and 0.4%). At ci, the median of three.
  // Linux 3.10 had no fault-around (3.15): lmbench's page-fault walk faulted on every page, which
  // is what its 'Page Fault' figure averages.
  c.arms = {
      {"bh-invalidate-all", "bh-invalidate-all+fault_around_bytes=0", {}},
      {"bh-drop-selected", "bh-drop-selected+fault_around_bytes=0", {}},
  };
  c.metrics = {
      {"page fault",
       "us",
       op_mean_us("fault"),
       {3.45880, 3.46380},
       {},
       "lmbench 'Page Fault' 3.45880 vs 3.46380",
       kLmbenchSameBand},
      {"mmap",
       "us",
       op_mean_us("mmap"),
       {5098.0, 5059.0},
       {},
       "lmbench 'Mmap Latency' 5098.0 vs 5059.0",
       kLmbenchSameBand},
      {"file read",
       "us",
       op_mean_us("read"),
       {std::nullopt, std::nullopt},
       {},
       "lmbench file create/delete: 25.1/24.9, 19.6/19.5 (no read figure; same within 1%)",
       kLmbenchSameBand,
       0},
  };
  c.scales = {
      {"ci",
       {"--lmbench", "on", "--loops", "2000", "--cma-rate", "1"},
       4,
       0,
       0,
       0,
       "2,000 operations per worker; CMA rare (1/s)",
       3},
      {"default",
       {"--lmbench", "on", "--cma-rate", "1"},
       4,
       0,
       0,
       0,
       "10,000 operations per worker"},
      {"full",
       {"--lmbench", "on", "--loops", "100000", "--cma-rate", "1"},
       4,
       0,
       0,
       0,
       "100,000 operations per worker"},
  };
  return c;
}

ValidationCase seed_004_frequent_cma() {
  ValidationCase c;
  c.name = "seed-004-frequent-cma";
  c.seed = "004";
  c.title = "frequent small (8K) CMA allocations: what invalidating every bh_lru costs file I/O";
  c.workload = "cma-bh";
  c.machine = "4 CPUs and 1 GiB assumed; file I/O workers beside a driver allocating 8K often";
  c.profile = "xeon-2014";
  c.arms = {
      {"bh-invalidate-all", "bh-invalidate-all", {}},
      {"bh-drop-selected", "bh-drop-selected", {}},
  };
  c.metrics = {
      {"bh_lru invalidation IPIs",
       "count",
       counter("bh_invalidate_ipis"),
       {std::nullopt, std::nullopt},
       {},
       "Minchan Kim: invalidating 'every bh_lru of all cpus' on each allocation",
       std::nullopt,
       -1},
      {"bh_lru misses",
       "count",
       counter("bh_lru_misses"),
       {std::nullopt, std::nullopt},
       {},
       "'some of workloads really affects by percpu bh_lrus so it would be better to be careful to "
       "drain'",
       std::nullopt,
       -1},
      {"file read p99.9",
       "us",
       op_percentile_us("read", kTailPercentile),
       {std::nullopt, std::nullopt},
       {},
       "the refills land on the reads that follow an invalidation: the tail, not the mean",
       std::nullopt,
       -1},
  };
  // Each worker's file (32K: 8 blocks) fits its CPU's bh_lru, as the hot metadata of the thread's
  // 'some workloads' does, so an invalidation is what makes a read miss. The ci scale runs 20,000
  // operations a worker: at 10,000 the drop-selected arm's own misses (each worker's first use of
  // its blocks, and, with the scheduler's idle balancing (sched/load_balance.h), a worker pulled
  // to a CPU whose worker was blocked in its first read and back 2 ms later, meeting bh_lrus
  // filled by others: 33 misses without it, 37 with it) sat at the reads' 99.9th percentile,
  // which those few moves tipped.
  c.scales = {
      {"ci",
       {"--cma-size", "8K", "--cma-rate", "5000", "--size", "32K", "--loops", "20000"},
       4,
       0,
       0,
       0,
       "20,000 operations per worker on 32K files, an 8K allocation every 200 us"},
      {"default",
       {"--cma-size", "8K", "--cma-rate", "5000", "--size", "32K", "--loops", "50000"},
       4,
       0,
       0,
       0,
       "50,000 operations per worker on 32K files, an 8K allocation every 200 us"},
      {"full",
       {"--cma-size", "8K", "--cma-rate", "5000", "--size", "32K", "--loops", "200000"},
       4,
       0,
       0,
       0,
       "200,000 operations per worker"},
  };
  return c;
}

}  // namespace mmreplay::validate
