#include "kernelsim/sched/eevdf_lag.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <optional>

#include "kernelsim/sched/cpu.h"
#include "kernelsim/sim/task.h"

namespace mmreplay::kernelsim {
namespace {

// The running task's vruntime at `at`: update_curr() adds what it has run since it got the CPU.
SimTime vruntime_at(const Cpu& cpu, const Task& t, SimTime at) {
  if (cpu.curr == &t && at > cpu.busy_since) return t.vruntime + (at - cpu.busy_since);
  return t.vruntime;
}

// The vruntimes of a CPU's queue, summed: avg_vruntime() is their mean.
struct QueueSum {
  int64_t sum = 0;
  int64_t n = 0;
  SimTime anchor;  // the queue's V when it last emptied: V of an empty queue

  SimTime avg() const { return n == 0 ? anchor : SimTime::ns(sum / n); }
  // V once an entity at `v` counts in it too.
  SimTime avg_with(SimTime v) const { return SimTime::ns((sum + v.count_ns()) / (n + 1)); }
};

// The CPU's queue (running task, run queue, delayed sleepers), `skip` left out.
QueueSum queue_sum(const Cpu& cpu, SimTime at, const Task* skip = nullptr) {
  QueueSum q{.anchor = cpu.eevdf_zero_vruntime};
  const auto add = [&](const Task* t) {
    if (t == nullptr || t == skip) return;
    q.sum += vruntime_at(cpu, *t, at).count_ns();
    ++q.n;
  };
  add(cpu.curr);
  for (const Task* t : cpu.runqueue) add(t);
  for (const Task* t : cpu.eevdf_delayed) add(t);
  return q;
}

// entity_eligible(): v <= V, as v * n <= the sum of the queue's vruntimes, without the mean's
// rounding.
bool eligible_in(const QueueSum& q, const Task& t) {
  return t.vruntime.count_ns() * q.n <= q.sum;
}

SimTime clamp_lag(SimTime lag, SimTime limit) {
  return std::clamp(lag, SimTime::zero() - limit, limit);
}

// The lag a delayed sleeper leaves with when it leaves still queued by DELAY_DEQUEUE otherwise
// than by paying its debt (picked, or woken elsewhere): the debt, never a credit.
SimTime remaining_debt(SimTime v_queue, const Task& t, SimTime limit) {
  return clamp_lag(std::min(v_queue - t.vruntime, SimTime::zero()), limit);
}

void remove_delayed(Cpu& cpu, Task& t) {
  auto it = std::find(cpu.eevdf_delayed.begin(), cpu.eevdf_delayed.end(), &t);
  assert(it != cpu.eevdf_delayed.end());
  cpu.eevdf_delayed.erase(it);
  t.eevdf_delayed_on = nullptr;
}

}  // namespace

EevdfPlacement eevdf_place(const Cpu& cpu, const Task& t, SimTime at, SimTime slice) {
  assert(t.eevdf_delayed_on == nullptr || t.eevdf_delayed_on == &cpu);
  const QueueSum others = queue_sum(cpu, at, &t);
  EevdfPlacement p;
  if (t.eevdf_delayed_on == &cpu) {
    // requeue_delayed_entity(): still queued; with its lag positive by now (DELAY_ZERO) it is
    // placed afresh with none, at the others' V, and is eligible; else it stays where it was.
    // (Its lag, V - v with itself in V, has the sign of the others' V - v.)
    p = others.n == 0 || t.vruntime <= others.avg()
            ? EevdfPlacement{.vruntime = others.avg(), .eligible = true}
            : EevdfPlacement{.vruntime = t.vruntime, .eligible = false, .kept = true};
  } else if (others.n == 0) {
    // An empty queue: at its anchor.
    return {.vruntime = others.avg(), .deadline = others.avg() + slice, .eligible = true};
  } else {
    // place_entity(): v = V - lag (n + 1) / n keeps the lag once the wakee counts in V, so the
    // wakee is eligible exactly when its lag is not negative.
    p.vruntime = others.avg() - SimTime::ns(t.vlag.count_ns() * (others.n + 1) / others.n);
    p.eligible = t.vlag >= SimTime::zero();
  }
  p.deadline = p.kept ? t.eevdf_deadline : p.vruntime + slice;
  if (cpu.curr != nullptr && cpu.curr != &t)
    p.curr_eligible = vruntime_at(cpu, *cpu.curr, at) <= others.avg_with(p.vruntime);
  return p;
}

bool eevdf_wakeup_preempts(const Cpu& cpu, const Task& wakee, const EevdfPlacement& p, SimTime at,
                           EevdfWakeup mode, SimTime slice) {
  assert(cpu.curr != nullptr);
  if (!p.eligible) return false;
  if (mode == EevdfWakeup::kEligible) return true;
  // 6.6-6.11: check_preempt_wakeup_fair() preempts when pick_eevdf() is the wakee. update_curr()
  // first gives a running task past its deadline the next one (update_deadline()).
  const Task& curr = *cpu.curr;
  const SimTime curr_v = vruntime_at(cpu, curr, at);
  const bool renewed = curr_v >= curr.eevdf_deadline;
  if (p.curr_eligible) {
    if (!renewed) return false;                     // RUN_TO_PARITY
    if (curr_v + slice < p.deadline) return false;  // its new deadline is the earlier
  }
  // The queue's other eligible tasks, V counting the wakee where it is placed.
  QueueSum q = queue_sum(cpu, at, &wakee);
  q.sum += p.vruntime.count_ns();
  ++q.n;
  for (const Task* t : cpu.runqueue) {
    if (t != &wakee && eligible_in(q, *t) && t->eevdf_deadline <= p.deadline) return false;
  }
  return true;
}

void eevdf_enqueue(Cpu& cpu, Task& t, const EevdfPlacement& p, SimTime slice, bool new_task) {
  if (t.eevdf_delayed_on == &cpu) remove_delayed(cpu, t);
  t.vruntime = p.vruntime;
  t.vlag = SimTime::zero();
  if (p.kept) return;
  // place_entity(): the deadline is a slice of virtual time past where the task is placed; a new
  // task's is half a slice, so that it gets the CPU soon but not ahead of every task queued
  // (PLACE_DEADLINE_INITIAL).
  t.eevdf_deadline = new_task ? p.vruntime + SimTime::ns(slice.count_ns() / 2) : p.deadline;
}

void eevdf_update_deadline(Task& t, SimTime slice) {
  if (t.vruntime < t.eevdf_deadline) return;
  t.eevdf_deadline = t.vruntime + slice;
}

bool eevdf_eligible(const Cpu& cpu, const Task& t, SimTime at) {
  const QueueSum q = queue_sum(cpu, at);
  return q.n == 0 || eligible_in(q, t);
}

std::optional<size_t> eevdf_pick(const Cpu& cpu, SimTime at) {
  assert(cpu.curr == nullptr && !cpu.runqueue.empty());
  if (cpu.runqueue.size() == 1 && cpu.eevdf_delayed.empty()) return 0;
  const QueueSum q = queue_sum(cpu, at);
  std::optional<size_t> best;
  for (size_t i = 0; i < cpu.runqueue.size(); ++i) {
    const Task& t = *cpu.runqueue[i];
    if (!eligible_in(q, t)) continue;
    if (!best || t.eevdf_deadline < cpu.runqueue[*best]->eevdf_deadline) best = i;
  }
  return best;
}

void eevdf_dequeue_sleeper(Cpu& cpu, Task& t, SimTime at, SimTime limit, bool delay_dequeue) {
  assert(cpu.curr != &t && t.eevdf_delayed_on == nullptr);
  const QueueSum others = queue_sum(cpu, at);  // t is off its CPU: not in it
  if (others.n == 0) {                         // alone: V is its own vruntime, the lag 0
    t.vlag = SimTime::zero();
    cpu.eevdf_zero_vruntime = t.vruntime;
    return;
  }
  const SimTime lag = others.avg_with(t.vruntime) - t.vruntime;
  if (delay_dequeue && lag < SimTime::zero()) {  // dequeue_entity(): DELAY_DEQUEUE
    t.eevdf_delayed_on = &cpu;
    cpu.eevdf_delayed.push_back(&t);
    return;
  }
  t.vlag = clamp_lag(lag, limit);
}

void eevdf_settle_delayed(Cpu& cpu, SimTime at) {
  for (bool left = true; left && !cpu.eevdf_delayed.empty();) {
    left = false;
    const SimTime v = queue_sum(cpu, at).avg();
    for (Task* t : cpu.eevdf_delayed) {
      if (t->vruntime <= v) {
        remove_delayed(cpu, *t);
        t->vlag = SimTime::zero();
        left = true;
        break;  // V has moved: look again
      }
    }
  }
}

void eevdf_leave_delayed(Cpu& cpu, Task& t, SimTime at, SimTime limit) {
  const SimTime v = queue_sum(cpu, at).avg();
  remove_delayed(cpu, t);
  t.vlag = remaining_debt(v, t, limit);
}

void eevdf_cpu_idles(Cpu& cpu, SimTime at, SimTime limit) {
  assert(cpu.curr == nullptr && cpu.runqueue.empty());
  const SimTime v = queue_sum(cpu, at).avg();
  for (Task* t : cpu.eevdf_delayed) {
    t->vlag = remaining_debt(v, *t, limit);
    t->eevdf_delayed_on = nullptr;
  }
  cpu.eevdf_delayed.clear();
  cpu.eevdf_zero_vruntime = v;
}

}  // namespace mmreplay::kernelsim
