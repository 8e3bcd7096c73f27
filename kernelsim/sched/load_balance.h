// Newly idle balancing (kernel/sched/fair.c: sched_balance_newidle(), idle_balance() before
// 6.10): a CPU about to go idle pulls a task that waits on another CPU's run queue.
//
// The model places a task when it is created, woken or preempted and, without this, it stays on
// that CPU: a CPU can idle beside one where two tasks take turns (make -j2 on two CPUs: one cc1
// queued behind another for 95 ms while the other CPU idled, 2026-12-07). The kernel's answer to
// that case is the balance pick_next_task_fair() runs before it lets a CPU idle:
//  (1) 2.6.35-5.12 only when the CPU's idle periods average at least sysctl_sched_migration_cost
//      (rq->avg_idle, updated at each wake-up of an idle CPU): a CPU that idles for a few
//      microseconds between a pipe's reads and writes does not look; 5.13+ (Vincent Guittot's
//      "sched/fair: Remove sysctl_sched_migration_cost condition") when they average more than
//      the balance itself costs (sd->max_newidle_lb_cost, microseconds), which the model takes
//      as always;
//  (2) from the busiest CPU, the one with the most tasks waiting behind its running one (the
//      nearest by topology among equals: the sched domains are walked from the SMT siblings up);
//  (3) the task there that ran least recently and is not cache hot (task_hot(): it left a CPU
//      less than sysctl_sched_migration_cost ago), detach_tasks() taking one for an imbalance of
//      one task;
//  (4) EEVDF: it leaves its old queue with its lag and is placed on the new one with it
//      (dequeue_entity() / place_entity() across a migration).
// A CPU already idle is not looking: the busy CPU's tick kicks it (nohz_balancer_kick()), and it
// balances as (2)-(4) say. The model kicks at the tick that ends a slice with tasks waiting
// (Scheduler::preempt()); the idle CPU takes the task after its wake-up latency.
// Knob `idle_balance`: off (the model before), newidle (5.13+), newidle-avg-idle (before 5.13).
// Not modelled: select_idle_sibling()'s scan for an idle CPU at a wake-up, fork and exec
// balancing, balancing between busy CPUs (nr_running 3 against 1), the kick's IPI and the time
// the balance itself takes.

#pragma once

#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Simulation;
class Task;
struct Cpu;

// Models sched_balance_newidle() on `this_cpu`, whose run queue is empty at `at`: the task taken
// from another CPU's run queue (detached there, EEVDF lag and all, and now this CPU's, not yet
// running), or nullptr when none is to be pulled.
// REQUIRES: this_cpu idle-bound (no curr, empty run queue); knob idle_balance not off.
Task* sched_balance_newidle(Simulation& sim, Cpu& this_cpu, SimTime at);

// Models nohz_balancer_kick() at the tick of `busy`, where tasks wait behind the running one
// (nr_running >= 2) while another CPU idles: the kicked idle CPU's balance (sched_balance_rq()
// from nohz_idle_balance()) takes busy's least recently run waiting task, as
// sched_balance_newidle() would. The nearest idle CPU takes it; *idle_cpu says which. nullptr
// when no CPU idles or no task may move. REQUIRES: knob idle_balance not off.
Task* nohz_idle_balance(Simulation& sim, Cpu& busy, SimTime at, Cpu** idle_cpu);

// update_avg() of rq->avg_idle when idle `cpu` gets a task at `at` (ttwu_do_wakeup()): an
// eighth of the way to the idle period that ends, capped at twice the migration cost (the
// kernel's cap is rq->max_idle_balance_cost doubled, which a balance that takes well under it
// keeps at its floor).
void update_avg_idle(Cpu& cpu, SimTime at);

}  // namespace mmreplay::kernelsim
