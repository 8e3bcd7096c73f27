// will-it-scale's page_fault1, page_fault2 and page_fault3: one operation = one page fault.
//   page_fault1: 128 MiB anonymous private mapping (zero-fill faults)
//   page_fault2: 128 MiB private mapping of a file (each write is a copy-on-write fault)
//   page_fault3: 128 MiB shared mapping of a file (each write dirties a shared page-cache page)
// The loop itself is fault_loop.h's.

#include <memory>

#include "tools/gen/fault_loop.h"
#include "tools/gen/registry.h"

namespace mmreplay::gen {
namespace {

// MEMSIZE of will-it-scale's page_fault*.c.
constexpr const char* kWillItScaleMemSize = "128M";
// Rounds of mmap/fault/munmap per task; will-it-scale runs for a time, a trace for a count.
constexpr uint64_t kPageFaultRounds = 4;

class PageFault final : public Workload {
 public:
  PageFault(const ParamValues& values, std::string role, Backing backing) {
    loop_.role = std::move(role);
    loop_.processes = values.count("processes");
    loop_.threads = values.count("threads");
    loop_.size = values.scaled_bytes("size");
    loop_.loops = values.count("loops");
    loop_.backing = backing;
    loop_.think_ns = values.nanos("think");
  }

  Machine machine() const override { return kSeed001Machine; }
  std::vector<formats::FileInfo> files() const override {
    if (loop_.backing == Backing::kAnonymous) return {};
    return per_task_files(loop_.processes * loop_.threads, loop_.size);
  }
  Status emit(EventSink& sink) const override { return emit_fault_loop(loop_, sink); }
  TraceEstimate estimate() const override { return estimate_fault_loop(loop_); }

 private:
  FaultLoop loop_;
};

WorkloadSpec page_fault_spec(std::string name, std::string description, Backing backing) {
  std::vector<ParamSpec> params = task_mode_params(kDefaultWillItScaleTasks, 1);
  params.push_back(shared_params::size(kWillItScaleMemSize, "mapping per task"));
  params.push_back(
      shared_params::loops(kPageFaultRounds, "mmap / write every page / munmap rounds"));
  params.push_back(shared_params::scale());
  params.push_back(shared_params::think());
  std::string role = name;
  return WorkloadSpec{
      std::move(name),
      std::move(description),
      std::move(params),
      [role, backing](const ParamValues& values) {
        return std::make_unique<PageFault>(values, role, backing);
      },
  };
}

}  // namespace

WorkloadSpec page_fault1_spec() {
  return page_fault_spec("page_fault1",
                         "will-it-scale: mmap anonymous, write one byte per page, munmap; repeat",
                         Backing::kAnonymous);
}

WorkloadSpec page_fault2_spec() {
  return page_fault_spec("page_fault2",
                         "will-it-scale: the same over a private file mapping (COW faults)",
                         Backing::kPrivateFile);
}

WorkloadSpec page_fault3_spec() {
  return page_fault_spec("page_fault3",
                         "will-it-scale: the same over a shared file mapping (dirty page cache)",
                         Backing::kSharedFile);
}

}  // namespace mmreplay::gen
