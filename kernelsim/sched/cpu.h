// Cpu: one virtual CPU: what runs on it, its run queue, its TLB state and its counters.
//
// Invariants (checked by the scheduler and arch/x86/tlb.cpp in debug builds):
//  (1) curr, when set, is a task bound to this CPU in state running or spinning; a task in the
//      run queue is runnable and bound here.
//  (2) loaded_mm != nullptr  <=>  this CPU's bit is set in loaded_mm->cpumask.
//  (3) is_lazy implies curr == nullptr or curr is a task of another context switching in; an
//      idle CPU keeps its last mm loaded (lazy TLB) until something makes it leave.
//  (4) pending_steal is interrupt time not yet charged to curr; it is zero while idle.

#pragma once

#include <cstdint>
#include <deque>

#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Mm;
class Task;

// Per-CPU counters, as /proc/interrupts (TLB shootdowns) and /proc/vmstat (nr_tlb_*) count them.
struct CpuCounters {
  uint64_t ipis_sent = 0;            // shootdown IPIs this CPU sent
  uint64_t ipis_received = 0;        // shootdown IPIs handled here ("TLB shootdowns" row)
  uint64_t tlb_local_single = 0;     // INVLPGs on behalf of this CPU's own flushes (pages)
  uint64_t tlb_local_full = 0;       // full flushes of this CPU's own flushes
  uint64_t tlb_remote_single = 0;    // INVLPGs done in shootdown handlers here (pages)
  uint64_t tlb_remote_full = 0;      // full flushes done in shootdown handlers here
  uint64_t tlb_lazy_flushes = 0;     // full flushes on returning from lazy mode with a stale tlb_gen
  uint64_t leave_mm = 0;             // times this CPU left a lazy mm in a flush handler
  uint64_t context_switches = 0;
  uint64_t irq_ns = 0;               // time spent in shootdown handlers
  uint64_t busy_ns = 0;              // time a task ran (or spun) here, switch costs included
  friend bool operator==(const CpuCounters&, const CpuCounters&) = default;
};

struct Cpu {
  explicit Cpu(uint32_t cpu_id) : id(cpu_id) {}

  uint32_t id;
  Task* curr = nullptr;             // running (or spinning) task, nullptr when idle
  std::deque<Task*> runqueue;       // runnable tasks waiting for this CPU, FIFO

  // arch/x86 cpu_tlbstate: the mm whose translations this CPU may cache.
  Mm* loaded_mm = nullptr;
  bool is_lazy = false;
  uint64_t loaded_mm_tlb_gen = 0;   // mm->tlb_gen this CPU's TLB is up to date with

  SimTime irq_busy_until;           // end of the last interrupt handler queued here
  SimTime pending_steal;            // interrupt time to charge to curr at its next sync point
  SimTime busy_since;               // when curr got this CPU (valid while curr != nullptr)

  CpuCounters counters;
};

}  // namespace mmreplay::kernelsim
