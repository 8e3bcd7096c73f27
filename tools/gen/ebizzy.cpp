// ebizzy (Valerie Henson's web-server-like allocator benchmark, used across linux-mm threads on
// madvise and mmap_sem): a main thread allocates N chunks and fills them with random data; then
// T worker threads (one shared mm) each loop:
//   buf = malloc(size); memcpy(buf, chunk[random], size); search buf; free(buf)
// With -m (--mmap on), buffers and chunks come from mmap/munmap instead of malloc/free.
//
// The allocator of ebizzy's usual runs is glibc's, which returns a freed large block's pages at
// once (heap trimming with madvise(MADV_DONTNEED)); the arena model stands in for it without
// jemalloc's one-chunk floor, so every free of a buffer purges it with one madvise.

#include <memory>
#include <vector>

#include "tools/gen/heap_thread.h"
#include "tools/gen/prng.h"
#include "tools/gen/registry.h"
#include "tools/gen/user_costs.h"

namespace mmreplay::gen {
namespace {

// ebizzy's defaults: -n 512 chunks (cmdline "chunks"), -s 512 KiB chunk size.
constexpr uint64_t kEbizzyChunks = 512;
constexpr uint64_t kDefaultThreads = 16;
constexpr uint64_t kDefaultRecords = 1000;
// Arena with glibc-like trimming: chunk big enough for a few buffers, purge everything dirty,
// no spare or cached chunks (ptmalloc2 keeps its heaps mapped).
constexpr ArenaConfig kTrimOnFree{.chunk_bytes = kJemallocChunkBytes * 4,
                                  .lg_dirty_mult = 0,
                                  .chunk_floor = false,
                                  .chunk_cache = false};
// The allocator that stands for, and its advice: glibc's malloc (ptmalloc2) gives a freed heap
// top back with madvise(MADV_DONTNEED) (malloc/arena.c: shrink_heap()) and has never used
// MADV_FREE there; 2.21 is the glibc of seed 002's time (2015). --advice free asks what MADV_FREE
// would have done.
constexpr const char* kGlibcMallocLabel = "glibc 2.21 malloc (ptmalloc2)";
constexpr uint64_t kGlibcShippedAdvice = formats::kMadvDontNeed;

// Events per worker record: three touches plus the free's trim madvise (malloc), or plus the
// mmap and munmap (--mmap). Gen output at the defaults matches: 64597 events for 16 x 1000
// records, 512 chunks.
constexpr long double kEventsPerMallocRecord = 4;
constexpr long double kEventsPerMmapRecord = 5;
// Compressed bytes per event: 54944 bytes / 64597 events = 0.85 at the defaults (random chunk
// picks keep the source addresses from repeating); rounded up.
constexpr double kEbizzyBytesPerEvent = 1.0;

class Ebizzy final : public Workload {
 public:
  explicit Ebizzy(const ParamValues& values)
      : threads_(values.count("threads")),
        chunks_(values.count("chunks")),
        size_(values.scaled_bytes("size")),
        loops_(values.count("loops")),
        use_mmap_(values.flag("mmap")),
        advice_(purge_advice_from(values)),
        seed_(values.seed()),
        think_(values.nanos("think")) {}

  // Seed 002's machine: ebizzy is the madvise/TLB-flush benchmark of that era.
  Machine machine() const override { return kSeed002Machine; }
  // With --mmap, buffers bypass malloc: no allocator purges anything.
  std::string allocator() const override {
    return use_mmap_ ? "" : allocator_label(kGlibcMallocLabel, kGlibcShippedAdvice, advice_);
  }

  TraceEstimate estimate() const override {
    TraceEstimate estimate;
    estimate.threads = static_cast<long double>(threads_) + 1;
    // main: start, exit, and per chunk its allocation (a chunk mmap at most) and its fill.
    long double main_events = 2 + 2 * static_cast<long double>(chunks_);
    // a worker's record: three touches, and the free's trim madvise or the mmap + munmap.
    long double per_record = use_mmap_ ? kEventsPerMmapRecord : kEventsPerMallocRecord;
    estimate.events = main_events + static_cast<long double>(threads_) *
                                        (2 + static_cast<long double>(loops_) * per_record);
    estimate.bytes_per_event = kEbizzyBytesPerEvent;
    return estimate;
  }

  Status emit(EventSink& sink) const override {
    std::vector<Task> tasks = add_tasks(sink, 1, threads_ + 1, "ebizzy");
    // Task 0 is main: it allocates and fills the chunks the workers copy from.
    ProgramThread main(sink, tasks[0], think_);
    HeapThread main_heap(&main, kTrimOnFree, 1, advice_);
    main.start();
    std::vector<uint64_t> chunks;
    for (uint64_t i = 0; i < chunks_ && main.ok(); ++i) {
      uint64_t addr = use_mmap_ ? main.mmap_anon(size_) : main_heap.malloc(size_);
      main.touch(addr, size_, /*write=*/true, user_cost::kWritePageNs);  // fill_random()
      chunks.push_back(addr);
    }
    main.exit();
    if (!main.ok()) return main.status();

    for (size_t w = 1; w < tasks.size(); ++w) {
      ProgramThread worker(sink, tasks[w], think_, main.now());
      HeapThread heap(&worker, kTrimOnFree, 1, advice_);
      SplitMix64 rng = SplitMix64::for_stream(seed_, tasks[w].index);
      worker.start();
      for (uint64_t i = 0; i < loops_ && worker.ok(); ++i) {
        uint64_t src = chunks[rng.below(chunks.size())];
        uint64_t buf = use_mmap_ ? worker.mmap_anon(size_) : heap.malloc(size_);
        worker.touch(src, size_, /*write=*/false, user_cost::kReadPageNs);    // memcpy source
        worker.touch(buf, size_, /*write=*/true, user_cost::kCopyPageNs);     // memcpy target
        worker.touch(buf, size_, /*write=*/false, user_cost::kSearchPageNs);  // search_mem()
        if (use_mmap_) {
          worker.munmap(buf, size_);
        } else {
          heap.free(buf, size_);
        }
      }
      worker.exit();
      if (!worker.ok()) return worker.status();
    }
    return Status::ok();
  }

 private:
  uint64_t threads_;
  uint64_t chunks_;
  uint64_t size_;
  uint64_t loops_;
  bool use_mmap_;
  uint64_t advice_;
  uint64_t seed_;
  uint64_t think_;
};

}  // namespace

WorkloadSpec ebizzy_spec() {
  return WorkloadSpec{
      "ebizzy",
      "ebizzy: T threads copy a random chunk into a fresh buffer, search it, free it (-m: mmap)",
      {
          shared_params::threads(kDefaultThreads, "worker threads sharing one mm"),
          count_param("chunks", kEbizzyChunks, "chunks", "chunks main allocates (-n)"),
          shared_params::size("512K", "chunk and buffer size (-s)"),
          shared_params::loops(kDefaultRecords, "records (copy + search) per worker"),
          flag_param("mmap", false, "ebizzy -m: mmap/munmap instead of malloc/free"),
          advice_param(kGlibcShippedAdvice),
          shared_params::seed(),
          shared_params::scale(),
          shared_params::think(),
      },
      [](const ParamValues& values) { return std::make_unique<Ebizzy>(values); },
  };
}

}  // namespace mmreplay::gen
