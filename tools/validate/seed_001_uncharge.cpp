// seed-001-uncharge: "regression caused by cgroups optimization in 3.17-rc2" (2014).
//
// Dave Hansen's page-fault scaling test with memcg on: "3.16 settled out at about 11.5M
// faults/sec before the regression. This patch [uncharge per mmu_gather batch] gets it back up
// to about 10.5M"; Michal Hocko's reproduction: "96 processes doing mmap (256M private file,
// fault, unmap in parallel)" on 48 CPUs. The regressed 3.17-rc2 figure (uncharge per
// PAGEVEC_SIZE pages) is not in the thread, so that arm shows the model's figure only.
//
// The published figures are Dave's, so the case replays on his machine (--machine
// westmere-ex-8s: 8 sockets x 10 cores x 2 threads, res_counter lock handoffs and shared lines
// priced by socket distance) with one process per CPU, as will-it-scale's page_fault2 process
// mode runs at its top count; Michal's workload shape (a private file mapping per process,
// fault, unmap) stands in for page_fault2's. Michal's own box is preset xeon-2s-48.
//
// NUMA nodes (issue 17): a node per socket, each with its own zone->lock and its own LRU lists
// under its own lru_lock, pages node-local to the faulting CPU; the per-memcg res_counter lock
// is then the one point all 160 CPUs share. With them the regression appears (one node gave
// 0.96x: one lru_lock for 160 CPUs capped every arm alike).
//
// Magnitudes (issue 17 item 4). Two mechanisms, both where the kernel or the box has them:
//  - release_pages() takes zone->lru_lock for the LRU pages a zap frees (policy release_pages):
//    3.16 and 3.17-rc2 per PAGEVEC_SIZE pages, the fix per gather batch dropping it every
//    SWAP_CLUSTER_MAX pages. Alone it moved ci from 80.7M / 32.6M / 80.7M faults/s (3.16 /
//    pagevec / fix) to 74.7M / 33.3M / 76.1M: the ~2 us of CPU work per fault, 160 CPUs
//    apart, still ran at 7x Dave's rates.
//  - Memory bandwidth: each fault is a do_cow_fault() copying a page-cache page no cache holds
//    (160 files), so every copy reads a page from and writes one back to its node's memory. The
//    preset gives a Westmere-EX socket ~13.5 GB/s sustained (machine_presets.cpp: Xeon 7500
//    memory, STREAM 25-29 GB/s on an R810 taken as two sockets, unverified), 300 ns a page, so
//    a node's channels finish at most one copy per 600 ns: 1.67M faults/s a socket, 13.3M for
//    the box, which 20 CPUs a socket at ~2 us a fault would exceed five times over.
// With both: ci 12.9M (3.16, +12% of 11.5M), 11.2M (pagevec, 0.87x), 12.9M (fix, +23% of 10.5M);
// default 13.1M (+14%), 12.0M (0.91x), 13.1M (+25%, the edge of the goal). Both published figures
// are within 25%, and the model's 3.16 and fix stay one figure (ratio 1.0x, the thread's 0.91x
// inside the tie band below).
//
// What is still missing, with figures:
//  (1) The regression's depth. On a bandwidth-bound box the pagevec arm loses only what its
//      extra counter->lock rounds (1/32 + 1/14 a page, against 1/32 for 3.16 and 1/32 +
//      1/510 for the fix) add beyond the channels' pace: 0.87x (ci) / 0.91x (default), down from
//      0.45x without the bandwidth limit; the thread gives no figure for 3.17-rc2. 3.x spinlocks
//      were ticket locks, whose handoff grows with the spinning waiters (160 on counter->lock); the
//      model's handoffs are queued (one line per handoff). The opt-in spinlock=ticket, which
//      charges each waiter's re-read a whole line transfer (Boyd-Wickizer et al. 2012's linear
//      handoff; the per-waiter cost has no source), gives 2.8 ms counter->lock waits and collapses
//      every arm (touch rounds of 92 ms at ci): it needs a sourced per-waiter cost before it can be
//      the default.
//  (2) The bandwidth figure: the STREAM box's socket count is not confirmed (four sockets
//      would halve it, 6.7M faults/s), copy_page's destination is taken as written without a
//      read for ownership (rep movs fast strings; a read would make it 3 pages, 8.9M), and the
//      source is taken to be on the copying CPU's node.
//  (3) SMT siblings do not share a core's throughput in the model; under the bandwidth limit
//      the CPUs wait on memory, so this moves the figures little here.
//  (4) Dave's runs are taken as page_fault2's process mode (160 processes): in thread mode one
//      mm's mmap_sem is taken for write by each munmap (3.16 zaps under it, the downgrade is
//      4.20), stalling the other 159 threads' faults for the whole zap, which is not the
//      res_counter contention the thread profiles; the generator has no thread mode to show it.
//
// Both figures are "about" values and the thread calls the fix a recovery, so fault rates within
// 10% of each other count as the same. Scales shrink the mapping per process (fewer faults per
// round); the processes, the CPUs and the per-page lock traffic stay as on the machine.

