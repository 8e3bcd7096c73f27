// Workload: one recipe of `trace-replay gen`, and the spec the registry lists it by.
//
// Lifecycle: the gen command parses parameters against WorkloadSpec::params, builds the workload
// with make(), asks it for the machine it was meant for and the files it uses (both go into the
// trace header, which must be complete before the first event), asks how big the trace will be
// (estimate(), which gen checks against --max-bytes), then calls emit() once.

#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/trace_meta.h"
#include "tools/gen/event_sink.h"
#include "tools/gen/params.h"
#include "tools/gen/size_estimate.h"

namespace mmreplay::gen {

// The machine a workload is meant for, at full scale. The header records it (RecorderInfo) with
// memory and swap multiplied by --scale, so a shrunken trace keeps the seed's memory pressure.
struct Machine {
  uint32_t cpus = 0;
  uint64_t memory_bytes = 0;
  uint64_t swap_bytes = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual Machine machine() const = 0;
  // The files its file events and file mappings refer to (ids 1, 2, ...).
  virtual std::vector<formats::FileInfo> files() const { return {}; }
  // The user-space allocator the workload stands for, its version and purge advice, for the
  // header (TraceMeta::allocator, format 1.5); "" for workloads without an allocator model.
  virtual std::string allocator() const { return ""; }
  // Adds the threads and appends every event. Returns the first error of the sink.
  virtual Status emit(EventSink& sink) const = 0;
  // The threads and events emit() will write, counted from the parameters without generating:
  // cheap, and finite for any parameters (long double, never wrapping).
  virtual TraceEstimate estimate() const = 0;
};

struct WorkloadSpec {
  std::string name;         // as typed after `gen`: "madv-bomb", "page_fault1"
  std::string description;  // one line for `gen --list`
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Workload>(const ParamValues&)> make;
};

// Sizes used in machine descriptions.
inline constexpr uint64_t kGiB = 1ull << 30;
inline constexpr uint64_t kMiB = 1ull << 20;

// Seed 002's machine, for its four workloads (jemalloc-purge, madvise-vector, bulk-free, ebizzy):
// 32 CPUs ("CPU count? ... 32."). Memory and swap are not given; 64 GiB and no swap keep the
// benchmarks free of reclaim, as the thread's figures suggest.
inline constexpr Machine kSeed002Machine{32, 64 * kGiB, 0};

}  // namespace mmreplay::gen
