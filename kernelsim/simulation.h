// Simulation: one deterministic run of the model. Everything hangs off it -- there is no global
// mutable state, so many Simulations may run side by side on different host threads.
//
// It is the top-level assembly of the model: it builds every component (page allocator, LRU,
// memcgs, buffer heads, CMA, page cache, kswapd) over the floor of sim/ (virtual time, the event
// queue, tasks and their coroutines) and gives components their way to each other.
//
// Lifecycle: construct (machine, cost profile, KernelConfig) -> create mms and tasks (with op
// streams or, in tests, hand-written coroutine bodies) -> run() -> read stats(), lockstat(),
// cpu(i).counters. Same inputs give bit-identical results.
//
//   Simulation sim(MachineConfig{.nr_cpus = 4}, cost_profile_default(), KernelConfig{});
//   sim.spawn_thread(/*mm_id=*/1, /*cpu=*/0, std::make_unique<VectorOpSource>(ops));
//   sim.run();

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/fs/buffer.h"
#include "kernelsim/fs/file.h"
#include "kernelsim/fs/stream_sides.h"
#include "kernelsim/kernel/futex.h"
#include "kernelsim/locking/lockstat.h"
#include "kernelsim/mm/cma.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/page_alloc.h"
#include "kernelsim/mm/swapfile.h"
#include "kernelsim/mm/vmscan.h"
#include "kernelsim/policy/kernel_config.h"
#include "kernelsim/policy/policy_set.h"
#include "kernelsim/sched/core.h"
#include "kernelsim/sched/cpu.h"
#include "kernelsim/sched/topology.h"
#include "kernelsim/sim/event_queue.h"
#include "kernelsim/sim/op.h"
#include "kernelsim/sim/sim_floor.h"
#include "kernelsim/sim/stats.h"
#include "kernelsim/sim/task.h"
#include "kernelsim/sim/trace_sink.h"

