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
// is then the one point all 160 CPUs share. With them the regression appears: uncharge-pagevec
// gives 0.40x (ci: 32.6M vs 80.7M faults/s) and 0.43x (default: 33.7M vs 77.9M) of both 3.16
// and uncharge-gather, with 3.4x (ci) / 3.7x (default) the counter->lock contentions. (One node
// gave 0.96x / 0.99x: one lru_lock for 160 CPUs capped every arm alike.)
//
// The magnitudes are not Dave's: the model's 3.16 and fix run at about 80M faults/s, 7x the
// published 11.5M and 10.5M, so the "within 25%" goal is missed. What is missing: (1) 3.x
// spinlocks were ticket locks, whose handoff grows with the spinning waiters (20 per node's
// lru_lock and zone->lock here); the model's are queued (one line per handoff). A ticket model
// that charges each waiter's re-read a whole line transfer (Boyd-Wickizer et al. 2012's linear
// handoff) overshoots the other way: 1.64M (3.16) and 0.53M (pagevec) faults/s at ci; (2) the
// lru_lock round of release_pages() on the zap path (3.16 takes it per PAGEVEC_SIZE pages, the
// fix once per gather batch), which the model leaves out (mm/lru.h), so 3.16 and the fix give
// one figure here where the thread has 11.5M against 10.5M.
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
