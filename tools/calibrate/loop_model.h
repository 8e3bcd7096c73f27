// A throughput loop (throughput_loops.h) in the model: the same loop made by `gen` (page_fault1,
// page_fault2, tlb_flush2, mmap-munmap, madv-bomb) and replayed with execute_run(), or, for the
// two loops gen has no workload for (the cached read and the pipe ping-pong), built as kernelsim
// ops directly as model_fit.h's scenarios are.
//
// The prediction is the steady state: two runs of few and of more rounds per worker, and the
// difference of their makespans and IPI counts over the difference of their operations, so the
// start, the first mapping and the exits cancel (as model_fit.h's wake-up round trip does).
//
// The model runs as this machine's kernel (policy running-kernel, replay/running_kernel.h), as the
// loops' native side does. On the 6.18 guest (2026-12-06), after the fit, the two-thread
// mmap-munmap loop: 0.83x native as the model's defaults with each round freeing its page table
// (gen's loop then kept no neighbour mapping), 0.34-0.35x with either change alone, 0.86-0.90x
// with both; the other 17 loops within 15% each way. Since woken writers race for mmap_lock
// and a wake-up costs its waker the IPI (sched/core.h), the model's IPIs match the native 0.23 a
// round, and the throughput fits moved: mmap-munmap 0.98x and 1.26x, then 0.79x and 1.44x at 1
// and 2 CPUs in two full calibrations, tlb_flush2 at 2 CPUs 0.78-0.82x (issue 17).

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/trace_reader.h"
#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/policy/kernel_config.h"
#include "tools/calibrate/throughput_loops.h"

namespace mmreplay::tools::calibrate {

struct ModelPrediction {
  double ops_per_s = 0;
  double ipis_per_op = 0;  // TLB-shootdown IPIs received, summed over CPUs
};

class LoopModel {
 public:
  // Generates the loop's traces under `dir` (removed with this object) for `workers` workers on
  // a model machine of `cpus` CPUs whose remote TLB flushes are `tlb` (the default policy's
  // other knobs). Errors: a gen or trace-open failure, named.
  static Status create(const ThroughputLoop& loop, int workers, uint32_t cpus,
                       kernelsim::TlbFlushMethod tlb, const std::string& dir,
                       std::unique_ptr<LoopModel>* out);
  ~LoopModel();
  LoopModel(const LoopModel&) = delete;
  LoopModel& operator=(const LoopModel&) = delete;

  // The model's steady-state throughput and IPIs under `costs`.
  Status predict(const kernelsim::CostProfile& costs, ModelPrediction* out) const;

  const ThroughputLoop& loop() const { return loop_; }
  int workers() const { return workers_; }

 private:
  LoopModel(const ThroughputLoop& loop, int workers, uint32_t cpus, kernelsim::TlbFlushMethod tlb)
      : loop_(loop), workers_(workers), cpus_(cpus), tlb_(tlb) {}
  struct Run {
    double makespan_ns = 0;
    double ipis = 0;
  };
  Status run(size_t which, const kernelsim::CostProfile& costs, Run* out) const;

  ThroughputLoop loop_;
  int workers_;
  uint32_t cpus_;
  kernelsim::TlbFlushMethod tlb_;
  uint64_t rounds_[2] = {0, 0};  // per worker: few, more
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<formats::TraceReader>> readers_;  // empty for the op-built loops
};

}  // namespace mmreplay::tools::calibrate
