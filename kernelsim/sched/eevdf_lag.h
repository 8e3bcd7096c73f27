// EEVDF's lag, as kernel/sched/fair.c (6.6+) keeps it, for the one decision the model takes from
// it: whether a wake-up preempts the running task at once.
//
// Every task weighs the same (nice 0), so a task's vruntime is the CPU time it has had
// (Task::vruntime). A CPU's queue is its running task, its run queue and the sleepers still queued
// by DELAY_DEQUEUE (6.12); their mean vruntime is avg_vruntime() V, and a task is eligible while
// its vruntime is at most V (lag V - v >= 0: it has had no more than its share).
//  - A task that sleeps leaves with its lag (update_entity_lag(), clamped to max(2 slices, a
//    tick)); one that leaves ineligible stays queued (DELAY_DEQUEUE) while the others run, until
//    its lag is back to 0 (DELAY_ZERO: then it leaves with none) or it wakes.
//  - A wakee is placed with its lag kept (place_entity(), PLACE_LAG: v = V - lag (n + 1) / n for
//    n entities queued), or, still queued, where it was (requeue_delayed_entity(), its lag back
//    to 0 if that is positive by then).
//  - It preempts the running task at once when it is eligible so placed (PICK_BUDDY on the
//    wake-up's next buddy), else it waits for the tick that ends the running task's slice.
// That is 6.12+ (knob eevdf_wakeup=eligible). 6.6-6.11 (eevdf_wakeup=parity) had no delayed
// dequeue, so a sleeper keeps whatever lag it left with, and the wakee preempts only when it is
// what pick_eevdf() would pick now: eligible, the earliest deadline among the queue's eligible
// tasks, the running one included while it is eligible, which besides keeps the CPU as long as
// its deadline is the one it was picked with (RUN_TO_PARITY: until its vruntime reaches it).
// Measured on the project's 6.18 guest (2026-12-07; /proc/sched_debug's features are not readable
// there): a thread pinned beside a spinner preempted it at once on every one of 20,000 wake-ups
// from 20 us sleeps (overshoot 70 us at the median and 90 at the 99th percentile, as alone: the
// timer's slack and the wake-up), where lag alone (no next buddy: the running task keeps its
// slice while it is eligible) would have made it wait once its lag ran out; a thread that worked
// 1 ms of CPU between 20 us sleeps waited for a tick on more than one wake-up in ten (90th
// percentile 3.7 ms), the ineligible wakee.
//
// The pick (pick_eevdf()): the eligible task with the earliest virtual deadline, a task's
// deadline being its vruntime when it got its slice plus the slice (update_deadline(): renewed
// when its vruntime reaches it; place_entity(): a wakee placed afresh gets a whole one, a new task
// half, PLACE_DEADLINE_INITIAL; a delayed sleeper requeued where it was keeps its own). A wake-up
// that preempts hands the CPU to its wakee (Cpu::next_buddy). Ticks end slices as
// sched/time_slice.h says; CFS (sched=cfs) keeps its own wake-up rule there.

#pragma once

#include <cstddef>
#include <optional>

#include "kernelsim/policy/kernel_config.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

struct Cpu;
class Task;

// Where a wakee goes in its CPU's queue, whether it is eligible there, and whether the running
// task (if any) still is once the wakee counts in V.
struct EevdfPlacement {
  SimTime vruntime;
  SimTime deadline = SimTime::zero();  // a slice past vruntime; kept: the task's own
  bool eligible = false;
  bool curr_eligible = true;
  bool kept = false;  // a delayed sleeper requeued where it was: its deadline stays
};

// The placement waking `t` on its CPU at `at` gives, with the deadline of a `slice`.
// REQUIRES: t sleeping or new, t not queued as delayed on another CPU (eevdf_leave_delayed()).
EevdfPlacement eevdf_place(const Cpu& cpu, const Task& t, SimTime at, SimTime slice);

// Puts `t` where eevdf_place() said: enqueue_entity() (a delayed sleeper leaves the delayed list:
// it is runnable again), with the placement's deadline (half a `slice` for a `new_task`).
void eevdf_enqueue(Cpu& cpu, Task& t, const EevdfPlacement& p, SimTime slice, bool new_task);

// update_deadline(): the task leaving its CPU has run its vruntime up to its deadline: the next
// slice's deadline is counted from there. (The kernel renews it at the tick that finds it
// reached; the model when the task leaves the CPU, which for a task preempted at that tick is
// the same instant.)
void eevdf_update_deadline(Task& t, SimTime slice);

// entity_eligible(): whether `t`, in `cpu`'s queue, has had no more than its share at `at`.
bool eevdf_eligible(const Cpu& cpu, const Task& t, SimTime at);

// pick_eevdf() with no running task (the one leaving is back in the run queue or gone): the
// position in cpu.runqueue of its eligible task with the earliest deadline, the first queued
// among equals; nullopt when none is (a delayed sleeper below V, not yet settled by
// eevdf_settle_delayed(), can hold V under them all). REQUIRES: !cpu.runqueue.empty().
std::optional<size_t> eevdf_pick(const Cpu& cpu, SimTime at);

// Whether `wakee` so placed preempts the running task at `at` (check_preempt_wakeup_fair()),
// under `mode`; `slice`: the base slice (a running task past its deadline gets the next one).
// The wakee may be in cpu.runqueue already or not. REQUIRES: cpu.curr != nullptr.
bool eevdf_wakeup_preempts(const Cpu& cpu, const Task& wakee, const EevdfPlacement& p, SimTime at,
                           EevdfWakeup mode, SimTime slice);

// `t` has just left its CPU to sleep (Scheduler::sleep(), after put_prev_task()): its lag, or,
// with `delay_dequeue` (6.12+), the delayed list when it leaves ineligible with others queued.
// `limit`: the lag's clamp.
void eevdf_dequeue_sleeper(Cpu& cpu, Task& t, SimTime at, SimTime limit, bool delay_dequeue);

// Delayed sleepers whose lag is back to 0 leave with none (DELAY_ZERO); the kernel dequeues them
// at the next pick, the model when the queue is next looked at.
void eevdf_settle_delayed(Cpu& cpu, SimTime at);

// `t`, delayed on `cpu`, wakes elsewhere (select_task_rq()): it leaves with its lag there.
void eevdf_leave_delayed(Cpu& cpu, Task& t, SimTime at, SimTime limit);

// The CPU goes idle: the delayed sleepers leave with their lags (pick_next_entity() dequeues
// them), and the queue's V stays as the anchor the next wakee is placed at.
void eevdf_cpu_idles(Cpu& cpu, SimTime at, SimTime limit);

}  // namespace mmreplay::kernelsim
