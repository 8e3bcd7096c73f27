// Cpu: one virtual CPU: what runs on it, its run queue, its TLB state and its counters.
//
// Invariants (checked by the scheduler and arch/x86/tlb.cpp in debug builds):
//  (1) curr, when set, is a task bound to this CPU in state running or spinning; a task in the
//      run queue is runnable and bound here.
//  (2) loaded_mm != nullptr  <=>  this CPU's bit is set in loaded_mm->cpumask.
//  (3) is_lazy implies curr == nullptr or curr is a task of another context switching in; an
//      idle CPU keeps its last mm loaded (lazy TLB) until something makes it leave.
//  (4) pending_steal is interrupt time not yet charged to curr, in start order; it is empty while
//      idle.
//  (5) call_single_queue is empty and no reschedule IPI is pending while irqs_disabled == 0
//      (arch/x86/irqflags.h): IPIs wait only while interrupts are off, and re-enabling them runs
//      the queue and takes the reschedule.

#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "common/counters.h"
#include "kernelsim/arch/x86/stlb.h"
#include "kernelsim/constants.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class CsdWait;
struct Cpu;
class Mm;
class Task;

// An IPI handler (smp_call_func_t): does its state change on `target` given the time it starts
// and returns its duration. The interrupt's entry (ipi_handler_entry, once for all the csds one
// interrupt takes) is kernel/smp.cpp's, not the handler's. `info` is the initiator's, as the csd's
// info pointer: the initiator waits in csd_lock_wait() until the last handler has run, so it
// outlives every call. `sent` is when the sender sent this IPI (tracing).
using IpiHandler = SimTime (*)(const void* info, Cpu& target, SimTime start, SimTime sent);

// A call_single_data entry queued on a CPU whose interrupts are off (kernel/smp.c:
// __smp_call_single_queue()): the handler runs when the CPU re-enables them
// (flush_smp_call_function_queue()); `wait` is the initiator spinning in csd_lock_wait().
struct CallSingleData {
  SimTime sent;     // when the sender queued it (llist_add()) and sent the IPI
  SimTime arrival;  // when the IPI reached the CPU
  bool ipi_sent;    // false: the queue held a csd already, so no IPI went (csd_ipi=if-empty)
  IpiHandler func;
  const void* info;
  CsdWait* wait;
};

// Per-CPU counters, as /proc/interrupts (TLB shootdowns) and /proc/vmstat (nr_tlb_*) count them.
// One field per line of MMREPLAY_CPU_COUNTERS (common/counters.h, where each is documented).
struct CpuCounters {
#define MMREPLAY_CPU_COUNTER_FIELD(field, key, doc) uint64_t field = 0;
  MMREPLAY_CPU_COUNTERS(MMREPLAY_CPU_COUNTER_FIELD)
#undef MMREPLAY_CPU_COUNTER_FIELD
  // Adds every counter of `o` (totals over CPUs).
  CpuCounters& operator+=(const CpuCounters& o) {
#define MMREPLAY_CPU_COUNTER_ADD(field, key, doc) field += o.field;
    MMREPLAY_CPU_COUNTERS(MMREPLAY_CPU_COUNTER_ADD)
#undef MMREPLAY_CPU_COUNTER_ADD
    return *this;
  }
  friend bool operator==(const CpuCounters&, const CpuCounters&) = default;
};

// The fields in list order, beside common::kCpuCounterInfo.
inline constexpr uint64_t CpuCounters::*kCpuCounterFields[] = {
#define MMREPLAY_CPU_COUNTER_MEMBER(field, key, doc) &CpuCounters::field,
    MMREPLAY_CPU_COUNTERS(MMREPLAY_CPU_COUNTER_MEMBER)
#undef MMREPLAY_CPU_COUNTER_MEMBER
};
static_assert(sizeof(CpuCounters) == common::kCpuCounterCount * sizeof(uint64_t),
              "every CpuCounters field is declared in MMREPLAY_CPU_COUNTERS");

// Calls f(const common::CounterInfo&, uint64_t value) for every counter, in list order.
template <typename F>
void for_each_counter(const CpuCounters& c, F&& f) {
  common::for_each_listed_counter(c, kCpuCounterFields, common::kCpuCounterInfo, f);
}

// One interrupt handler's time on a CPU, not yet charged to the task running there.
struct IrqSteal {
  SimTime start;
  SimTime duration;
};