namespace mmreplay::kernelsim {

struct MachineConfig {
  uint32_t nr_cpus = 4;                              // 1 .. NR_CPUS
  uint64_t memory_bytes = uint64_t{16} << 30;        // managed by the one zone
  uint64_t swap_bytes = 0;                           // one swap device; 0 = no swap
  SwapDevice swap_device = SwapDevice::kBlock;       // what it is (mm/swapfile.h)
  uint64_t fs_block_size = EXT4_DEFAULT_BLOCK_SIZE;  // block size of every file (fs/buffer.h)
  // vm.min_free_kbytes as an administrator sets it; 0 = the kernel's int_sqrt formula. A scaled
  // machine sets the full-size value x scale so the watermarks keep their share of memory.
  uint64_t min_free_kbytes = 0;
  uint64_t memcg_limit_bytes = 0;  // limit of each memcg; 0 = unlimited
  uint32_t memcg_nr_groups = 1;    // memcgs the mms share; 0 = one per mm
  uint64_t cma_bytes = 0;          // CMA area at the top of the zone (mm/cma.h); 0 = none
  // Sockets, cores and SMT siblings (sched/topology.h); the default is one socket without SMT,
  // where every cache-line transfer costs cacheline_transfer.
  CpuTopology topology{};
  // Each CPU's second-level TLB for 4 KiB pages (arch/x86/stlb.h); entries 0 = not modelled.
  StlbGeometry stlb{};
  // An idle CPU waits in MWAIT on its thread flags with TIF_POLLING_NRFLAG set (bare-metal x86:
  // mwait_idle_with_hints() of intel_idle's and ACPI's FFH states), so a waker sets need_resched
  // there and sends no IPI (set_nr_if_polling(), 3.16+, e3baac47f0e8). false: it halts (HLT in a
  // KVM guest, as this project's development guest; idle=halt; WFI on ARM) and waking it takes
  // an IPI (sched/core.h ttwu_ipi()).
  bool idle_polls = false;
};

class Simulation final : public SimFloor {
 public:
  // REQUIRES: machine valid (see create()).
  Simulation(const MachineConfig& machine, const CostProfile& costs, const KernelConfig& config);
  // nullptr and *error set when `machine` is not one the model can build (CPU count, block size,
  // CMA area larger than memory, a topology with a zero count).
  static std::unique_ptr<Simulation> create(const MachineConfig& machine, const CostProfile& costs,
                                            const KernelConfig& config, std::string* error);
  // The same with knobs as text ("key=value,..." or a policy "preset+knob=value"; "" = the
  // defaults), for tests and benchmarks that spell their configuration; nullptr and *error set on
  // an unknown preset, knob or value.
  static std::unique_ptr<Simulation> create(const MachineConfig& machine, const CostProfile& costs,
                                            std::string_view policy, std::string* error);
  ~Simulation();
  void trace_task_start(const Task& t) override;
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // ---- Building the workload ----
  // The mm with this id, created on first use.
  Mm& mm(uint32_t mm_id);
  Mm* find_mm(uint32_t mm_id) const;
  // Calls fn(Mm&) for every mm of the run, live or dead, in creation order.
  template <class Fn>
  void for_each_mm(Fn&& fn) const {
    for (const auto& m : mms_) fn(*m);
  }
  // A task bound to `cpu`, running in `mm` (may be nullptr), not started yet: call start().
  Task& create_task(uint32_t cpu, Mm* mm);
  // Starts a hand-written body on t at `start`; t exits when the body returns (tests, tools).
  // REQUIRES: t from create_task(), not started.
  void start_task(Task& t, Co<void> body, SimTime start = SimTime::zero());
  // A trace thread: a task of mm `mm_id` on `cpu` that runs the ops of `source` from `start`.
  Task& spawn_thread(uint32_t mm_id, uint32_t cpu, std::unique_ptr<OpSource> source,
                     SimTime start = SimTime::zero());
  // A trace thread created by another task's clone: it waits, not started, until a task runs
  // Op::clone(clone_key) (do_clone(), kernel/fork.h), which starts it at that task's clock, so
  // the child begins where its parent's replay is, not at its recorded time. Tasks waiting under
  // one key start in creation order. One that no clone ever claims (its parent was killed before
  // the clone) starts when nothing else is left to run.
  Task& spawn_thread_on_clone(uint64_t clone_key, uint32_t mm_id, uint32_t cpu,
                              std::unique_ptr<OpSource> source);
  // The last task created under `clone_key` by spawn_thread_on_clone(), started or not (do_wait()
  // looks the child up by it), or nullptr.
  Task* clone_task(uint64_t clone_key) const;
  // Recorded futex wake-ups and their waiters (kernel/futex.h).
  FutexWakes& futex_wakes() { return futex_wakes_; }
  // The first task waiting under `clone_key`, or nullptr.
  Task* clone_child(uint64_t clone_key) const;
  // Starts clone_child(clone_key) at `at`. REQUIRES: there is one; at >= now().
  void start_clone_child(uint64_t clone_key, SimTime at);

  // ---- Running ----
  // Runs until no event is left.
  void run();
  // Runs events up to and including time `t` (no task runs past `t`); returns true when events
  // remain.
  bool run_until(SimTime t);
  // User tasks started and not yet exited (non-zero after run() means a deadlock or a sleeper);
  // kernel threads (kswapd) are not counted.
  size_t nr_live_tasks() const;

  // ---- Results ----
  const Stats& stats() const { return stats_; }
  const LockStat& lockstat() const { return lockstat_; }
  const Cpu& cpu(uint32_t id) const { return cpus_[id]; }
  uint32_t nr_cpus() const { return static_cast<uint32_t>(cpus_.size()); }
  // Every knob's value (policy/kernel_config.h); model code reads the fields where it decides.
  const KernelConfig& config() const { return config_; }
  // Sum of per-CPU counters.
  CpuCounters cpu_totals() const;

