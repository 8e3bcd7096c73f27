#include "replay/run.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <unordered_set>

#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/costs/machine_presets.h"
#include "kernelsim/locking/lock_classes.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/mm/page_alloc.h"
#include "kernelsim/simulation.h"
#include "replay/cost_profile_json.h"
#include "replay/policy_spec.h"
#include "replay/result_keys.h"
#include "replay/run_timeline.h"

namespace mmreplay::replay {
namespace {

using kernelsim::OpKind;

// CPUs when neither the user nor the trace says how many.
constexpr uint32_t kDefaultCpus = 4;
// Trace threads with mm id 0 (unknown) each get an mm of their own, numbered from here.
constexpr uint32_t kPrivateMmBase = 1u << 30;

uint32_t mm_of(const formats::ThreadInfo& t, uint32_t stream) {
  return t.mm_id == 0 ? kPrivateMmBase + stream : static_cast<uint32_t>(t.mm_id);
}

// The threads whose parent is in the thread table: its stream's clone event starts them.
std::vector<bool> started_by_clone(const formats::TraceMeta& meta) {
  std::unordered_set<uint64_t> tids;
  for (const formats::ThreadInfo& t : meta.threads) tids.insert(t.tid);
  std::vector<bool> out;
  for (const formats::ThreadInfo& t : meta.threads)
    out.push_back(t.parent_tid != 0 && tids.count(t.parent_tid) != 0);
  return out;
}

// CPU of each stream under the placement.
std::vector<uint32_t> place(const formats::TraceMeta& meta, Placement placement, uint32_t cpus) {
  std::vector<uint32_t> order(meta.threads.size());
  std::iota(order.begin(), order.end(), 0u);
  if (placement == Placement::kPack) {
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return mm_of(meta.threads[a], a) < mm_of(meta.threads[b], b);
    });
  }
  std::vector<uint32_t> cpu(meta.threads.size());
  for (uint32_t i = 0; i < order.size(); ++i) cpu[order[i]] = i % cpus;
  if (placement == Placement::kAsRecorded) {
    for (uint32_t s = 0; s < meta.threads.size(); ++s) {
      if (meta.threads[s].cpu >= 0) cpu[s] = static_cast<uint32_t>(meta.threads[s].cpu) % cpus;
    }
  }
  return cpu;
}

void collect(const kernelsim::Simulation& sim, RunResult* r) {
  const kernelsim::Stats& stats = sim.stats();
  // Operations for throughput: syscalls and page faults (those inside touches included); a
  // touch itself is user-space work, not an operation.
  r->operations = 0;
  // Result keys of the modelled operations come from the op table (issue 5's JSON names);
  // think/sleep/lifecycle steps have none.
  for (int i = 0; i < kernelsim::kOpKindCount; ++i) {
    const auto kind = static_cast<OpKind>(i);
    const std::string_view key = kernelsim::op_info(kind).results_key;
    if (key.empty()) continue;
    r->ops[std::string(key)] = stats.latency(kind);
    if (kind != OpKind::kTouch) r->operations += stats.count(kind);
  }
  r->ops[std::string(kDirectReclaimOp)] = stats.direct_reclaim;
  // A key the schema always carries; the model part that fills it lands later.
  r->ops.emplace(kMajorFaultOp, kernelsim::Histogram());
  // Keys are lock_stat class names without the '&' ("mm->mmap_sem-R", "zone->lock"); the two
  // mmap_sem classes are also summed under "mmap_sem", the name the results schema promises.
  const std::string mmap_sem_class = lock_key(kernelsim::kMmapSemClass);
  for (const auto& [name, lc] : sim.lockstat().classes()) {
    const std::string key = lock_key(name);
    const bool mmap_sem = key.starts_with(mmap_sem_class);
    for (const std::string& k : {key, std::string(mmap_sem ? kMmapSemLock : "")}) {
      if (k.empty()) continue;
      LockResult& l = r->locks[k];
      l.acquisitions += lc.acquisitions;
      l.contentions += lc.contentions;
      l.bounces += lc.acq_bounces;
      l.wait.merge(lc.wait_time);
      l.hold.merge(lc.hold_time);
    }
  }
  // Every counter of the two lists (common/counters.h) under its results key; CPU counters as
  // totals over the CPUs.
  r->counters.clear();
  auto put = [r](const common::CounterInfo& c, uint64_t v) { r->counters[std::string(c.key)] = v; };
  kernelsim::for_each_counter(stats.vm, put);
  kernelsim::for_each_counter(sim.cpu_totals(), put);
  r->makespan_ns = static_cast<uint64_t>(sim.now().count_ns());
  r->per_cpu.clear();
  for (uint32_t c = 0; c < sim.nr_cpus(); ++c) {
    const kernelsim::CpuCounters& cc = sim.cpu(c).counters;
    const uint64_t idle = r->makespan_ns > cc.busy_ns ? r->makespan_ns - cc.busy_ns : 0;
    r->per_cpu.push_back(
        {cc.ipis_sent, cc.ipis_received, cc.irq_ns, cc.context_switches, cc.busy_ns, idle});
  }
}

