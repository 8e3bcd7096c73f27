// cma-bh: the workload behind seed 004 ("CMA/HOTPLUG: clear buffer-head lru before page
// migration", 2014). Worker threads do small file reads and writes, so the per-CPU bh_lrus fill
// with buffer heads, while a device thread makes contiguous (CMA) allocations at a given rate:
// Minchan Kim's worry that "some of usecase might call it frequently with small request (ie, 8K,
// 16K)", each of which invalidates bh_lrus and migrates pages.
//
// Worker, per operation: read or write `io-size` bytes at a random block-aligned offset of its own
// file. With --lmbench the worker also runs Gioh Kim's lmbench "File & VM system latencies" mix
// after each I/O: mmap latency (mmap the file, read every page, munmap), protection fault
// (mprotect a page read-only, write it, restore), page fault (covered by the mmap pass), and
// lmbench's 0K file create: the trace has no create event, so a create is written as what it does
// to the buffer-head layer, one read of the 9 metadata blocks it touches (86cf78d73de8: a create
// in a large ext4 directory with quota touches about 9 buffer heads) in a metadata file shared by
// the workers (the file system's inode table, bitmaps, directory block and quota file).
// Device thread (its own mm): contig_alloc(cma-size) every 1/rate seconds, freed `cma-hold` later,
// until the workers finish.

#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include "tools/gen/prng.h"
#include "tools/gen/program_thread.h"
#include "tools/gen/registry.h"
#include "tools/gen/user_costs.h"

namespace mmreplay::gen {
namespace {

// Seed 004's "cortex-a7 platform": a quad-core board with 1 GiB assumed (the thread gives neither).
constexpr Machine kSeed004Machine{4, 1 * kGiB, 0};
constexpr uint64_t kDefaultWorkers = 4;
constexpr uint64_t kDefaultOps = 10000;
constexpr uint64_t kDefaultCmaPerSecond = 100;
constexpr uint64_t kNsPerSecond = 1000000000;
constexpr uint64_t kFileBlockBytes = 4096;     // ext4 default block: one buffer head per block
constexpr uint64_t kCreateMetadataBlocks = 9;  // buffer heads an ext4 create touches (86cf78d73de8)
// With --lmbench, the calls and accesses run_worker() adds per operation (mmap, touch, munmap,
// mprotect, touch, mprotect, metadata read).
constexpr long double kLmbenchEventsPerOp = 7;
// Compressed bytes per event: `gen cma-bh` is 68484 bytes for 40012 events, 1.7 per event
// (random block offsets into 1 MiB files); rounded up.
constexpr double kCmaBhBytesPerEvent = 2.0;

class CmaBh final : public Workload {
 public:
  explicit CmaBh(const ParamValues& values)
      : workers_(values.count("threads")),
        ops_(values.count("loops")),
        io_size_(values.bytes("io-size")),
        file_size_(std::max(values.scaled_bytes("size"), values.bytes("io-size"))),
        write_percent_(values.count("write-pct")),
        lmbench_(values.flag("lmbench")),
        cma_size_(values.bytes("cma-size")),
        cma_period_(kNsPerSecond / values.count("cma-rate")),
        cma_hold_(values.nanos("cma-hold")),
        seed_(values.seed()),
        think_(values.nanos("think")) {}

  Machine machine() const override { return kSeed004Machine; }

  TraceEstimate estimate() const override {
    TraceEstimate estimate;
    long double workers = static_cast<long double>(workers_);
    long double ops = static_cast<long double>(ops_);
    long double think = static_cast<long double>(think_);
    estimate.threads = workers + 1;
    // A worker: start, exit, the lmbench protection page, and per operation its I/O call plus
    // lmbench's seven calls and accesses.
    long double per_op = 1 + (lmbench_ ? kLmbenchEventsPerOp : 0);
    long double worker_events = 2 + (lmbench_ ? 1 : 0) + ops * per_op;
    // The device allocates once per --cma-rate period while the workers run, and frees each.
    long double file_pages = ceil_div(static_cast<long double>(file_size_), kPageSize);
    long double op_ns = user_cost::kFileIoCallNs + think +
                        (lmbench_ ? kLmbenchEventsPerOp * (user_cost::kSyscallNs + think) +
                                        file_pages * user_cost::kWriteBytePerPageNs
                                  : 0);
    long double allocations = ceil_div(ops * op_ns, static_cast<long double>(cma_period_));
    estimate.events = workers * worker_events + 2 + 2 * allocations;
    estimate.bytes_per_event = kCmaBhBytesPerEvent;
    return estimate;
  }

  std::vector<formats::FileInfo> files() const override {
    std::vector<formats::FileInfo> files;
    for (uint64_t i = 0; i < workers_; ++i) {
      formats::FileInfo file;
      file.id = i + 1;
      file.path = "/data/cma-bh." + std::to_string(i);
      file.size_bytes = file_size_;
      file.block_size = kFileBlockBytes;
      files.push_back(std::move(file));
    }
    if (lmbench_) {
      formats::FileInfo meta;
      meta.id = metadata_file();
      meta.path = "/data/.ext4-metadata";
      meta.size_bytes = kCreateMetadataBlocks * kFileBlockBytes;
      meta.block_size = kFileBlockBytes;
      files.push_back(std::move(meta));
    }
    return files;
  }

