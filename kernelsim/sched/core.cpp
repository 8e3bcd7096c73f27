#include "kernelsim/sched/core.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <optional>
#include <utility>

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/kernel/smp_ipi.h"
#include "kernelsim/locking/rwsem.h"
#include "kernelsim/sched/eevdf_lag.h"
#include "kernelsim/sched/load_balance.h"
#include "kernelsim/sched/wake_affine.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

void Scheduler::wake_up_process(Task& t, SimTime at, bool recorded_wait) {
  assert(t.state() == TaskState::kSleeping || t.state() == TaskState::kNew);
  assert(at >= sim_.now());
  const bool fork = t.state() == TaskState::kNew;
  const SimTime slept = t.clock();  // where its clock stopped when it slept
  t.advance_to(at);
  Cpu& cpu = t.cpu();
  EevdfPlacement placed;
  if (sim_.time_slice().eevdf()) {
    placed = eevdf_placement(t, at);
    eevdf_enqueue(cpu, t, placed, sim_.time_slice().base_slice(), fork);
  }
  if (cpu.curr == nullptr) {
    update_avg_idle(cpu, t.clock());  // ttwu_do_activate(): the idle period ends here
    run_on(cpu, t, t.clock(),
           recorded_wait ? sim_.costs().wakeup_latency : idle_wakeup_latency(cpu, t.clock()));
    return;
  }
  t.set_state(TaskState::kRunnable);
  cpu.runqueue.push_back(&t);
  // check_preempt_wakeup(): the running task is preempted at its next preemption point from
  // then, which in user mode is at once (or once the waker's reschedule IPI lands).
  const Cpu* ipi_from = std::exchange(t.resched_ipi_from, nullptr);
  if (fork) return;
  if (!preempts_curr(cpu, t, placed, slept, at)) return;
  cpu.wakeup_preempt_at = min(cpu.wakeup_preempt_at, at);
  cpu.next_buddy = &t;
  if (ipi_from == nullptr) {
    if (cpu.curr->state() == TaskState::kRunning) cpu.curr->cut_user_run(at, SimTime::zero());
    return;
  }
  // The reschedule IPI interrupts the CPU whatever its task is doing (scheduler_ipi() only sets
  // need_resched), after the handler running there, if any: its entry is the task's cost. In a
  // user-mode run the interrupt's return schedules at once (the cut); in the kernel the task goes
  // on to its next preemption point (wakeup_preempt_at). With interrupts off the vector waits
  // in IRR for local_irq_enable() (arch/x86/irqflags.cpp), which takes it after the hold: a
  // handler never stretches an irq-off hold.
  const SimTime lands =
      max(at + sim_.topology().ipi_delivery(ipi_from->id, cpu.id), cpu.irq_busy_until);
  const SimTime entry = sim_.costs().ipi_handler_entry;
  if (cpu.curr->state() == TaskState::kRunning && cpu.curr->cut_user_run(lands, entry)) {
    account_irq_time(cpu, lands, entry);  // the cut run's clock paid for it
    return;
  }
  if (cpu.irqs_disabled > 0) {
    cpu.resched_pending_at = min(cpu.resched_pending_at, lands);
    return;
  }
  steal_irq_time(cpu, lands, entry);
}

bool Scheduler::preempts_curr(const Cpu& cpu, const Task& wakee, const EevdfPlacement& placed,
                              SimTime slept, SimTime at) const {
  if (sim_.time_slice().eevdf()) {
    return eevdf_wakeup_preempts(cpu, wakee, placed, at, sim_.config().eevdf_wakeup,
                                 sim_.time_slice().base_slice());
  }
  return sim_.time_slice().wakeup_preempt(slept, at) != SimTime::infinite();
}

EevdfPlacement Scheduler::eevdf_placement(Task& t, SimTime at) {
  const SimTime limit = sim_.time_slice().lag_limit();
  // A sleeper still queued where it slept and woken elsewhere leaves that queue first.
  if (t.eevdf_delayed_on != nullptr && t.eevdf_delayed_on != &t.cpu())
    eevdf_leave_delayed(*t.eevdf_delayed_on, t, at, limit);
  eevdf_settle_delayed(t.cpu(), at);
  return eevdf_place(t.cpu(), t, at, sim_.time_slice().base_slice());
}

bool Scheduler::wakeup_preempts(const Task& waker, Task& wakee) {
  if (wakee.cpu().curr == nullptr) return false;
  EevdfPlacement placed;
  if (sim_.time_slice().eevdf()) placed = eevdf_placement(wakee, waker.clock());
  return preempts_curr(wakee.cpu(), wakee, placed, wakee.clock(), waker.clock());
}

bool Scheduler::in_deep_idle(const Cpu& cpu, SimTime at) const {
  const CostProfile& c = sim_.costs();
  // The idle state was chosen when the CPU went idle; how long it has been there stands for the
  // governor's prediction (menu.c) or the host's polling window (kvm_vcpu_halt()).
  const bool has_deep_state =
      c.deep_idle_exit > SimTime::zero() || c.deep_idle_ipi_send > SimTime::zero();
  return has_deep_state && cpu.curr == nullptr && at - cpu.idle_since >= c.deep_idle_after;
}

