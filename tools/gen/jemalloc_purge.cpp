// jemalloc-purge: the first benchmark of seed 002 ("mm: add a new vector based madvise syscall",
// Shaohua Li, 2015): "32 threads do random malloc/free/realloc" through jemalloc, whose purges of
// dirty runs (madvise(MADV_DONTNEED) per run) made "each cpu get around 3000K/s TLB flush
// interrupt"; with the madvisev() patch and the thread's je.patch (--vector) each purge pass takes
// at least half the dirty pages and one call purges up to 32 runs, 140K/s.
//
// Each thread has its own arena (jemalloc gives each of 32 threads on 32 CPUs its own: narenas
// is 4 x CPUs) and a table of `slots` live objects. One operation picks a random slot:
//   empty          -> malloc(size) and write the whole object
//   full, p = R%   -> realloc(size'): in place or moved (copy); then write the grown tail
//   full, else     -> free (the arena may purge)
// Sizes are log-uniform in [min-size, max-size]. --scale multiplies the slot count, hence the
// live heap (never below kMinScaledSlots). With --vector --purge threshold the same seed touches
// the same pages and purges the same runs as without --vector; only the grouping of runs into
// calls (and so the clock) differs. --vector alone (--purge auto) is je.patch, which purges more.

#include <memory>
#include <unordered_map>
#include <vector>

#include "tools/gen/heap_thread.h"
#include "tools/gen/prng.h"
#include "tools/gen/registry.h"
#include "tools/gen/user_costs.h"

namespace mmreplay::gen {
namespace {

// --scale never shrinks the slot table below this: with fewer live objects the dirty pages of a
// thread never pass jemalloc's one-chunk purge floor (512 pages), and a small trace would hold
// no purges at all, which is what the workload is about.
constexpr uint64_t kMinScaledSlots = 64;

// Events per operation, from gen output: 2534887 events / (32 threads x 100000 operations) = 0.79
// at the defaults (a malloc's touch, a realloc's copy touches, the purges a free triggers, chunk
// mmaps); with a huge --scale nearly every operation is a malloc (touch + an occasional chunk
// mmap), about 1. The larger figure keeps the estimate on the safe side.
constexpr long double kEventsPerOp = 1.0;

struct Slot {
  uint64_t addr = 0;
  uint64_t bytes = 0;
};

class JemallocPurge final : public Workload {
 public:
  explicit JemallocPurge(const ParamValues& values)
      : threads_(values.count("threads")),
        ops_(values.count("loops")),
        slots_(std::max(
            std::min(kMinScaledSlots, values.count("slots")),
            static_cast<uint64_t>(static_cast<double>(values.count("slots")) * values.scale()))),
        min_size_(values.bytes("min-size")),
        max_size_(std::max(values.bytes("max-size"), values.bytes("min-size"))),
        realloc_percent_(values.count("realloc-pct")),
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
    // thread_start and exit, and the operations.
    estimate.events = estimate.threads * (2 + static_cast<long double>(ops_) * kEventsPerOp);
    return estimate;
  }

  Status emit(EventSink& sink) const override {
    for (const Task& task : add_tasks(sink, 1, threads_, "jemalloc-purge")) {
      ProgramThread thread(sink, task, think_);
      HeapThread heap(&thread, config_, per_call_, advice_);
      SplitMix64 rng = SplitMix64::for_stream(seed_, task.index);
      // Sparse: an operation fills at most one slot, so a thread holds at most `loops` objects
      // however many slots --scale asks for (--scale 1e6: a billion slots, 16 GiB as a vector).
      std::unordered_map<uint64_t, Slot> slots;
      thread.start();
      for (uint64_t op = 0; op < ops_ && thread.ok(); ++op)
        one_op(heap, rng, slots[rng.below(slots_)]);
      thread.exit();
      if (!thread.ok()) return thread.status();
    }
    return Status::ok();
  }

 private:
  void one_op(HeapThread& heap, SplitMix64& rng, Slot& slot) const {
    ProgramThread& thread = heap.thread();
    if (slot.addr == 0) {
      uint64_t bytes = rng.log_uniform(min_size_, max_size_);
      slot.addr = heap.malloc(bytes);
      slot.bytes = bytes;
      if (slot.addr != 0) thread.touch(slot.addr, bytes, /*write=*/true, user_cost::kWritePageNs);
      return;
    }
    if (rng.percent(realloc_percent_)) {
      uint64_t bytes = rng.log_uniform(min_size_, max_size_);
      HeapThread::Resized resized = heap.realloc(slot.addr, slot.bytes, bytes);
      if (resized.addr == 0) return;  // out of address space: the thread's status says so
      if (bytes > slot.bytes) {
        // The program fills what it grew by (a moved object's old part was copied already).
        thread.touch(resized.addr + slot.bytes, bytes - slot.bytes, true, user_cost::kWritePageNs);
      }
      slot.addr = resized.addr;
      slot.bytes = bytes;
      return;
    }
    heap.free(slot.addr, slot.bytes);
    slot = Slot{};
  }

  uint64_t threads_;
  uint64_t ops_;
  uint64_t slots_;
  uint64_t min_size_;
  uint64_t max_size_;
  uint64_t realloc_percent_;
  uint64_t per_call_;
  uint64_t advice_;
  ArenaConfig config_;
  uint64_t seed_;
  uint64_t think_;
};

}  // namespace

WorkloadSpec jemalloc_purge_spec() {
  std::vector<ParamSpec> params = {
      shared_params::threads(32, "threads sharing one mm, one arena each"),
      shared_params::loops(100000, "malloc/free/realloc operations per thread"),
      count_param("slots", 1024, "objects", "live-object table per thread (scaled by --scale)"),
      bytes_param("min-size", "4K", "smallest allocation"),
      bytes_param("max-size", "256K", "largest allocation"),
      count_param("realloc-pct", 25, "%", "share of operations on a live object that realloc", 0,
                  100),
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
      "jemalloc-purge",
      "seed 002: T threads malloc/free/realloc through a jemalloc arena model that purges dirty "
      "runs",
      std::move(params),
      [](const ParamValues& values) { return std::make_unique<JemallocPurge>(values); },
  };
}

}  // namespace mmreplay::gen
