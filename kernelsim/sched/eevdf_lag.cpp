#include "kernelsim/sched/eevdf_lag.h"

#include <algorithm>
#include <cassert>
#include <cstdint>

#include "kernelsim/sched/cpu.h"
#include "kernelsim/sim/task.h"

namespace mmreplay::kernelsim {
namespace {

// The running task's vruntime at `at`: update_curr() adds what it has run since it got the CPU.
SimTime vruntime_at(const Cpu& cpu, const Task& t, SimTime at) {
  if (cpu.curr == &t && at > cpu.busy_since) return t.vruntime + (at - cpu.busy_since);
  return t.vruntime;
}

struct QueueAverage {
  SimTime v;  // avg_vruntime(): the mean vruntime of the entities counted
  int64_t n = 0;
};

// avg_vruntime() over the CPU's queue (running task, run queue, delayed sleepers), `skip` left
// out; n == 0 gives the anchor the queue had when it last emptied.
QueueAverage avg_vruntime(const Cpu& cpu, SimTime at, const Task* skip = nullptr) {
  int64_t sum = 0;
  int64_t n = 0;
  const auto add = [&](const Task* t) {
    if (t == nullptr || t == skip) return;
    sum += vruntime_at(cpu, *t, at).count_ns();
    ++n;
  };
  add(cpu.curr);
  for (const Task* t : cpu.runqueue) add(t);
  for (const Task* t : cpu.eevdf_delayed) add(t);
  if (n == 0) return {cpu.eevdf_zero_vruntime, 0};
  return {SimTime::ns(sum / n), n};
}

SimTime clamp_lag(SimTime lag, SimTime limit) {
  return std::clamp(lag, SimTime::zero() - limit, limit);
}

void remove_delayed(Cpu& cpu, Task& t) {
  auto it = std::find(cpu.eevdf_delayed.begin(), cpu.eevdf_delayed.end(), &t);
  assert(it != cpu.eevdf_delayed.end());
  cpu.eevdf_delayed.erase(it);
  t.eevdf_delayed_on = nullptr;
}

}  // namespace

EevdfPlacement eevdf_place(const Cpu& cpu, const Task& t, SimTime at) {
  assert(t.eevdf_delayed_on == nullptr || t.eevdf_delayed_on == &cpu);
  const QueueAverage others = avg_vruntime(cpu, at, &t);
  EevdfPlacement p;
  if (t.eevdf_delayed_on == &cpu) {
    // requeue_delayed_entity(): still queued; with its lag positive by now (DELAY_ZERO) it is
    // placed afresh with none, at the others' V, and is eligible; else it stays where it was.
    const QueueAverage all = avg_vruntime(cpu, at);
    p = all.v >= t.vruntime ? EevdfPlacement{others.v, true} : EevdfPlacement{t.vruntime, false};
  } else if (others.n == 0) {
    return {others.v, true};  // an empty queue: at its anchor
  } else {
    // place_entity(): v = V - lag (n + 1) / n keeps the lag once the wakee counts in V, so the
    // wakee is eligible exactly when its lag is not negative.
    p.vruntime = others.v - SimTime::ns(t.vlag.count_ns() * (others.n + 1) / others.n);
    p.eligible = t.vlag >= SimTime::zero();
  }
  if (cpu.curr != nullptr && cpu.curr != &t) {
    const SimTime v_with_wakee =
        SimTime::ns((others.v.count_ns() * others.n + p.vruntime.count_ns()) / (others.n + 1));
    p.curr_eligible = vruntime_at(cpu, *cpu.curr, at) <= v_with_wakee;
  }
  return p;
}

bool eevdf_wakeup_preempts(const Cpu& cpu, const EevdfPlacement& p, SimTime at, EevdfWakeup mode,
                           SimTime base_slice) {
  assert(cpu.curr != nullptr);
  if (!p.eligible) return false;
  if (mode == EevdfWakeup::kEligible) return true;
  // RUN_TO_PARITY: an eligible running task keeps the slice it was picked for; an ineligible
  // one is no candidate, and the wakee is taken as the eligible task with the earliest deadline
  // (so it is with two on the CPU).
  return !p.curr_eligible || at >= cpu.curr->slice_start + base_slice;
}

void eevdf_enqueue(Cpu& cpu, Task& t, const EevdfPlacement& p) {
  if (t.eevdf_delayed_on == &cpu) remove_delayed(cpu, t);
  t.vruntime = p.vruntime;
  t.vlag = SimTime::zero();
}

void eevdf_dequeue_sleeper(Cpu& cpu, Task& t, SimTime at, SimTime limit, bool delay_dequeue) {
  assert(cpu.curr != &t && t.eevdf_delayed_on == nullptr);
  const QueueAverage all = avg_vruntime(cpu, at);  // t is not in it: added below
  const int64_t n = all.n + 1;
  const SimTime v = SimTime::ns((all.v.count_ns() * all.n + t.vruntime.count_ns()) / n);
  if (all.n == 0) {  // alone: V is its own vruntime, the lag 0
    t.vlag = SimTime::zero();
    cpu.eevdf_zero_vruntime = t.vruntime;
    return;
  }
  const SimTime lag = v - t.vruntime;
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
    const QueueAverage all = avg_vruntime(cpu, at);
    for (Task* t : cpu.eevdf_delayed) {
      if (t->vruntime <= all.v) {
        remove_delayed(cpu, *t);
        t->vlag = SimTime::zero();
        left = true;
        break;  // V has moved: look again
      }
    }
  }
}

void eevdf_leave_delayed(Cpu& cpu, Task& t, SimTime at, SimTime limit) {
  const QueueAverage all = avg_vruntime(cpu, at);
  remove_delayed(cpu, t);
  t.vlag = clamp_lag(std::min(all.v - t.vruntime, SimTime::zero()), limit);
}

void eevdf_cpu_idles(Cpu& cpu, SimTime at, SimTime limit) {
  assert(cpu.curr == nullptr && cpu.runqueue.empty());
  const QueueAverage all = avg_vruntime(cpu, at);
  for (Task* t : cpu.eevdf_delayed) {
    t->vlag = clamp_lag(std::min(all.v - t->vruntime, SimTime::zero()), limit);
    t->eevdf_delayed_on = nullptr;
  }
  cpu.eevdf_delayed.clear();
  cpu.eevdf_zero_vruntime = all.v;
}

}  // namespace mmreplay::kernelsim
