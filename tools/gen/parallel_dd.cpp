// parallel-dd: the page-cache streaming workloads of seed 003 ("Add predictive memory reclamation
// and compaction", 2019), which counted allocation stalls:
//   --variant seed003 (default): "three concurrent dd processes writing large amounts of data
//     (66 GB, 131 GB and 262 GB) to three different SSDs". Writer i writes its own file of
//     size x 2^i (66, 132, 264 GiB at full scale; the thread's figures, rounded to doublings).
//   --variant mmtests: mmtests' parallel dd, as read here: one dd writes a file of `size`, then
//     P dd processes read the whole file concurrently (N readers/writers of one file).
// Each dd maps its block buffer once (malloc of a large block is an mmap in glibc), fills it,
// then issues one write(2) or read(2) per block. What /dev/zero and /dev/null cost is user time
// here (user_costs.h); the page cache, dirty throttling and reclaim are the model's.

#include <algorithm>
#include <cmath>
#include <memory>

#include "tools/gen/program_thread.h"
#include "tools/gen/registry.h"
#include "tools/gen/user_costs.h"

namespace mmreplay::gen {
namespace {

// Seed 003 names no machine; a 2019 server with a few SSDs is assumed: 16 CPUs, 32 GiB, no swap.
// The file sizes (66 GB and up) dwarf its memory, which is what drives reclaim.
constexpr Machine kAssumedSeed003Machine{16, 32 * kGiB, 0};
constexpr uint64_t kSeed003Writers = 3;
// Compressed bytes per event: `gen parallel-dd` (3 writers, 66G/132G/264G in 1M blocks) is
// 485579 bytes for 473100 events, 1.03 per event; rounded up.
constexpr double kDdBytesPerEvent = 1.2;

class ParallelDd final : public Workload {
 public:
  explicit ParallelDd(const ParamValues& values)
      : mmtests_(values.choice("variant") == "mmtests"),
        processes_(values.count("processes")),
        size_(values.scaled_bytes("size")),
        block_(values.bytes("block")),
        think_(values.nanos("think")) {}

  Machine machine() const override { return kAssumedSeed003Machine; }

  TraceEstimate estimate() const override {
    TraceEstimate estimate;
    long double block = static_cast<long double>(block_);
    // A dd: start, buffer mmap and touch, exit, and a read or write per block.
    auto dd_events = [block](long double bytes) {
      return 4 + ceil_div(bytes, std::min(block, bytes));
    };
    long double size = static_cast<long double>(size_);
    long double processes = static_cast<long double>(processes_);
    if (mmtests_) {
      estimate.threads = processes + 1;
      estimate.events = estimate.threads * dd_events(size);
    } else {
      // Writer i writes size x 2^i.
      estimate.threads = processes;
      for (uint64_t i = 0; i < processes_; ++i) estimate.events += dd_events(std::ldexp(size, i));
    }
    estimate.bytes_per_event = kDdBytesPerEvent;
    estimate.main_param = "--size or --scale";
    return estimate;
  }

  std::vector<formats::FileInfo> files() const override {
    std::vector<formats::FileInfo> files;
    uint64_t count = mmtests_ ? 1 : processes_;
    for (uint64_t i = 0; i < count; ++i) {
      formats::FileInfo file;
      file.id = i + 1;
      file.path = "/mnt/ssd" + std::to_string(i) + "/dd.out";
      file.size_bytes = file_size(i);
      files.push_back(std::move(file));
    }
    return files;
  }

  Status emit(EventSink& sink) const override {
    if (!mmtests_) {
      for (const Task& task : add_tasks(sink, processes_, 1, "dd-writer")) {
        Status status = run_dd(sink, task, task.index + 1, file_size(task.index), true, 0);
        if (!status.is_ok()) return status;
      }
      return Status::ok();
    }
    Task writer = add_tasks(sink, 1, 1, "dd-writer").front();
    std::vector<Task> readers = add_tasks(sink, processes_, 1, "dd-reader", 1, 2);
    uint64_t written_at = 0;
    Status status = run_dd(sink, writer, 1, size_, true, 0, &written_at);
    for (const Task& reader : readers) {
      if (!status.is_ok()) break;
      status = run_dd(sink, reader, 1, size_, false, written_at);
    }
    return status;
  }

 private:
  uint64_t file_size(uint64_t index) const { return mmtests_ ? size_ : size_ << index; }

  Status run_dd(EventSink& sink, const Task& task, uint64_t file, uint64_t bytes, bool write,
                uint64_t start_ns, uint64_t* end_ns = nullptr) const {
    ProgramThread dd(sink, task, think_, start_ns);
    uint64_t block = std::min(block_, bytes);
    uint64_t block_pages = (block + kPageSize - 1) / kPageSize;
    dd.start();
    uint64_t buffer = dd.mmap_anon(block);
    dd.touch(buffer, block, /*write=*/true, user_cost::kWritePageNs);
    for (uint64_t offset = 0; offset < bytes && dd.ok(); offset += block) {
      uint64_t len = std::min(block, bytes - offset);
      if (write) {
        dd.file_write(file, offset, len,
                      user_cost::kFileIoCallNs + block_pages * user_cost::kDevZeroPageNs);
      } else {
        dd.file_read(file, offset, len, user_cost::kFileIoCallNs);
      }
    }
    dd.exit();
    if (end_ns != nullptr) *end_ns = dd.now();
    return dd.status();
  }

  bool mmtests_;
  uint64_t processes_;
  uint64_t size_;
  uint64_t block_;
  uint64_t think_;
};

}  // namespace

WorkloadSpec parallel_dd_spec() {
  return WorkloadSpec{
      "parallel-dd",
      "seed 003: concurrent dd writers streaming large files (or mmtests: one file, P readers)",
      {
          choice_param("variant", {"seed003", "mmtests"},
                       "three writers of seed 003, or mmtests' one file"),
          shared_params::processes(kSeed003Writers, "dd writers (seed003) or readers (mmtests)"),
          shared_params::size("66G",
                              "first writer's file (writer i: size x 2^i); mmtests: the file"),
          bytes_param("block", "1M", "dd bs: bytes per read/write call", kPageSize),
          shared_params::scale(),
          shared_params::think(),
      },
      [](const ParamValues& values) { return std::make_unique<ParallelDd>(values); },
  };
}

}  // namespace mmreplay::gen