// The run's OOM kills, each victim named by its process id in the trace and its first thread's
// name (a thread of an unknown process has an mm of its own: its tid stands for the pid).
void collect_oom_kills(const kernelsim::Simulation& sim, const formats::TraceMeta& meta,
                       RunResult* r) {
  std::map<uint32_t, std::pair<uint64_t, std::string>> processes;  // mm -> (pid, comm)
  for (uint32_t s = 0; s < meta.threads.size(); ++s) {
    const formats::ThreadInfo& t = meta.threads[s];
    processes.try_emplace(mm_of(t, s), t.mm_id == 0 ? t.tid : t.mm_id, t.name);
  }
  auto pid_of = [&processes](uint32_t mm) {
    auto it = processes.find(mm);
    return it == processes.end() ? uint64_t{mm} : it->second.first;
  };
  constexpr uint64_t kPageKb = kernelsim::PAGE_SIZE / 1024;
  r->oom_kills.clear();
  for (const kernelsim::OomKillRecord& k : sim.stats().oom_kills) {
    auto it = processes.find(k.victim_mm);
    r->oom_kills.push_back({static_cast<uint64_t>(k.at.count_ns()), pid_of(k.victim_mm),
                            it == processes.end() ? std::string() : it->second.second,
                            pid_of(k.invoked_by), k.memcg_id != kernelsim::kRootMemcg,
                            k.anon_rss * kPageKb, k.file_rss * kPageKb, k.swapents * kPageKb,
                            k.pte_tables * kPageKb});
  }
}

// The model's file table from the trace's (kernelsim/fs/file.h): kinds, which files start
// cached, and the readahead window of each file's device as recorded (format 1.8), unless the
// policy gives read_ahead_kb itself (`devices_as_recorded` false): a what-if for every device.
// A kind this build does not know, or none (older formats), is unknown: page cache and buffer
// heads, as every file was before kinds.
void set_files(const formats::TraceMeta& meta, CacheStart cache, bool devices_as_recorded,
               kernelsim::FileTable* table) {
  using formats::FileKind;
  using kernelsim::FileType;
  // Files of generated traces and of traces before kinds were recorded stayed cold (format 1.3),
  // unless the generator gave the file a kind (will-it-scale's files: tools/gen/will_it_scale.cpp).
  const bool kinds_recorded =
      meta.generator.empty() && (meta.version_major > 1 || meta.version_minor >= 3);
  for (const formats::FileInfo& f : meta.files) {
    if (f.id == 0 || f.id > UINT32_MAX) continue;
    kernelsim::FileSpec spec;
    switch (f.kind) {
      case FileKind::kBlockDevice:
        spec.type = FileType::kBlockDevice;
        break;
      case FileKind::kSocket:
        spec.type = FileType::kSocket;
        break;
      case FileKind::kPipe:
        spec.type = FileType::kPipe;
        break;
      case FileKind::kCharDevice:
        spec.type = FileType::kCharDevice;
        break;
      case FileKind::kTty:
        spec.type = FileType::kTty;
        break;
      case FileKind::kAnon:
        spec.type = FileType::kAnon;
        break;
      case FileKind::kRegular:
        spec.type = FileType::kRegular;
        break;
      case FileKind::kUnknown:
        spec.type = FileType::kUnknown;
        break;
    }
    spec.size_bytes = f.size_bytes;
    spec.created = f.created;
    if (devices_as_recorded) spec.read_ahead_kb = f.read_ahead_kb;
    spec.cached_at_start = cache == CacheStart::kWarm ||
                           (cache == CacheStart::kAuto &&
                            (kinds_recorded || f.kind != FileKind::kUnknown) && !f.created);
    table->set(static_cast<uint32_t>(f.id), spec);
  }
}

