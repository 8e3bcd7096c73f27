// mmap-munmap: threads mmap, touch and munmap regions of a given size, in a loop: the classic
// mmap_sem write-contention case (will-it-scale mmap1/mmap2). In thread mode every mmap and
// munmap takes the shared mm's mmap_sem for write while the touches' faults take it for read.
//
// Per task, L times: mmap(size) anonymous; write one byte per page; munmap.
//
// Each task first maps one page it keeps until it exits: what a native task's mappings sit beside
// (the anonymous data of its libraries below mmap_base, a thread's stack), without which a region
// that fits in a PMD would be alone in its page table and every munmap would free that table
// (free_pgtables()), a flush that reaches lazy CPUs too (flush_tlb_info.freed_tables). The loop's
// regions land just below it, top-down, as the kernel puts a new mapping under the last, and
// merge with it (the same flags), as the native loop's one-page mappings merged with the
// anonymous mapping above them (/proc/PID/maps on 6.18, 2026-12-06; across 2,000 munmaps the
// PageTables count fell by nothing). Native 6.18, two threads mapping, writing and unmapping one
// page: 0.23 TLB IPIs a round, 72.6K rounds a second; replayed as linux-6.18 with a page alone in
// its PMD, 1 IPI and 23.4K rounds a second.

#include <memory>

#include "tools/gen/program_thread.h"
#include "tools/gen/registry.h"
#include "tools/gen/user_costs.h"
#include "tools/gen/will_it_scale.h"

namespace mmreplay::gen {
namespace {

constexpr uint64_t kMmapMunmapRounds = 1000;

class MmapMunmap final : public Workload {
 public:
  explicit MmapMunmap(const ParamValues& values)
      : processes_(values.count("processes")),
        threads_(values.count("threads")),
        size_(values.scaled_bytes("size")),
        loops_(values.count("loops")),
        think_(values.nanos("think")) {}

  Machine machine() const override { return kSeed001Machine; }

  TraceEstimate estimate() const override {
    TraceEstimate estimate;
    estimate.threads = static_cast<long double>(processes_) * static_cast<long double>(threads_);
    // start, the neighbour's mmap and munmap, exit, and mmap + touch + munmap per loop.
    estimate.events = estimate.threads * (4 + 3 * static_cast<long double>(loops_));
    estimate.bytes_per_event = kRepetitiveBytesPerEvent;
    return estimate;
  }

  Status emit(EventSink& sink) const override {
    for (const Task& task : add_tasks(sink, processes_, threads_, "mmap-munmap")) {
      ProgramThread thread(sink, task, think_);
      thread.start();
      const uint64_t neighbour = thread.mmap_anon(kPageSize);
      for (uint64_t i = 0; i < loops_ && thread.ok(); ++i) {
        uint64_t addr = thread.mmap_anon(size_);
        thread.touch(addr, size_, /*write=*/true, user_cost::kWriteBytePerPageNs);
        thread.munmap(addr, size_);
      }
      if (thread.ok()) thread.munmap(neighbour, kPageSize);
      thread.exit();
      if (!thread.ok()) return thread.status();
    }
    return Status::ok();
  }

 private:
  uint64_t processes_;
  uint64_t threads_;
  uint64_t size_;
  uint64_t loops_;
  uint64_t think_;
};

}  // namespace

WorkloadSpec mmap_munmap_spec() {
  // Thread mode by default: the contention is on one shared mmap_sem.
  std::vector<ParamSpec> params = task_mode_params(1, kDefaultWillItScaleTasks);
  params.push_back(shared_params::size("1M", "region per mmap"));
  params.push_back(
      shared_params::loops(kMmapMunmapRounds, "mmap / touch / munmap rounds per task"));
  params.push_back(shared_params::scale());
  params.push_back(shared_params::think());
  return WorkloadSpec{
      "mmap-munmap",
      "threads mmap, touch and munmap regions in a loop (mmap_sem write contention)",
      std::move(params),
      [](const ParamValues& values) { return std::make_unique<MmapMunmap>(values); },
  };
}

}  // namespace mmreplay::gen
