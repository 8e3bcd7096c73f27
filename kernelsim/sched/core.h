// Scheduler: binds tasks to virtual CPUs, time-slices, sleeps and wakes them.
//
// Models the parts of kernel/sched/core.c the mm paths feel:
//  - each task is bound to one CPU (as with sched_setaffinity to a single CPU);
//  - more tasks than CPUs time-share: at a sync point (user-mode time reaches one every slice,
//    as the timer tick would), a task that has run a full slice
//    (sysctl_sched_base_slice) with others waiting and preemption enabled goes to the back of the
//    run queue; every switch costs context_switch (+ switch_mm when the mm changes);
//  - a task that sleeps (rwsem wait, nanosleep) frees its CPU at once;
//  - a woken task runs after wakeup_latency when its CPU is idle, else queues; a CPU idle for
//    deep_idle_after or longer takes deep_idle_exit more to leave its idle state;
//  - an idle CPU keeps its last mm loaded in lazy-TLB mode (enter_lazy_tlb()), until the task it
//    was given starts to run: the mm switch is the first thing that task does (switch_mm_in()),
//    so a wake-up's latency leaves the CPU lazy and flushes meanwhile skip it;
//  - waking a task whose CPU is another, idle one costs the waker an IPI's send (ttwu_ipi()),
//    and deep_idle_ipi_send more when that CPU is in its deep state (a guest's halted vCPU).
//  - a sync wake-up may pull the wakee to the waker's CPU (sched/wake_affine.h).
// A wake-up's preemption of a running task lands at once when that task is in user mode (its run
// ahead of global time is cut there: Task::cut_user_run()), after the waker's reschedule IPI when
// the waker is on another CPU; in the kernel it lands at the task's next preemption point (the
// kernel is not preemptible: PREEMPT_NONE). Either way that IPI's interrupt entry is the running
// task's cost (interrupt time); with the CPU's interrupts off, once they are on again
// (arch/x86/irqflags.h). A CPU about to idle pulls a task waiting on another CPU, and a tick
// that ends a slice with tasks waiting kicks an idle CPU to take one (sched/load_balance.h);
// balancing between busy CPUs is not modelled.
//
// Invariants: those of Cpu (sched/cpu.h) (1)-(4), asserted here.

#pragma once

#include <cstddef>
#include <cstdint>

#include "kernelsim/sched/eevdf_lag.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Simulation;
class Task;
struct Cpu;

class Scheduler {
 public:
  explicit Scheduler(Simulation& sim) : sim_(sim) {}

  // Models try_to_wake_up(): `t` becomes runnable at `at`. `recorded_wait`: the end of a wait
  // whose recorded length already holds the recording machine's wake-up, so an idle CPU's deep
  // exit is not charged again (wakeup_latency still is, as before idle depth).
  // REQUIRES: t sleeping or new; at >= now().
  void wake_up_process(Task& t, SimTime at, bool recorded_wait = false);
  // Models try_to_wake_up() of `t` by `waker`: its IPI (ttwu_ipi()), then wake_up_process() at
  // the waker's clock. REQUIRES: waker on its CPU; t sleeping.
  void try_to_wake_up(Task& waker, Task& t);
  // The same for `t` in an interruptible sleep (futex, a wait for a child's exit): its IPI, then
  // the event that ends the sleep (Task::wake_arg()) at the waker's clock.
  // REQUIRES: waker on its CPU; t asleep in an interruptible sleep.
  void wake_sleeper(Task& waker, Task& t);
  // Models select_task_rq() + set_task_cpu() on a wake-up of `p` by `waker` (try_to_wake_up()
  // with `wake_flags`): p moves to the CPU sched/wake_affine.h chooses before it is woken.
  // REQUIRES: p sleeping; waker on its CPU.
  void select_task_rq(Task& p, const Task& waker, uint32_t wake_flags);
  // A spinning task (still on its CPU) got what it spun for at `at` and continues.
  // REQUIRES: t.state() == kSpinning.
  void resume_spinner(Task& t, SimTime at);
  // Models schedule() from a task going to sleep: its CPU is free from t.clock() on.
  // REQUIRES: t on its CPU.
  void sleep(Task& t);
  // Models context_switch()'s switch_mm_irqs_off() for `t`, which has got its CPU: done as it
  // starts to run, not when it was picked, so that until then (a wake-up's latency, a context
  // switch) the CPU keeps the mm it had, lazily after idle, and flushes meanwhile skip it as they
  // skip any lazy CPU. Returns false when the switch takes time: t's run is queued again at its
  // clock. REQUIRES: t on its CPU, at its first run since run_on().
  bool switch_mm_in(Task& t);
  // Models preemption at a slice end. REQUIRES: t.should_preempt().
  void preempt(Task& t);
  // Models do_exit()'s final schedule(). REQUIRES: t on its CPU.
  void exit(Task& t);

