// bulk-free: the second benchmark of seed 002: "malloc a bunch of memory in 48 threads, then all
// threads free the memory. I measure the time of the memory free. Without patch: 34.332s, With
// patch: 17.429s".
//
// Phase 1, per thread: allocate objects of log-uniform size in [min-size, max-size] until `size`
// bytes are live, writing each. Barrier: every thread starts freeing when the slowest finished
// allocating. Phase 2: free every object in a random order; as active pages fall, the arena
// purges dirty runs again and again, so the free phase is many small-range madvise calls (or,
// with --vector, je.patch's fewer passes of at least half the dirty pages in vector calls).

#include <algorithm>
#include <memory>
#include <vector>

#include "tools/gen/heap_thread.h"
#include "tools/gen/prng.h"
#include "tools/gen/registry.h"
#include "tools/gen/user_costs.h"

namespace mmreplay::gen {
namespace {

// Events per object, from gen output at the defaults: 783182 events for 48 x 256 MiB of objects
// of 22 KiB on average (log-uniform 4K..64K) = 1.35: its touch, a share of chunk mmaps, and the
// purges and chunk munmaps of the free phase. Rounded up.
constexpr long double kEventsPerObject = 1.5;

struct Object {
  uint64_t addr = 0;
  uint64_t bytes = 0;
};

// One thread's program state across the two phases.
struct Freer {
  std::unique_ptr<ProgramThread> thread;
  std::unique_ptr<HeapThread> heap;
  SplitMix64 rng{0};
  std::vector<Object> objects;
};

class BulkFree final : public Workload {
 public:
  explicit BulkFree(const ParamValues& values)
      : threads_(values.count("threads")),
        heap_bytes_(values.scaled_bytes("size")),
        min_size_(values.bytes("min-size")),
        max_size_(std::max(values.bytes("max-size"), values.bytes("min-size"))),
        per_call_(values.flag("vector") ? values.count("vlen") : 1),
        advice_(purge_advice_from(values)),
        config_(arena_config_from(values, purge_rule_from(values))),
        seed_(values.seed()),
        think_(values.nanos("think")) {}

  Machine machine() const override { return kSeed002Machine; }
  std::string allocator() const override {
    return allocator_label(kJemallocLabel, kJemallocShippedAdvice, advice_);
  }

  TraceEstimate estimate() const override {
    TraceEstimate estimate;
    estimate.threads = static_cast<long double>(threads_);
    long double objects = ceil_div(
        static_cast<long double>(heap_bytes_),
        log_uniform_mean(static_cast<long double>(min_size_), static_cast<long double>(max_size_)));
    estimate.events = estimate.threads * (2 + objects * kEventsPerObject);
    estimate.main_param = "--size or --scale";
    return estimate;
  }

  Status emit(EventSink& sink) const override {
    std::vector<Freer> freers;
    uint64_t barrier = 0;
    for (const Task& task : add_tasks(sink, 1, threads_, "bulk-free")) {
      Freer freer;
      freer.thread = std::make_unique<ProgramThread>(sink, task, think_);
      freer.heap = std::make_unique<HeapThread>(freer.thread.get(), config_, per_call_, advice_);
      freer.rng = SplitMix64::for_stream(seed_, task.index);
      freer.thread->start();
      allocate_heap(freer);
      if (!freer.thread->ok()) return freer.thread->status();
      barrier = std::max(barrier, freer.thread->now());
      freers.push_back(std::move(freer));
    }
    for (Freer& freer : freers) {
      freer.thread->wait_until(barrier);
      shuffle(freer.objects, freer.rng);
      for (const Object& object : freer.objects) freer.heap->free(object.addr, object.bytes);
      freer.thread->exit();
      if (!freer.thread->ok()) return freer.thread->status();
    }
    return Status::ok();
  }

 private:
  void allocate_heap(Freer& freer) const {
    uint64_t live = 0;
    while (live < heap_bytes_ && freer.thread->ok()) {
      uint64_t bytes = freer.rng.log_uniform(min_size_, max_size_);
      uint64_t addr = freer.heap->malloc(bytes);
      if (addr == 0) return;
      freer.thread->touch(addr, bytes, /*write=*/true, user_cost::kWritePageNs);
      freer.objects.push_back(Object{addr, bytes});
      live += bytes;
    }
  }

  // Fisher-Yates with the workload's own generator (std::shuffle's draws differ across libraries).
  static void shuffle(std::vector<Object>& objects, SplitMix64& rng) {
    for (size_t i = objects.size(); i > 1; --i) std::swap(objects[i - 1], objects[rng.below(i)]);
  }

  uint64_t threads_;
  uint64_t heap_bytes_;
  uint64_t min_size_;
  uint64_t max_size_;
  uint64_t per_call_;
  uint64_t advice_;
  ArenaConfig config_;
  uint64_t seed_;
  uint64_t think_;
};

}  // namespace

WorkloadSpec bulk_free_spec() {
  std::vector<ParamSpec> params = {
      shared_params::threads(48, "threads sharing one mm, one arena each"),
      shared_params::size("256M", "heap each thread allocates before the free phase"),
      bytes_param("min-size", "4K", "smallest allocation"),
      bytes_param("max-size", "64K", "largest allocation"),
      shared_params::vector("purge the runs of one pass with vector madvise calls"),
      purge_vlen_param(),
      purge_rule_param(),
      advice_param(kJemallocShippedAdvice),
      shared_params::seed(),
      shared_params::scale(),
      shared_params::think(),
  };
  for (ParamSpec& spec : arena_param_specs()) params.push_back(std::move(spec));
  return WorkloadSpec{
      "bulk-free",
      "seed 002: T threads allocate a heap each, then all free it (many small purges)",
      std::move(params),
      [](const ParamValues& values) { return std::make_unique<BulkFree>(values); },
  };
}

}  // namespace mmreplay::gen