  Status emit(EventSink& sink) const override {
    std::vector<Task> workers = add_tasks(sink, 1, workers_, "bh-worker");
    Task device = add_tasks(sink, 1, 1, "cma-device", workers_, 2).front();
    uint64_t end = 0;
    for (const Task& task : workers) {
      ProgramThread worker(sink, task, think_);
      SplitMix64 rng = SplitMix64::for_stream(seed_, task.index);
      run_worker(worker, rng, task.index + 1);
      if (!worker.ok()) return worker.status();
      end = std::max(end, worker.now());
    }
    return run_device(sink, device, end);
  }

 private:
  uint64_t metadata_file() const { return workers_ + 1; }

  void run_worker(ProgramThread& worker, SplitMix64& rng, uint64_t file) const {
    worker.start();
    uint64_t prot_page = lmbench_ ? worker.mmap_anon(kPageSize) : 0;
    uint64_t blocks = std::max<uint64_t>(1, (file_size_ - io_size_) / kFileBlockBytes + 1);
    for (uint64_t op = 0; op < ops_ && worker.ok(); ++op) {
      uint64_t offset = rng.below(blocks) * kFileBlockBytes;
      if (rng.percent(write_percent_)) {
        worker.file_write(file, offset, io_size_, user_cost::kFileIoCallNs);
      } else {
        worker.file_read(file, offset, io_size_, user_cost::kFileIoCallNs);
      }
      if (!lmbench_) continue;
      uint64_t map = worker.mmap_file(file_size_, file, /*shared=*/true);  // lat_mmap
      worker.touch(map, file_size_, /*write=*/false, user_cost::kWriteBytePerPageNs);
      worker.munmap(map, file_size_);
      worker.mprotect(prot_page, kPageSize, kProtRead);  // lat_sig prot
      worker.touch(prot_page, kPageSize, /*write=*/true, user_cost::kWriteBytePerPageNs);
      worker.mprotect(prot_page, kPageSize, kProtRead | kProtWrite);
      worker.file_read(metadata_file(), 0, kCreateMetadataBlocks * kFileBlockBytes,
                       user_cost::kFileIoCallNs);  // lat_fs 0K create: its metadata buffer heads
    }
    worker.exit();
  }

  Status run_device(EventSink& sink, const Task& task, uint64_t end) const {
    ProgramThread device(sink, task, 0);
    device.start();
    std::deque<std::pair<uint64_t, uint64_t>> held;  // (free time, handle), in free order
    uint64_t handle = 0;
    for (uint64_t at = 0; at < end && device.ok(); at += cma_period_) {
      while (!held.empty() && held.front().first <= at) {
        device.wait_until(held.front().first);
        device.contig_free(held.front().second);
        held.pop_front();
      }
      device.wait_until(at);
      device.contig_alloc(++handle, cma_size_);
      held.emplace_back(device.now() + cma_hold_, handle);
    }
    for (const auto& [at, held_handle] : held) {
      device.wait_until(at);
      device.contig_free(held_handle);
    }
    device.exit();
    return device.status();
  }

  uint64_t workers_;
  uint64_t ops_;
  uint64_t io_size_;
  uint64_t file_size_;
  uint64_t write_percent_;
  bool lmbench_;
  uint64_t cma_size_;
  uint64_t cma_period_;
  uint64_t cma_hold_;
  uint64_t seed_;
  uint64_t think_;
};

}  // namespace

WorkloadSpec cma_bh_spec() {
  return WorkloadSpec{
      "cma-bh",
      "seed 004: threads do small file I/O (bh_lru traffic) while a device makes CMA allocations",
      {
          shared_params::threads(kDefaultWorkers, "file I/O worker threads (one mm)"),
          shared_params::loops(kDefaultOps, "file operations per worker"),
          bytes_param("io-size", "4K", "bytes per read/write", 1),
          shared_params::size("1M", "file per worker"),
          count_param("write-pct", 50, "%", "share of operations that write", 0, 100),
          flag_param("lmbench", false, "add lmbench's mmap / page-fault / protection-fault mix"),
          bytes_param("cma-size", "8K", "bytes per contiguous allocation (8K, 16K, ...)",
                      kPageSize),
          count_param("cma-rate", kDefaultCmaPerSecond, "1/s", "contiguous allocations per second",
                      1, kNsPerSecond),
          nanos_param("cma-hold", "1ms", "time a contiguous allocation is held"),
          shared_params::seed(),
          shared_params::scale(),
          shared_params::think(),
      },
      [](const ParamValues& values) { return std::make_unique<CmaBh>(values); },
  };
}

}  // namespace mmreplay::gen