SimTime Scheduler::idle_wakeup_latency(Cpu& cpu, SimTime at) const {
  const CostProfile& c = sim_.costs();
  if (c.deep_idle_exit > SimTime::zero() && in_deep_idle(cpu, at)) {
    ++cpu.counters.deep_idle_wakeups;
    return c.wakeup_latency + c.deep_idle_exit;
  }
  return c.wakeup_latency;
}

void Scheduler::ttwu_ipi(Task& waker, Task& wakee) {
  const Cpu& target = wakee.cpu();
  if (&target == &waker.cpu()) return;
  if (target.curr != nullptr) {
    // resched_curr() of a remote CPU whose task the wakee preempts: smp_send_reschedule().
    if (!wakeup_preempts(waker, wakee)) return;
    waker.work(sim_.costs().ipi_send);
    ++waker.cpu().counters.resched_ipis;
    wakee.resched_ipi_from = &waker.cpu();
    return;
  }
  // A CPU idling in MWAIT watches its thread flags: the waker's cmpxchg of need_resched moves
  // that line and wakes it, no IPI (send_call_function_single_ipi() -> set_nr_if_polling()).
  if (sim_.machine().idle_polls) {
    waker.work(sim_.topology().line_transfer(waker.cpu().id, target.id));
    ++waker.cpu().counters.wakeups_polling;
    return;
  }
  // A guest's IPI is an exit whose host side delivers it: to a vCPU thread still in the host's
  // halt polling that is a flag it sees, to one asleep past it a wake-up the host does before
  // the exit returns (calibrate: 4.8 against 15.4 us of FUTEX_WAKE on the PVM guest, 2026-12-07).
  SimTime send = sim_.costs().ipi_send;
  if (in_deep_idle(target, waker.clock())) send += sim_.costs().deep_idle_ipi_send;
  waker.work(send);
  ++waker.cpu().counters.wakeup_ipis;
}

void Scheduler::try_to_wake_up(Task& waker, Task& t) {
  ttwu_ipi(waker, t);
  wake_up_process(t, waker.clock());
}

void Scheduler::wake_sleeper(Task& waker, Task& t) {
  ttwu_ipi(waker, t);
  sim_.events().schedule(waker.clock(), &t, t.wake_arg());
}

void Scheduler::select_task_rq(Task& p, const Task& waker, uint32_t wake_flags) {
  Cpu& cpu = select_task_rq_fair(sim_, waker, p, wake_flags);
  if (&cpu != &p.cpu()) p.set_cpu(cpu);
}

void Scheduler::resume_spinner(Task& t, SimTime at) {
  assert(t.state() == TaskState::kSpinning && t.cpu().curr == &t);
  t.set_state(TaskState::kRunning);
  t.advance_to(at);
  sim_.events().schedule(t.clock(), &t, t.run_arg());
}

void Scheduler::sleep(Task& t) {
  count_switch_out(t, /*preempted=*/false);
  put_prev_task(t);
  t.set_state(TaskState::kSleeping);
  if (sim_.time_slice().eevdf()) {
    eevdf_settle_delayed(t.cpu(), t.clock());
    eevdf_dequeue_sleeper(t.cpu(), t, t.clock(), sim_.time_slice().lag_limit(),
                          sim_.config().eevdf_wakeup == EevdfWakeup::kEligible);
  }
  pick_next_task(t.cpu(), t.clock());
}

void Scheduler::preempt(Task& t) {
  assert(t.should_preempt());
  count_switch_out(t, /*preempted=*/true);
  put_prev_task(t);
  t.set_state(TaskState::kRunnable);
  t.cpu().runqueue.push_back(&t);
  // The tick that ended the slice found tasks waiting: it kicks an idle CPU to take one.
  Cpu* idle = nullptr;
  if (sim_.config().idle_balance != IdleBalanceMode::kOff) {
    if (Task* pulled = nohz_idle_balance(sim_, t.cpu(), t.clock(), &idle)) {
      update_avg_idle(*idle, t.clock());
      run_on(*idle, *pulled, t.clock(), idle_wakeup_latency(*idle, t.clock()));
    }
  }
  pick_next_task(t.cpu(), t.clock());
}

void Scheduler::exit(Task& t) {
  assert(t.held_rwsems.empty() && t.preempt_count == 0 && "task exits holding a lock");
  put_prev_task(t);
  t.set_state(TaskState::kDead);
  pick_next_task(t.cpu(), t.clock());
}

void Scheduler::count_switch_out(const Task& t, bool preempted) {
  // __schedule()'s ++*switch_count (nvcsw, or nivcsw when preempted): what perf's
  // context-switches event counts for a command's tasks, and /proc/PID/status's
  // voluntary_ctxt_switches and nonvoluntary_ctxt_switches. A kernel thread's switches are not
  // the program's (perf stat CMD does not count kswapd); an exiting task's last switch is not
  // counted either (perf_event_exit_task() runs in do_exit() before it).
  if (t.kthread) return;
  CpuCounters& c = t.cpu().counters;
  ++c.context_switches;
  if (preempted) ++c.involuntary_switches;
}