// The policy's kernel configuration, with sync wake-ups placed as the recording placed most of
// them (format 1.11) unless the policy sets wake_affine itself: a machine whose kernel kept a
// pipe's two sides on their own CPUs (select_idle_sibling() finding the wakee's CPU idle, as on
// bare metal or a guest whose idle vCPUs are not reported preempted) replays under
// sync-idle-prev, one that pulled the wakee to the waker's CPU (wake_affine_idle()) under sync.
kernelsim::KernelConfig config_for(const formats::TraceMeta& meta, const RunSpec& spec) {
  kernelsim::KernelConfig config = spec.config;
  // A limit, --memcg-limit's or the recording's (format 1.14), needs a memory controller to bind:
  // a policy that leaves memcg off gets the current kernels' page_counter (one named by the policy
  // stays). Until 2026-12-05 --memcg-limit under such a policy was reported but never charged.
  if ((spec.memcg_limit_bytes != 0 || meta.recorder.memcg_limit_bytes != 0) &&
      config.memcg == kernelsim::MemcgCounterKind::kOff &&
      !policy_names_knob(spec.policy_name, "memcg")) {
    config.memcg = kernelsim::MemcgCounterKind::kPageCounter;
  }
  const uint64_t on_waker = meta.recorder.sync_wakes_on_waker_cpu;
  const uint64_t on_other = meta.recorder.sync_wakes_on_other_cpu;
  if (on_waker != on_other && !policy_names_knob(spec.policy_name, "wake_affine")) {
    config.wake_affine = on_other > on_waker ? kernelsim::WakeAffineMode::kSyncIdlePrev
                                             : kernelsim::WakeAffineMode::kSync;
  }
  return config;
}

// vm.min_free_kbytes of the replayed machine: --min-free-kbytes; else, on the memory the trace was
// recorded with, the recording machine's (format 1.12): a kernel with THP on runs above the boot
// formula (set_recommended_min_free_kbytes(): 67,584 KB on the development machine (7.3 GiB in its
// zones), where the formula gives 11,095), so its watermarks, and when kswapd wakes and an
// allocation stalls, are the recorded ones; else 0, the boot formula on the replayed memory.
// A value at or above the memory is refused: every allocation would stall.
Status min_free_kbytes_for(const formats::TraceReader& reader, const RunSpec& spec,
                           uint64_t memory_bytes, uint64_t* kbytes) {
  const formats::RecorderInfo& rec = reader.meta().recorder;
  const uint64_t memory_kbytes = memory_bytes >> 10;
  *kbytes = 0;
  if (spec.min_free_kbytes != 0) {
    if (spec.min_free_kbytes >= memory_kbytes) {
      return Status::invalid_argument("--min-free-kbytes " + std::to_string(spec.min_free_kbytes) +
                                      ": not below the machine's memory (" +
                                      std::to_string(memory_kbytes) + " KB)");
    }
    *kbytes = spec.min_free_kbytes;
  } else if (rec.min_free_kbytes != 0 && memory_bytes == rec.memory_bytes) {
    if (rec.min_free_kbytes >= memory_kbytes) {
      return Status::corruption(
          reader.path() + ": header: min_free_kbytes " + std::to_string(rec.min_free_kbytes) +
          " not below the recorded memory (" + std::to_string(memory_kbytes) + " KB)");
    }
    *kbytes = rec.min_free_kbytes;
  }
  return Status::ok();
}

// --swap-device; else zram with the zram cost profile (its costs are a CPU's decompression,
// which a block device's wait would misplace); else the recording machine's (format 1.13); else
// a block device. (The recorded device is already one of the two: the reader drops others.)
Status swap_device_for(const RunSpec& spec, const formats::TraceMeta& meta,
                       kernelsim::SwapDevice* device) {
  const std::string name = !spec.swap_device.empty()            ? spec.swap_device
                           : spec.profile == "zram"             ? "zram"
                           : !meta.recorder.swap_device.empty() ? meta.recorder.swap_device
                                                                : "block";
  if (name == "zram") {
    *device = kernelsim::SwapDevice::kSynchronous;
  } else if (name == "block") {
    *device = kernelsim::SwapDevice::kBlock;
  } else {
    return Status::invalid_argument("--swap-device " + spec.swap_device +
                                    ": expected block or zram");
  }
  return Status::ok();
}

}  // namespace

const char* swap_device_name(kernelsim::SwapDevice d) {
  return d == kernelsim::SwapDevice::kSynchronous ? "zram" : "block";
}

const char* cache_start_name(CacheStart c) {
  switch (c) {
    case CacheStart::kWarm:
      return "warm";
    case CacheStart::kCold:
      return "cold";
    case CacheStart::kAuto:
      break;
  }
  return "auto";
}

