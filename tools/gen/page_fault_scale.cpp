// page-fault-scale: the workload of seed 001 ("regression caused by cgroups optimization in
// 3.17-rc2", 2014): 96 processes (4 x CPUs on a 48-CPU, 32 GiB machine) each mmap a 256 MiB
// private file mapping, write-fault every page (copy-on-write), munmap, repeat. The thread
// measured faults/s with memcg on (3.16: ~11.5M/s); memcg is a replay policy, not part of the
// program, so the trace only carries the program. The loop is fault_loop.h's.

#include <memory>

#include "tools/gen/fault_loop.h"
#include "tools/gen/registry.h"

namespace mmreplay::gen {
namespace {

// "run with 4*CPUs" on the 48-CPU machine of seed 001.
constexpr uint64_t kSeed001Processes = 96;
constexpr uint64_t kPageFaultScaleRounds = 4;

class PageFaultScale final : public Workload {
 public:
  explicit PageFaultScale(const ParamValues& values) {
    loop_.role = "page-fault-scale";
    loop_.processes = values.count("processes");
    loop_.threads = 1;
    loop_.size = values.scaled_bytes("size");
    loop_.loops = values.count("loops");
    loop_.backing = Backing::kPrivateFile;
    loop_.think_ns = values.nanos("think");
  }

  Machine machine() const override { return kSeed001Machine; }
  std::vector<formats::FileInfo> files() const override {
    return per_task_files(loop_.processes, loop_.size);
  }
  Status emit(EventSink& sink) const override { return emit_fault_loop(loop_, sink); }
  TraceEstimate estimate() const override { return estimate_fault_loop(loop_); }

 private:
  FaultLoop loop_;
};

}  // namespace

WorkloadSpec page_fault_scale_spec() {
  return WorkloadSpec{
      "page-fault-scale",
      "seed 001: P processes mmap a private file, write-fault every page, munmap; repeat",
      {
          shared_params::processes(kSeed001Processes, "processes, one mm and one file each"),
          shared_params::size("256M", "private file mapping per process"),
          shared_params::loops(kPageFaultScaleRounds, "mmap / fault / munmap rounds"),
          shared_params::scale(),
          shared_params::think(),
      },
      [](const ParamValues& values) { return std::make_unique<PageFaultScale>(values); },
  };
}

}  // namespace mmreplay::gen