void Scheduler::put_prev_task(Task& t) {
  Cpu& cpu = t.cpu();
  assert(cpu.curr == &t && "invariant (1): task leaving a CPU it does not run on");
  t.absorb_all_steal();
  if (TraceSink* ts = sim_.trace())
    ts->run_slice(cpu.id, t.id(), cpu.busy_since, t.clock() - cpu.busy_since);
  const auto ran = static_cast<uint64_t>((t.clock() - cpu.busy_since).count_ns());
  t.vruntime += t.clock() - cpu.busy_since;  // update_curr(): every task weighs the same
  if (sim_.time_slice().eevdf()) eevdf_update_deadline(t, sim_.time_slice().base_slice());
  cpu.counters.busy_ns += ran;
  if (t.kthread) cpu.counters.kthread_ns += ran;
  cpu.curr = nullptr;
  cpu.pending_steal.clear();
  t.left_cpu_at = t.clock();
  // Optimistic spinners watch owner->on_cpu: tell every rwsem this task holds for write.
  const auto held = t.held_rwsems;
  t.set_state(TaskState::kRunnable);  // not on CPU from here on
  for (const HeldRwsem& h : held) {
    if (h.write) h.sem->owner_off_cpu(t);
  }
}

void Scheduler::pick_next_task(Cpu& cpu, SimTime at) {
  assert(cpu.curr == nullptr && "invariant (1): CPU refilled behind the scheduler's back");
  if (cpu.runqueue.empty()) {
    if (sim_.config().idle_balance != IdleBalanceMode::kOff) {
      if (Task* pulled = sched_balance_newidle(sim_, cpu, at)) {
        run_on(cpu, *pulled, at, sim_.costs().context_switch);
        return;
      }
    }
    cpu.idle_since = at;
    if (sim_.time_slice().eevdf()) eevdf_cpu_idles(cpu, at, sim_.time_slice().lag_limit());
    enter_lazy_tlb(cpu);
    return;
  }
  const size_t pick = pick_next_entity(cpu, at);
  Task* next = cpu.runqueue[pick];
  cpu.runqueue.erase(cpu.runqueue.begin() + static_cast<std::ptrdiff_t>(pick));
  run_on(cpu, *next, at, sim_.costs().context_switch);
}

size_t Scheduler::pick_next_entity(Cpu& cpu, SimTime at) {
  // The wakee whose wake-up preempted the task that just left: the preemption's condition made
  // it the pick (CFS: the wakee furthest behind in vruntime, leftmost; EEVDF 6.6: pick_eevdf()
  // was the wakee; 6.12+: the next buddy, taken while eligible, PICK_BUDDY).
  Task* const buddy = std::exchange(cpu.next_buddy, nullptr);
  const bool eevdf = sim_.time_slice().eevdf();
  if (buddy != nullptr) {
    const auto it = std::find(cpu.runqueue.begin(), cpu.runqueue.end(), buddy);
    if (it != cpu.runqueue.end() && (!eevdf || eevdf_eligible(cpu, **it, at)))
      return static_cast<size_t>(it - cpu.runqueue.begin());
  }
  // CFS: the run queue's order (its tasks take turns by the tick; the leftmost vruntime is the
  // one that waited longest among tasks that ran a slice each).
  if (!eevdf) return 0;
  // EEVDF: the earliest eligible deadline. A delayed sleeper whose lag is back to 0 can hold V
  // under every runnable task; the kernel would pick it, dequeue it (DELAY_ZERO) and pick again.
  if (const std::optional<size_t> pick = eevdf_pick(cpu, at)) return *pick;
  eevdf_settle_delayed(cpu, at);
  return eevdf_pick(cpu, at).value_or(0);
}

void Scheduler::run_on(Cpu& cpu, Task& next, SimTime at, SimTime cost) {
  assert(cpu.curr == nullptr && &next.cpu() == &cpu);
  cpu.curr = &next;
  cpu.wakeup_preempt_at = SimTime::infinite();
  next.set_state(TaskState::kRunning);
  next.advance_to(max(max(at, cpu.irq_busy_until), sim_.now()));
  cpu.busy_since = next.clock();
  next.work(cost);
  next.mm_switch_pending = true;  // switch_mm_in(), when it runs
  next.slice_start = next.clock();
  sim_.events().schedule(next.clock(), &next, next.run_arg());
}

bool Scheduler::switch_mm_in(Task& t) {
  assert(t.cpu().curr == &t && t.mm_switch_pending);
  t.mm_switch_pending = false;
  const SimTime cost = switch_mm_irqs_off(sim_, t.cpu(), t.mm());
  if (cost == SimTime::zero()) return true;
  t.work(cost);
  sim_.events().schedule(t.clock(), &t, t.run_arg());
  return false;
}

}  // namespace mmreplay::kernelsim