std::optional<RunResult::ProcessTimes> RunResult::process_times() const {
  uint64_t v[4] = {};
  const char* const keys[4] = {"busy_ns", "kthread_ns", "user_ns", "irq_user_ns"};
  for (int i = 0; i < 4; ++i) {
    auto it = counters.find(keys[i]);
    if (it == counters.end()) return std::nullopt;
    v[i] = it->second;
  }
  const uint64_t busy = v[0] - std::min(v[0], v[1]);
  return ProcessTimes{busy, std::min(busy, v[2] + v[3])};
}

Status execute_run(const RunSpec& spec, const formats::TraceReader& reader, ChunkCache& cache,
                   RunResult* result) {
  *result = RunResult();
  result->spec = spec;
  const formats::TraceMeta& meta = reader.meta();
  kernelsim::MachineConfig machine;
  const kernelsim::MachinePreset* preset = nullptr;
  if (!spec.machine.empty()) {
    preset = kernelsim::find_machine_preset(spec.machine);
    if (preset == nullptr) {
      return Status::invalid_argument("--machine " + spec.machine + ": no such machine (" +
                                      kernelsim::machine_preset_names() + ")");
    }
    kernelsim::apply_machine_preset(*preset, &machine);
  }
  machine.nr_cpus = spec.cpus != 0            ? spec.cpus
                    : preset != nullptr       ? preset->nr_cpus()
                    : meta.recorder.cpus != 0 ? meta.recorder.cpus
                                              : kDefaultCpus;
  if (machine.nr_cpus > kernelsim::NR_CPUS) {
    return Status::invalid_argument("--cpus " + std::to_string(machine.nr_cpus) +
                                    ": the model supports at most " +
                                    std::to_string(kernelsim::NR_CPUS));
  }
  if (spec.memory_bytes != 0) {
    machine.memory_bytes = spec.memory_bytes;
  } else if (preset != nullptr) {
    machine.memory_bytes = preset->memory_bytes;
  } else if (meta.recorder.memory_bytes != 0) {
    machine.memory_bytes = meta.recorder.memory_bytes;
  }
  // --swap, or the swap the trace was recorded with (0: no swap device, no anon reclaim); --swap 0
  // replays without one.
  machine.swap_bytes = spec.swap_bytes == kNoSwap ? 0
                       : spec.swap_bytes != 0     ? spec.swap_bytes
                                                  : meta.recorder.swap_bytes;
  if (Status s = swap_device_for(spec, meta, &machine.swap_device); !s) return s;
  if (Status s = min_free_kbytes_for(reader, spec, machine.memory_bytes, &machine.min_free_kbytes);
      !s) {
    return s;
  }
  // --memcg-limit, or the limit of the cgroup the program was recorded in (format 1.14) unless
  // the policy turns memcg off (the way to replay such a trace without it).
  const kernelsim::KernelConfig config = config_for(meta, spec);
  if (spec.memcg_limit_bytes != 0 && config.memcg == kernelsim::MemcgCounterKind::kOff) {
    return Status::invalid_argument(
        "--memcg-limit: policy '" + spec.policy_name +
        "' sets memcg=off, and a limit needs a memory controller (memcg=page_counter)");
  }
  machine.memcg_limit_bytes = spec.memcg_limit_bytes != 0 ? spec.memcg_limit_bytes
                              : config.memcg != kernelsim::MemcgCounterKind::kOff
                                  ? meta.recorder.memcg_limit_bytes
                                  : 0;
  // The CMA area for contiguous allocations (kernelsim/mm/cma.h): --cma, else the kernel's
  // CMA_SIZE_MBYTES default; never more than the memory.
  machine.cma_bytes =
      std::min(machine.memory_bytes,
               spec.cma_bytes != 0 ? spec.cma_bytes : kernelsim::CMA_SIZE_MBYTES << 20);
  // A built-in profile by name, or a JSON file (calibrate output) by path.
  kernelsim::CostProfile costs;
  if (spec.costs) {
    costs = *spec.costs;
  } else if (Status s = resolve_cost_profile(spec.profile, &costs); !s) {
    return s;
  }
  if (preset != nullptr) kernelsim::apply_machine_costs(*preset, &costs);
  // A built-in profile's swap costs are its disk's; on zram (a recording made there, or
  // --swap-device zram) the device's own. A profile file's are used as the file gives them.
  if (machine.swap_device == kernelsim::SwapDevice::kSynchronous && !spec.costs &&
      kernelsim::find_cost_profile(spec.profile).has_value()) {
    kernelsim::use_zram_swap_costs(&costs);
  }
  std::string error;
  auto sim = kernelsim::Simulation::create(machine, costs, config, &error);
  // Simulation::create() refuses only its machine configuration (CPUs, sizes): a bad argument.
  if (!sim) return Status::invalid_argument("run " + spec.policy_name + ": " + error);
  set_files(meta, spec.cache, !policy_names_knob(spec.policy_name, "read_ahead_kb"), &sim->files());
  std::unique_ptr<RunTimeline> timeline;
  if (!spec.timeline_path.empty()) {
    if (Status st = RunTimeline::open(spec, *sim, &timeline); !st) return st;
  }

  // Virtual time zero is the trace's first event.
  uint64_t origin = UINT64_MAX;
  for (const formats::ChunkRef& c : reader.chunks()) origin = std::min(origin, c.first_ts);
  if (origin == UINT64_MAX) origin = 0;

  const std::vector<uint32_t> cpu_of = place(meta, spec.placement, machine.nr_cpus);
  std::vector<SourceCounters> counters(meta.threads.size());
  const std::vector<bool> by_clone = started_by_clone(meta);
  std::vector<TraceOpSource*> sources;
  for (uint32_t s = 0; s < meta.threads.size(); ++s) {
    const auto ids = reader.chunks_of_stream(s);
    if (ids.empty()) continue;
    const uint64_t start = reader.chunks()[ids.front()].first_ts - origin;
    auto source = std::make_unique<TraceOpSource>(
        EventStream(cache, reader, s), spec.timing, origin, &counters[s],
        formats::GapCosts::from(meta.recorder), spec.rewrites);
    TraceOpSource* raw = source.get();
    // A thread whose parent's stream holds its clone starts when that clone replays (format
    // 1.4); others at their recorded start.
    const formats::ThreadInfo& info = meta.threads[s];
    kernelsim::Task& task =
        by_clone[s]
            ? sim->spawn_thread_on_clone(info.tid, mm_of(info, s), cpu_of[s], std::move(source))
            : sim->spawn_thread(mm_of(info, s), cpu_of[s], std::move(source),
                                kernelsim::SimTime::ns(static_cast<int64_t>(start)));
    raw->attach(&task);
    if (timeline) timeline->label_task(task.id(), meta.threads[s]);
    sources.push_back(raw);
  }
  sim->run();
  // A run that failed (a damaged chunk) leaves no timeline: the abandoned temporary is removed
  // and an earlier file at the path stays (issue 15).
  for (const TraceOpSource* s : sources) {
    if (!s->status()) return s->status();
  }
  if (timeline) {
    if (Status st = timeline->close(sim->now()); !st) return st;
  }
  if (sim->nr_live_tasks() != 0) {
    return Status::internal("run " + spec.policy_name + " on " + std::to_string(machine.nr_cpus) +
                            " CPUs: " + std::to_string(sim->nr_live_tasks()) +
                            " tasks never finished (model deadlock)");
  }
  result->effective_policy = format_policy_knobs(sim->config(), spec.rewrites);
  result->cpus = machine.nr_cpus;
  result->memory_bytes = machine.memory_bytes;
  result->swap_bytes = machine.swap_bytes;
  result->swap_device = machine.swap_device;
  result->memcg_limit_bytes = machine.memcg_limit_bytes;
  result->min_free_kbytes = sim->page_alloc().zone().min_free_kbytes;
  collect(*sim, result);
  collect_oom_kills(*sim, meta, result);
  for (const SourceCounters& c : counters) {
    result->events_replayed += c.events;
    result->open_loop_lateness.merge(c.open_loop_lateness);
    // Present only when they count something, so traces without tracing costs or kernel-mode
    // faults give the results they always gave.
    auto add = [result](std::string_view key, uint64_t n) {
      if (n != 0) result->counters[std::string(key)] += n;
    };
    add(kThinkRemovedCounter, c.gaps.removed_ns);
    add(kThinkClampedCounter, c.gaps.clamps);
    add(kKernelModeFaultsCounter, c.kernel_mode_faults);
    add(kFailedCallsCounter, c.failed_calls);
    add(kRewriteAdviceCounter, c.rewrites.advice_rewritten);
    add(kRewriteBatchedCounter, c.rewrites.calls_batched);
    add(kRewriteVectorsCounter, c.rewrites.vector_calls_made);
    add(kRewriteSplitCounter, c.rewrites.vector_calls_split);
    for (int k = 0; k < formats::kEventKindCount; ++k) {
      if (c.skipped[k] == 0) continue;
      const auto kind = static_cast<formats::EventKind>(k);
      // Observations are never replayed by design; other kinds wait for their model parts.
      result->counters[kind == formats::EventKind::kObservation
                           ? std::string(kObservationsCounter)
                           : std::string(kSkippedCounterPrefix).append(formats::kind_name(kind))] +=
          c.skipped[k];
    }
  }
  return Status::ok();
}

}  // namespace mmreplay::replay