#include "tools/validate/cases.h"
#include "tools/validate/extract.h"

namespace mmreplay::validate {
namespace {

constexpr double kAboutFiguresTieBand = 0.10;
constexpr uint32_t kWestmereExCpus = 160;  // preset westmere-ex-8s: "8-socket, 160-thread"
// The preset's memory (256 GiB, unverified) times the scale: 160 private 256M file mappings
// (40 GiB at full size) fit without reclaim, as on Dave's machine; the generator's memory (its
// 32 GiB for Michal's 96 processes, scaled) would reclaim and OOM at 160.
constexpr uint64_t kWestmereExMemory = uint64_t{256} << 30;

}  // namespace

ValidationCase seed_001_uncharge() {
  ValidationCase c;
  c.name = "seed-001-uncharge";
  c.seed = "001";
  c.title =
      "memcg uncharge per pagevec (3.17-rc2) vs per gather batch vs 3.16 (page-fault scaling)";
  c.workload = "page-fault-scale";
  c.machine =
      "Dave Hansen's 8-socket 160-thread Westmere-EX; 160 processes mmap a 256M private file, "
      "write-fault it, munmap";
  c.machine_preset = "westmere-ex-8s";
  c.profile = "xeon-2014";
  c.arms = {
      {"linux-3.16", "linux-3.16", {}},
      {"uncharge-pagevec", "uncharge-pagevec", {}},
      {"uncharge-gather", "uncharge-gather", {}},
  };
  c.metrics = {
      {"faults/s",
       "1/s",
       faults_per_second(),
       {11.5e6, std::nullopt, 10.5e6},
       {},
       "'3.16 settled out at about 11.5M faults/sec ... This patch gets it back up to about 10.5M'",
       kAboutFiguresTieBand},
      {"memcg counter lock contentions",
       "count",
       lock_contentions("counter->lock"),
       {std::nullopt, std::nullopt, std::nullopt},
       {},
       "none in the thread (Michal: 'the res_counter lock didn't show up in the traces much')"},
  };
  c.scales = {
      {"ci",
       {"--processes", "160", "--loops", "2", "--scale", "1/64"},
       kWestmereExCpus,
       kWestmereExMemory / 64,
       0,
       0,
       "160 processes x 4 MiB x 2 rounds"},
      {"default",
       {"--processes", "160", "--scale", "1/16"},
       kWestmereExCpus,
       kWestmereExMemory / 16,
       0,
       0,
       "160 processes x 16 MiB x 4 rounds"},
      {"full",
       {"--processes", "160"},
       kWestmereExCpus,
       kWestmereExMemory,
       0,
       0,
       "160 processes x 256 MiB x 4 rounds"},
  };
  return c;
}

}  // namespace mmreplay::validate
