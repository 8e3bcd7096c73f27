// madvise-vector: the vector-madvise microbenchmark of seed 002's question, "how many TLB-flush
// IPIs does a vector madvise save?". One thread maps and writes `size` bytes, then drops 4 KiB
// ranges with MADV_DONTNEED, `vlen` ranges per call (vlen 1 = one plain madvise per range).
//
// The ranges start every `stride` bytes (default 8 KiB: every other page), so no two are adjacent
// and a vector call cannot be replaced by one plain madvise over their span. Per loop: touch
// write of the whole region, then ceil(size / stride) ranges in ceil(ranges / vlen) calls.

#include <memory>
#include <vector>

#include "tools/gen/program_thread.h"
#include "tools/gen/registry.h"
#include "tools/gen/user_costs.h"

namespace mmreplay::gen {
namespace {

// Ranges per call by default: eight times UIO_FASTIOV (8), enough to show the batching effect.
constexpr uint64_t kDefaultVlen = 64;

class MadviseVector final : public Workload {
 public:
  explicit MadviseVector(const ParamValues& values)
      : size_(values.scaled_bytes("size")),
        range_(values.bytes("range")),
        stride_(std::max(values.bytes("stride"), values.bytes("range"))),
        vlen_(values.count("vlen")),
        loops_(values.count("loops")),
        think_(values.nanos("think")) {}

  Machine machine() const override { return kSeed002Machine; }

  TraceEstimate estimate() const override {
    TraceEstimate estimate;
    estimate.threads = 1;
    long double ranges =
        ceil_div(static_cast<long double>(size_), static_cast<long double>(stride_));
    long double calls = vlen_ <= 1 ? ranges : ceil_div(ranges, static_cast<long double>(vlen_));
    // start, mmap, exit, and per loop a touch and the madvise calls.
    estimate.events = 3 + static_cast<long double>(loops_) * (1 + calls);
    estimate.bytes_per_event = kRepetitiveBytesPerEvent;
    return estimate;
  }

  Status emit(EventSink& sink) const override {
    Task task = add_tasks(sink, 1, 1, "madvise-vector").front();
    ProgramThread thread(sink, task, think_);
    thread.start();
    uint64_t base = thread.mmap_anon(size_);
    std::vector<formats::Range> ranges;
    for (uint64_t offset = 0; offset < size_; offset += stride_) {
      ranges.push_back(formats::Range{base + offset, std::min(range_, size_ - offset)});
    }
    for (uint64_t loop = 0; loop < loops_ && thread.ok(); ++loop) {
      thread.touch(base, size_, /*write=*/true, user_cost::kWritePageNs);
      thread.madvise_ranges(ranges, formats::kMadvDontNeed, vlen_);
    }
    thread.exit();
    return thread.status();
  }

 private:
  uint64_t size_;
  uint64_t range_;
  uint64_t stride_;
  uint64_t vlen_;
  uint64_t loops_;
  uint64_t think_;
};

}  // namespace

WorkloadSpec madvise_vector_spec() {
  return WorkloadSpec{
      "madvise-vector",
      "one thread writes a region, then MADV_DONTNEEDs 4 KiB ranges, vlen ranges per call",
      {
          shared_params::size("256M", "region mapped and written"),
          bytes_param("range", "4K", "length of each range", kPageSize),
          bytes_param("stride", "8K", "distance between range starts", kPageSize),
          shared_params::vlen(kDefaultVlen, "ranges per call (1 = plain madvise per range)"),
          shared_params::loops(1, "write + drop rounds"),
          shared_params::scale(),
          shared_params::think(),
      },
      [](const ParamValues& values) { return std::make_unique<MadviseVector>(values); },
  };
}

}  // namespace mmreplay::gen
