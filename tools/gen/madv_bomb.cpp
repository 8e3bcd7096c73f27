// madv-bomb: Shaohua Li's "MADV_FREE bomb" of seed 000 ("mm: throttle MADV_FREE", 2015).
//
//   P processes, each:  mmap(size) anonymous; L times { memset(region); madvise(region, advice) }
//
// --write byte writes one byte per page instead of the memset (calibrate's madvise reuse loops,
// tools/calibrate/throughput_loops.h: the kernel's share of the loop, not the memset's bandwidth).
//
// Seed 000 ran 12 x 512M on a 3G RAM, 8G swap, 12 CPU machine, 5 loops, so the processes
// together want twice the RAM and reclaim decides whether MADV_FREE beats MADV_DONTNEED. The
// trace carries the advice the program passed (FREE by default); what the kernel does with it is
// the replay policy's choice (madv_free=lazy|throttled|free-swapped|as-dontneed).
//
// --launch D starts each process at its own instant, uniform in [0, D) and drawn from --seed, as
// a launcher forking and exec'ing them one after another spreads them (a bash loop of 12 `cmd &`
// on the development machine: 46-51 ms from the first start to the last, 2026-12-05). With every
// process starting at 0 (D = 0, the default) they run the loops in step, and the outcome of a
// race such as seed 000's throttle (free memory under 1.5 x min when a wave of madvise calls
// comes) is one draw; validate replays several seeds and takes the median (Scale::draws).
//
// Events per process: thread_start, mmap, L x (touch write of every page, madvise), thread_exit.

#include <memory>

#include "tools/gen/prng.h"
#include "tools/gen/program_thread.h"
#include "tools/gen/registry.h"
#include "tools/gen/user_costs.h"

namespace mmreplay::gen {
namespace {

// Seed 000's machine: "my 3G machine + 12 CPU + 8G swap".
constexpr Machine kSeed000Machine{12, 3 * kGiB, 8 * kGiB};

class MadvBomb final : public Workload {
 public:
  explicit MadvBomb(const ParamValues& values)
      : processes_(values.count("processes")),
        size_(values.scaled_bytes("size")),
        loops_(values.count("loops")),
        advice_(values.choice("advice") == "free" ? formats::kMadvFree : formats::kMadvDontNeed),
        write_ns_(values.choice("write") == "byte" ? user_cost::kWriteBytePerPageNs
                                                   : user_cost::kWritePageNs),
        think_(values.nanos("think")),
        launch_(values.nanos("launch")),
        seed_(values.seed()) {}

  Machine machine() const override { return kSeed000Machine; }

  TraceEstimate estimate() const override {
    TraceEstimate estimate;
    estimate.threads = static_cast<long double>(processes_);
    // thread_start, mmap, exit, and a touch + madvise per loop.
    estimate.events = estimate.threads * (3 + 2 * static_cast<long double>(loops_));
    return estimate;
  }

  Status emit(EventSink& sink) const override {
    for (const Task& task : add_tasks(sink, processes_, 1, "madv-bomb")) {
      ProgramThread thread(sink, task, think_);
      if (launch_ > 0) thread.spend(SplitMix64::for_stream(seed_, task.index).below(launch_));
      thread.start();
      uint64_t region = thread.mmap_anon(size_);
      for (uint64_t loop = 0; loop < loops_ && thread.ok(); ++loop) {
        thread.touch(region, size_, /*write=*/true, write_ns_);  // memset(512M)
        thread.madvise(region, size_, advice_);
      }
      thread.exit();
      if (!thread.ok()) return thread.status();
    }
    return Status::ok();
  }

 private:
  uint64_t processes_;
  uint64_t size_;
  uint64_t loops_;
  uint64_t advice_;
  uint64_t write_ns_;  // user time per page of the writes
  uint64_t think_;
  uint64_t launch_;  // the processes start within [0, launch_)
  uint64_t seed_;
};

}  // namespace

WorkloadSpec madv_bomb_spec() {
  return WorkloadSpec{
      "madv-bomb",
      "seed 000: P processes mmap a region, then L x (memset it, madvise FREE/DONTNEED)",
      {
          shared_params::processes(12, "processes, one mm each"),
          shared_params::size("512M", "anonymous region per process"),
          shared_params::loops(5, "memset + madvise rounds"),
          choice_param("advice", {"free", "dontneed"}, "advice the program passes to madvise"),
          choice_param("write", {"page", "byte"},
                       "memset every page (page) or write one byte per page (byte)"),
          shared_params::scale(),
          shared_params::think(),
          nanos_param("launch", "0",
                      "processes start at instants drawn from [0, this) (0: all at once)"),
          shared_params::seed(),
      },
      [](const ParamValues& values) { return std::make_unique<MadvBomb>(values); },
  };
}

}  // namespace mmreplay::gen
