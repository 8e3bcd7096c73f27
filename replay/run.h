// One run of a study: one trace replayed under one policy on one simulated machine.
//
// execute_run() builds a kernelsim::Simulation, maps every trace thread to a task placed on a
// CPU, feeds it through a TraceOpSource and runs it to the end. A run is sequential and
// deterministic: the same RunSpec on the same trace gives the same RunResult on any host thread.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/trace_reader.h"
#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/mm/swapfile.h"
#include "kernelsim/policy/kernel_config.h"
#include "kernelsim/sim/histogram.h"
#include "replay/chunk_cache.h"
#include "replay/trace_op_source.h"

namespace mmreplay::replay {

enum class Placement {
  kSpread,      // thread i on CPU i mod N, in thread-table order
  kPack,        // threads of one mm on neighbouring CPUs (sorted by mm, then spread)
  kAsRecorded,  // the CPU the recording saw the thread on (mod N); spread where unknown
};

// The page-cache state of the trace's files when the run starts (--cache).
enum class CacheStart {
  kAuto,  // warm for files that existed before the recording, cold for those it created; cold
          // for every file of a generated trace or of one older than format 1.3 (as before)
  kWarm,  // every regular file's pages are resident at the start
  kCold,  // none are: every first read goes to the device
};
const char* cache_start_name(CacheStart c);

// "block" or "zram": the --swap-device name of a swap device.
const char* swap_device_name(kernelsim::SwapDevice d);

// RunSpec::swap_bytes asking for no swap device whatever the trace's machine had.
inline constexpr uint64_t kNoSwap = ~uint64_t{0};

struct RunSpec {
  std::string policy_name;         // as the user wrote it ("linux-4.5+madv_free=lazy")
  kernelsim::KernelConfig config;  // what it resolved to (replay/policy_spec.h), validated up front
  TraceRewrites rewrites;          // its trace rewrites (replay/trace_rewrite_knobs.h)
  uint32_t cpus = 0;               // 0 = the CPUs the trace was recorded on (or 4)
  uint64_t memory_bytes = 0;       // 0 = the trace's machine memory (or the model's default)
  uint64_t swap_bytes = 0;         // 0 = the trace's swap; kNoSwap = none (--swap 0)
  // --swap-device: "block" or "zram" (kernelsim/mm/swapfile.h SwapDevice); "" = zram with the
  // zram cost profile, else the recording machine's (format 1.13), else block.
  std::string swap_device;
  uint64_t min_free_kbytes = 0;     // vm.min_free_kbytes; 0 = the kernel's formula
  uint64_t memcg_limit_bytes = 0;   // limit of each memcg (policy memcg); 0 = unlimited
  uint64_t cma_bytes = 0;           // 0 = CMA_SIZE_MBYTES (kernelsim/constants.h)
  std::string profile = "default";  // a built-in name or a .json path (cost_profile_json.h)
  // Costs given directly, used instead of resolving `profile` (which then only names them):
  // calibrate's throughput fit replays one trace under many candidate profiles.
  std::optional<kernelsim::CostProfile> costs;
  // --machine: a preset of kernelsim/costs/machine_presets.h ("" = none: one socket, no SMT).
  // It gives the CPUs, the memory and the topology with its distance costs; `cpus` and
  // `memory_bytes` above still override its CPUs and memory.
  std::string machine;
  Timing timing = Timing::kClosed;
  Placement placement = Placement::kSpread;
  CacheStart cache = CacheStart::kAuto;
  // --timeline: a Chrome trace-event JSON of the run (replay/timeline_json.h); empty = none.
  std::string timeline_path;
  int64_t timeline_window_start_ns = 0;  // --timeline-window START:END, virtual ns
  int64_t timeline_window_end_ns = INT64_MAX;
  uint64_t timeline_max_bytes = 0;  // size guard; 0 = kTimelineMaxBytes (200 MB)
};

// Latency and counts of one operation type.
using OpHistograms = std::map<std::string, kernelsim::Histogram>;

struct LockResult {
  uint64_t acquisitions = 0;
  uint64_t contentions = 0;
  uint64_t bounces = 0;
  kernelsim::Histogram wait;
  kernelsim::Histogram hold;
};

struct CpuResult {
  uint64_t ipis_sent = 0;
  uint64_t ipis_received = 0;
  uint64_t irq_ns = 0;
  uint64_t context_switches = 0;
  uint64_t busy_ns = 0;  // a task ran or spun here
  uint64_t idle_ns = 0;  // makespan - busy
};

// One OOM kill of the run, with the figures of the kernel's "Killed process PID (COMM)
// anon-rss:... file-rss:... pgtables:..." line, so it can be set beside a native run's dmesg.
struct OomKillResult {
  uint64_t at_ns = 0;
  uint64_t pid = 0;         // the victim: its process id in the trace (a generator's mm number)
  std::string comm;         // the name of its first thread in the trace
  uint64_t invoked_by = 0;  // the process whose allocation or charge ran the OOM killer
  bool memcg = false;       // a memcg OOM (CONSTRAINT_MEMCG); false: machine-wide
  uint64_t anon_rss_kb = 0;
  uint64_t file_rss_kb = 0;
  uint64_t swapents_kb = 0;
  uint64_t pgtables_kb = 0;  // PTE pages only
};

struct RunResult {
  RunSpec spec;
  std::string effective_policy;  // every knob, defaults included (replay::format_policy_knobs)
  uint32_t cpus = 0;
  uint64_t memory_bytes = 0;
  uint64_t swap_bytes = 0;
  kernelsim::SwapDevice swap_device = kernelsim::SwapDevice::kBlock;
  uint64_t min_free_kbytes = 0;    // the replayed machine's (spec, recording or boot formula)
  uint64_t memcg_limit_bytes = 0;  // each group's limit (spec, else recording; 0 = none)
  uint64_t makespan_ns = 0;
  uint64_t operations = 0;  // modelled operations (syscalls, faults, touches)
  OpHistograms ops;
  std::map<std::string, LockResult> locks;
  std::map<std::string, uint64_t> counters;
  std::vector<CpuResult> per_cpu;
  std::vector<OomKillResult> oom_kills;
  kernelsim::Histogram open_loop_lateness;
  uint64_t events_replayed = 0;
  double throughput_ops_per_s() const {
    return makespan_ns == 0
               ? 0.0
               : static_cast<double>(operations) * 1e9 / static_cast<double>(makespan_ns);
  }
  // What getrusage() of the trace's processes would hold under tick-based accounting (the
  // counters busy_ns, kthread_ns, user_ns, irq_user_ns): their busy time (kernel threads' left
  // out) and the user part of it; system time is the difference. nullopt for results from before
  // the split, which lack the counters.
  struct ProcessTimes {
    uint64_t busy_ns = 0;
    uint64_t user_ns = 0;
  };
  std::optional<ProcessTimes> process_times() const;
};

// Runs `spec` on `reader`'s trace, reading chunks through `cache`. Errors: a bad machine or
// profile, a decode error, or a run whose tasks never finished (named in the message).
Status execute_run(const RunSpec& spec, const formats::TraceReader& reader, ChunkCache& cache,
                   RunResult* result);

}  // namespace mmreplay::replay
