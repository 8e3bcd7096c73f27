// seed-002-madvisev and seed-002-bulk-free: "mm: add a new vector based madvise syscall"
// (Shaohua Li, 2015-16).
//
// Test 1: 32 threads do random malloc/free/realloc through jemalloc on 32 CPUs. Without the
// patch: real 0m18.923s, "each cpu gets around 3000K/s TLB flush interrupt"; with madvisev:
// real 0m15.026s, "around 140k/s". Test 2: 48 threads malloc a bunch of memory, then all free
// it; time of the free: 34.332 s vs 17.429 s.
//
// The vector arm runs a different program (jemalloc patched to call madvisev), so it has its
// own trace (--vector on) and the `vector` policy. Scales shorten the loops (test 1) or the heap
// (test 2); the per-second rates and ratios are steady-state figures that do not depend on length.

#include <string>

#include "tools/gen/params.h"
#include "tools/validate/cases.h"
#include "tools/validate/extract.h"

namespace mmreplay::validate {
namespace {

constexpr double kBulkFreeThreads = 48;

}  // namespace

ValidationCase seed_002_madvisev() {
  ValidationCase c;
  c.name = "seed-002-madvisev";
  c.seed = "002";
  c.title = "one madvise per range vs one madvisev per purge (jemalloc, 32 threads)";
  c.workload = "jemalloc-purge";
  c.machine = "32 CPUs; 32 threads of random malloc/free/realloc";
  c.profile = "xeon-2014";
  c.arms = {
      {"per-call", "per-call", {}},
      {"vector", "vector", {"--vector", "on"}},
  };
  c.metrics = {
      {"TLB IPIs per CPU",
       "1/s",
       per_cpu_rate("tlb_ipis_received"),
       {3000e3, 140e3},
       {},
       "'each cpu gets around 3000K/s' vs 'around 140k/s TLB flush interrupt'"},
      {"elapsed", "s", elapsed_seconds(), {18.923, 15.026}, {}, "real 0m18.923s vs 0m15.026s"},
  };
  c.scales = {
      {"ci",
       {"--threads", "32", "--loops", "400", "--scale", "small"},
       32,
       0,
       0,
       0,
       "400 operations per thread, 1/256 slot tables"},
      {"default",
       {"--threads", "32", "--loops", "5000"},
       32,
       0,
       0,
       0,
       "5,000 operations per thread (the benchmark's length is not given)"},
      {"full",
       {"--threads", "32", "--loops", "100000"},
       32,
       0,
       0,
       0,
       "100,000 operations per thread"},
  };
  return c;
}

ValidationCase seed_002_bulk_free() {
  ValidationCase c;
  c.name = "seed-002-bulk-free";
  c.seed = "002";
  c.title = "48 threads free a heap: madvise per range vs madvisev";
  c.workload = "bulk-free";
  c.machine = "48 CPUs (not given; one per thread); 48 threads";
  c.profile = "xeon-2014";
  c.arms = {
      {"per-call", "per-call", {}},
      {"vector", "vector", {"--vector", "on"}},
  };
  // The thread times the free phase alone; a run's results do not split phases, so the model's
  // figure is the madvise time per thread, which is what differs between the arms (the free()
  // calls themselves are the same user work in both).
  c.metrics = {
      {"free phase (madvise time per thread)",
       "s",
       op_time_seconds({"madvise", "madvise_vector"}, kBulkFreeThreads),
       {34.332, 17.429},
       {},
       "'Without patch: 34.332s, With patch: 17.429s'"},
  };
  c.scales = {
      {"ci",
       {"--threads", "48", "--size", "16M"},
       48,
       0,
       0,
       0,
       "16 MiB heap per thread (below that a purge pass has too few runs for a vector to batch)"},
      {"default", {"--threads", "48", "--size", "32M"}, 48, 0, 0, 0, "32 MiB heap per thread"},
      {"full", {"--threads", "48", "--size", "256M"}, 48, 0, 0, 0, "256 MiB heap per thread"},
  };
  return c;
}

}  // namespace mmreplay::validate

namespace mmreplay::validate {

namespace {

// The case asked of the per-call trace alone: its vector arm batches that trace's madvise calls
// at replay (madvise_batch=UIO_MAXIOV, as many as the generator's --vlen default) instead of
// replaying the madvisev program's own trace. A batch takes every call with only user time
// between them, so it can span two purge passes (two frees in a row): fewer, larger vector calls
// than the patched jemalloc made.
ValidationCase from_per_call_trace(ValidationCase c) {
  c.name += "-rewrite";
  c.title += ", vector batched from the per-call trace";
  for (Arm& arm : c.arms) {
    if (arm.policy == "vector") arm.policy += "+madvise_batch=" + std::to_string(gen::kUioMaxIov);
    arm.extra_params.clear();
  }
  return c;
}

}  // namespace

ValidationCase seed_002_madvisev_rewrite() {
  return from_per_call_trace(seed_002_madvisev());
}

ValidationCase seed_002_bulk_free_rewrite() {
  return from_per_call_trace(seed_002_bulk_free());
}

}  // namespace mmreplay::validate
