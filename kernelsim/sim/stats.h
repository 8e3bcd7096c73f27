// Stats: what a run produced, for tests and the replay layer.
//
// Per-operation latency histograms (ns, from the op's start on the task's clock to its end),
// vmstat-style counters and the virtual makespan. Per-CPU counters live in Cpu (sched/cpu.h) and
// per-lock figures in LockStat (locking/lockstat.h); Simulation gives access to all three.
// Everything compares with ==, so determinism is a one-line check.

#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/counters.h"
#include "kernelsim/sim/histogram.h"
#include "kernelsim/sim/op.h"

namespace mmreplay::kernelsim {

// vmstat-style counters of the whole machine: one field per line of MMREPLAY_VM_COUNTERS
// (common/counters.h, where each is documented), named after /proc/vmstat where an equivalent
// exists. Paths count by name: ++sim.vm().pgfault.
struct VmCounters {
#define MMREPLAY_VM_COUNTER_FIELD(field, key, doc) uint64_t field = 0;
  MMREPLAY_VM_COUNTERS(MMREPLAY_VM_COUNTER_FIELD)
#undef MMREPLAY_VM_COUNTER_FIELD
  friend bool operator==(const VmCounters&, const VmCounters&) = default;
};

// The fields in list order, beside common::kVmCounterInfo (vm_event_item beside vmstat_text[]).
inline constexpr uint64_t VmCounters::*kVmCounterFields[] = {
#define MMREPLAY_VM_COUNTER_MEMBER(field, key, doc) &VmCounters::field,
    MMREPLAY_VM_COUNTERS(MMREPLAY_VM_COUNTER_MEMBER)
#undef MMREPLAY_VM_COUNTER_MEMBER
};
static_assert(sizeof(VmCounters) == common::kVmCounterCount * sizeof(uint64_t),
              "every VmCounters field is declared in MMREPLAY_VM_COUNTERS");

// Calls f(const common::CounterInfo&, uint64_t value) for every counter, in list order.
template <typename F>
void for_each_counter(const VmCounters& vm, F&& f) {
  common::for_each_listed_counter(vm, kVmCounterFields, common::kVmCounterInfo, f);
}

// One OOM kill, what the kernel's "Killed process" line reports (mm/oom_kill.c
// __oom_kill_process()), taken at the kill, before the reaper.
struct OomKillRecord {
  SimTime at;               // the kill, on the allocating task's clock
  uint32_t victim_mm = 0;   // the victim process (its mm id)
  uint32_t invoked_by = 0;  // the process whose allocation or charge ran the OOM killer
  uint32_t memcg_id = 0;    // the group for a memcg OOM; 0: machine-wide (CONSTRAINT_NONE)
  uint64_t anon_rss = 0;    // pages: MM_ANONPAGES
  uint64_t file_rss = 0;    // MM_FILEPAGES
  uint64_t swapents = 0;    // MM_SWAPENTS
  uint64_t pte_tables = 0;  // PTE pages (the kernel's pgtables counts upper levels too)
  friend bool operator==(const OomKillRecord&, const OomKillRecord&) = default;
};

struct Stats {
  std::array<Histogram, kOpKindCount> op_latency;
  std::array<uint64_t, kOpKindCount> op_count{};
  VmCounters vm;
  // Direct reclaim stalls: from an allocation entering __alloc_pages_direct_reclaim() to its
  // return, ns, once per stalled allocation (the replay layer's "direct_reclaim").
  Histogram direct_reclaim;
  std::vector<OomKillRecord> oom_kills;  // in the order they happened

  const Histogram& latency(OpKind k) const { return op_latency[static_cast<size_t>(k)]; }
  uint64_t count(OpKind k) const { return op_count[static_cast<size_t>(k)]; }
  void record_op(OpKind k, SimTime latency) {
    op_latency[static_cast<size_t>(k)].record(static_cast<uint64_t>(latency.count_ns()));
    ++op_count[static_cast<size_t>(k)];
  }
  friend bool operator==(const Stats&, const Stats&) = default;
};

}  // namespace mmreplay::kernelsim