 private:
  // Models the IPI try_to_wake_up() sends for a wakee whose CPU is another, idle one
  // (ttwu_queue_wakelist() -> send_call_function_single_ipi(); smp_send_reschedule() without
  // the wake list): `waker` pays ipi_send for the APIC write, before the wake-up. An idle CPU
  // that polls (MachineConfig::idle_polls: MWAIT) gets none: the waker pays for moving the line
  // of its thread flags instead (set_nr_if_polling()). A busy CPU gets one only when the wakee
  // preempts its task (check_preempt_wakeup() -> resched_curr() -> smp_send_reschedule()): the
  // waker pays the same send, and the preemption lands once the IPI has (wake_up_process()). For
  // try_to_wake_up() and wake_sleeper(). REQUIRES: waker on its CPU.
  void ttwu_ipi(Task& waker, Task& wakee);
  // Whether waking `wakee` now, from `waker`, preempts the task running on the wakee's CPU
  // (preempts_curr()). REQUIRES: wakee sleeping.
  bool wakeup_preempts(const Task& waker, Task& wakee);
  // Models check_preempt_wakeup(): whether a wakee that slept at `slept` and wakes at `at`
  // preempts the task running on `cpu` at once. CFS: sched/time_slice.h wakeup_preempt(); EEVDF:
  // by where it is `placed` (sched/eevdf_lag.h, knob eevdf_wakeup). REQUIRES: cpu.curr != nullptr.
  bool preempts_curr(const Cpu& cpu, const Task& wakee, const EevdfPlacement& placed, SimTime slept,
                     SimTime at) const;
  // EEVDF: where waking `t` at `at` places it on its CPU (sched/eevdf_lag.h), once a delayed
  // sleeper has left the queue of the CPU it slept on and sleepers due to leave its own have.
  EevdfPlacement eevdf_placement(Task& t, SimTime at);
  // Counts t's switch out of its CPU in its CPU's counters (sched/core.cpp says which).
  void count_switch_out(const Task& t, bool preempted);
  // `t` leaves its CPU at t.clock(); owners of spun-on rwsems let spinners go.
  void put_prev_task(Task& t);
  // The CPU picks its next task, or goes idle in lazy-TLB mode.
  void pick_next_task(Cpu& cpu, SimTime at);
  // Which task of `cpu`'s run queue pick_next_task() takes (its position): the preempting wakee,
  // else EEVDF's earliest eligible deadline, or CFS's queue order. REQUIRES: run queue not empty.
  size_t pick_next_entity(Cpu& cpu, SimTime at);
  // The time from a wake-up at `at` until idle `cpu` runs the wakee: wakeup_latency, and
  // deep_idle_exit beyond it when the CPU has been idle deep_idle_after or longer.
  SimTime idle_wakeup_latency(Cpu& cpu, SimTime at) const;
  // Whether `cpu` is idle at `at` and has been for deep_idle_after or longer, in a profile with a
  // deep state (deep_idle_exit or deep_idle_ipi_send).
  bool in_deep_idle(const Cpu& cpu, SimTime at) const;
  // `next` gets `cpu` at `at` after `cost`, and is queued to run; its mm switch waits for that
  // run (switch_mm_in()).
  void run_on(Cpu& cpu, Task& next, SimTime at, SimTime cost);

  Simulation& sim_;
};

}  // namespace mmreplay::kernelsim