// A CPU's pending handler time: a FIFO drained from the front that keeps its storage (a
// std::deque allocated and freed a block as a 64-CPU shootdown's handlers came and went).
class IrqStealQueue {
 public:
  bool empty() const { return head_ == items_.size(); }
  IrqSteal& front() { return items_[head_]; }
  void pop_front() {
    if (++head_ == items_.size()) {
      clear();
    } else if (head_ >= kCompactAt && 2 * head_ >= items_.size()) {
      // A task that never catches up with its handlers never empties the queue: drop the
      // consumed half rather than grow for the whole run.
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  // Queues handler time `s`. A handler that starts as the last one queued ends extends it: a
  // task charged the first from the moment its clock reaches its start reaches the second's
  // start by that charge, so one entry charges the same time at the same clock (a 64-CPU
  // shootdown queues its handlers back to back).
  void push_back(const IrqSteal& s) {
    if (!empty()) {
      IrqSteal& last = items_.back();
      if (last.start + last.duration == s.start) {
        last.duration += s.duration;
        return;
      }
    }
    items_.push_back(s);
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }
  const IrqSteal* begin() const { return items_.data() + head_; }
  const IrqSteal* end() const { return items_.data() + items_.size(); }

 private:
  static constexpr size_t kCompactAt = 64;

  std::vector<IrqSteal> items_;
  size_t head_ = 0;
};

struct Cpu {
  explicit Cpu(uint32_t cpu_id) : id(cpu_id) {}

  // Handler time before `t` overlapped a spin that cost the spinner nothing: only what runs
  // past `t` stays to be charged.
  void forgive_steal_before(SimTime t) {
    while (!pending_steal.empty() && pending_steal.front().start < t) {
      IrqSteal& s = pending_steal.front();
      const SimTime end = s.start + s.duration;
      if (end > t) {
        s = IrqSteal{t, end - t};
        break;
      }
      pending_steal.pop_front();
    }
  }

  uint32_t id;
  Task* curr = nullptr;        // running (or spinning) task, nullptr when idle
  std::deque<Task*> runqueue;  // runnable tasks waiting for this CPU, in the order queued

  // arch/x86 cpu_tlbstate: the mm whose translations this CPU may cache.
  Mm* loaded_mm = nullptr;
  bool is_lazy = false;
  uint64_t loaded_mm_tlb_gen = 0;  // mm->tlb_gen this CPU's TLB is up to date with

  SimTime irq_busy_until;  // end of the last interrupt handler queued here
  // When the last interrupt here started (acking the APIC: an IPI landing later sets IRR) and when
  // it takes call_single_queue (its entry's end): a csd queued by then runs in it without an
  // entry of its own (kernel/smp_ipi.h). Before the first interrupt, no csd is ever queued early
  // enough to join one.
  SimTime irq_started_at = SimTime::ns(-1);
  SimTime irq_collected_at = SimTime::ns(-1);
  // When an IPI whose csd an interrupt had already taken landed after that interrupt acked the
  // APIC (csd_ipi=always): the vector's IRR bit is set, and one more interrupt fires once the
  // running handler returns (infinite: none pending). Later IPIs fold into the same bit.
  SimTime irr_pending_at = SimTime::infinite();
  // When that interrupt fires: once the IPI is there and the running handler has returned.
  SimTime irr_fires_at() const { return max(irr_pending_at, irq_busy_until); }
  // Handler time not yet charged to curr (handlers on a CPU run one after another, so in start
  // order). curr is charged a handler once its clock reaches the handler's start: the handler
  // delays what the task does from then on, not work it had done before the IPI came.
  IrqStealQueue pending_steal;
  SimTime busy_since;  // when curr got this CPU (valid while curr != nullptr)
  // When a task woken onto this CPU while curr ran preempts curr (sched/time_slice.h
  // wakeup_preempt()); infinite: none. Reset when the CPU gets its next task.
  SimTime wakeup_preempt_at = SimTime::infinite();
  // The wakee of that preemption: the task the CPU's next pick takes (Scheduler::
  // pick_next_entity()); nullptr: none.
  Task* next_buddy = nullptr;
  SimTime idle_since;  // when it last went idle (valid while curr == nullptr; 0 at boot)
  // rq->avg_idle: the running average of this CPU's idle periods (sched/load_balance.h), which
  // gates its newly idle balancing.
  SimTime avg_idle = SimTime::ns(2 * sysctl_sched_migration_cost_ns);
  // EEVDF (sched/eevdf_lag.h): sleepers still queued by DELAY_DEQUEUE, and the queue's
  // avg_vruntime() when it last emptied, where a wakee onto an empty queue is placed.
  std::vector<Task*> eevdf_delayed;
  SimTime eevdf_zero_vruntime;

  // local_irq_save() nesting depth: > 0 while the task here holds a spin_lock_irq*() lock (or
  // spins for one). IPIs arriving meanwhile wait in call_single_queue.
  int irqs_disabled = 0;
  std::vector<CallSingleData> call_single_queue;
  // When a reschedule IPI sent while interrupts were off lands (RESCHEDULE_VECTOR's IRR bit;
  // infinite: none): its interrupt fires at local_irq_restore() or when it lands, whichever is
  // later (arch/x86/irqflags.h). Later ones fold into the same bit.
  SimTime resched_pending_at = SimTime::infinite();

  CpuCounters counters;

  // The translations it holds (arch/x86/stlb.h). Last, apart from the fields every IPI reads.
  Stlb stlb;
};

}  // namespace mmreplay::kernelsim
