// will-it-scale's tlb_flush1, tlb_flush2 and tlb_flush3: one operation = write a page, then
// madvise(page, 4 KiB, MADV_DONTNEED), which in thread mode flushes the TLBs of every CPU running
// the mm (the shootdown IPIs of seed 002).
//   tlb_flush1: over a 128 MiB private file mapping
//   tlb_flush2: over 1 MiB of anonymous memory
//   tlb_flush3: over a 128 MiB shared file mapping
//
// Per task: mmap once, then L passes over every page of { touch write; madvise DONTNEED }.

#include <memory>

#include "tools/gen/program_thread.h"
#include "tools/gen/registry.h"
#include "tools/gen/user_costs.h"
#include "tools/gen/will_it_scale.h"

namespace mmreplay::gen {
namespace {

constexpr uint64_t kDefaultPasses = 1;

class TlbFlush final : public Workload {
 public:
  TlbFlush(const ParamValues& values, std::string role, Backing backing)
      : role_(std::move(role)),
        backing_(backing),
        processes_(values.count("processes")),
        threads_(values.count("threads")),
        size_(values.scaled_bytes("size")),
        passes_(values.count("loops")),
        think_(values.nanos("think")) {}

  Machine machine() const override { return kSeed001Machine; }
  std::vector<formats::FileInfo> files() const override {
    if (backing_ == Backing::kAnonymous) return {};
    return per_task_files(processes_ * threads_, size_);
  }

  TraceEstimate estimate() const override {
    TraceEstimate estimate;
    estimate.threads = static_cast<long double>(processes_) * static_cast<long double>(threads_);
    long double pages = ceil_div(static_cast<long double>(size_), kPageSize);
    // start, mmap, exit, and a touch + madvise per page per pass.
    estimate.events = estimate.threads * (3 + 2 * pages * static_cast<long double>(passes_));
    estimate.bytes_per_event = kRepetitiveBytesPerEvent;
    return estimate;
  }

  Status emit(EventSink& sink) const override {
    for (const Task& task : add_tasks(sink, processes_, threads_, role_)) {
      ProgramThread thread(sink, task, think_);
      thread.start();
      uint64_t base =
          backing_ == Backing::kAnonymous
              ? thread.mmap_anon(size_)
              : thread.mmap_file(size_, task.index + 1, backing_ == Backing::kSharedFile);
      for (uint64_t pass = 0; pass < passes_ && thread.ok(); ++pass) {
        for (uint64_t page = base; page < base + size_; page += kPageSize) {
          thread.touch(page, kPageSize, /*write=*/true, user_cost::kWriteBytePerPageNs);
          thread.madvise(page, kPageSize, formats::kMadvDontNeed);
        }
      }
      thread.exit();
      if (!thread.ok()) return thread.status();
    }
    return Status::ok();
  }

 private:
  std::string role_;
  Backing backing_;
  uint64_t processes_;
  uint64_t threads_;
  uint64_t size_;
  uint64_t passes_;
  uint64_t think_;
};

WorkloadSpec tlb_flush_spec(std::string name, std::string description, Backing backing,
                            const char* default_size) {
  std::vector<ParamSpec> params = task_mode_params(kDefaultWillItScaleTasks, 1);
  params.push_back(shared_params::size(default_size, "mapping per task"));
  params.push_back(
      shared_params::loops(kDefaultPasses, "passes of write + madvise over every page"));
  params.push_back(shared_params::scale());
  params.push_back(shared_params::think());
  std::string role = name;
  return WorkloadSpec{
      std::move(name),
      std::move(description),
      std::move(params),
      [role, backing](const ParamValues& values) {
        return std::make_unique<TlbFlush>(values, role, backing);
      },
  };
}

}  // namespace

// Sizes: MEMSIZE of will-it-scale's tlb_flush1.c / tlb_flush2.c / tlb_flush3.c.
WorkloadSpec tlb_flush1_spec() {
  return tlb_flush_spec(
      "tlb_flush1", "will-it-scale: per page of a private file mapping, write + madvise DONTNEED",
      Backing::kPrivateFile, "128M");
}

WorkloadSpec tlb_flush2_spec() {
  return tlb_flush_spec(
      "tlb_flush2", "will-it-scale: per page of 1 MiB anonymous memory, write + madvise DONTNEED",
      Backing::kAnonymous, "1M");
}

WorkloadSpec tlb_flush3_spec() {
  return tlb_flush_spec(
      "tlb_flush3", "will-it-scale: per page of a shared file mapping, write + madvise DONTNEED",
      Backing::kSharedFile, "128M");
}

}  // namespace mmreplay::gen