  // ---- Model internals (components reach each other through these) ----
  const CostProfile& costs() const { return costs_; }
  // The knobs that are decision procedures (policy/policy_set.h).
  const PolicySet& policies() const { return policies_; }
  const MachineConfig& machine() const { return machine_; }
  // The CPUs' distances and what a line transfer or an IPI costs at each (sched/topology.h).
  const Topology& topology() const { return topology_; }
  LockStat& lockstat() { return lockstat_; }
  PageAllocator& page_alloc() { return *page_alloc_; }
  const PageAllocator& page_alloc() const { return *page_alloc_; }
  Cpu& cpu(uint32_t id) { return cpus_[id]; }
  Lruvec& lruvec() { return *lruvec_; }
  const Lruvec& lruvec() const { return *lruvec_; }
  SwapInfo& swap() { return swap_; }
  // Buffer heads and the per-CPU bh_lrus (fs/buffer.h).
  BufferCache& buffers() { return *buffers_; }
  const BufferCache& buffers() const { return *buffers_; }
  // What each file id is and whether it starts cached (fs/file.h); the replay fills it.
  FileTable& files() { return files_; }
  const FileTable& files() const { return files_; }
  // Which CPU each socket's other side ran on (fs/stream_sides.h).
  StreamSides& stream_sides() { return stream_sides_; }
  // The CMA area and the placement of movable pages in it (mm/cma.h).
  CmaArea& cma() { return *cma_; }
  const CmaArea& cma() const { return *cma_; }
  const SwapInfo& swap() const { return swap_; }
  // Memory cgroups and the per-CPU charge stocks (mm/memcontrol.h).
  MemcgSet& memcg() { return *memcg_; }
  const MemcgSet& memcg() const { return *memcg_; }
  // pgdat->kswapd, created on the first wakeup_kswapd() (mm/vmscan.h).
  Task* kswapd() const { return kswapd_; }
  void set_kswapd(Task* t) { kswapd_ = t; }
  Stats& stats() { return stats_; }
  VmCounters& vm() { return stats_.vm; }
  const std::vector<std::unique_ptr<Task>>& tasks() const { return tasks_; }
  // The page cache of read/write and its writeback (mm/filemap.h).
  PageCache& page_cache() { return *page_cache_; }
  const PageCache& page_cache() const { return *page_cache_; }
  // kswapd's nap timer and predictive-reclaim state (mm/vmscan.h).
  KswapdData& kswapd_data() { return *kswapd_data_; }

  // ---- Tracing (sim/trace_sink.h) ----
  // Attaches `sink` (not owned; nullptr detaches). Attach before the first task starts so every
  // track gets its label. Tracing never changes what the model does.
  void set_trace_sink(TraceSink* sink);

 private:
  MachineConfig machine_;
  CostProfile costs_;
  Topology topology_;
  KernelConfig config_;
  PolicySet policies_;
  LockStat lockstat_;
  Stats stats_;
  std::vector<Cpu> cpus_;
  Scheduler sched_;
  std::unique_ptr<PageAllocator> page_alloc_;
  std::unique_ptr<Lruvec> lruvec_;
  std::unique_ptr<BufferCache> buffers_;
  FileTable files_;
  StreamSides stream_sides_;
  std::unique_ptr<MemcgSet> memcg_;
  std::unique_ptr<CmaArea> cma_;
  SwapInfo swap_;
  Task* kswapd_ = nullptr;
  std::unique_ptr<PageCache> page_cache_;
  std::unique_ptr<KswapdData> kswapd_data_;
  std::vector<std::unique_ptr<Mm>> mms_;
  std::vector<std::unique_ptr<Task>> tasks_;
  // Trace threads waiting for their parent's clone (spawn_thread_on_clone()).
  struct CloneChild {
    Task* task;
    std::unique_ptr<OpSource> source;
  };
  std::multimap<uint64_t, CloneChild> clone_children_;
  std::map<uint64_t, Task*> clone_tasks_;
  FutexWakes futex_wakes_;
  SimTime next_counter_sample_;
  // Samples the vm counters into the sink when counter_interval() has passed (trace_counters.h).
  void sample_trace_counters(bool force);
  // Fires the interrupts still pending in IRR once no event is left (kernel/smp_ipi.h).
  void fire_pending_irqs();
};

}  // namespace mmreplay::kernelsim
