#include "kernelsim/sched/wake_affine.h"

#include <cassert>

#include "kernelsim/constants.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// kernel/sched/core.c: idle_cpu(): nothing runs and nothing waits.
bool idle_cpu(const Cpu& cpu) {
  return cpu.curr == nullptr && cpu.runqueue.empty();
}

// Models wake_affine_idle()'s sync test: the waker's CPU runs only the waker
// (cpu_rq(this_cpu)->nr_running == 1), so it frees up as soon as the waker sleeps.
bool waker_cpu_about_to_sleep(const Task& waker) {
  const Cpu& this_cpu = waker.cpu();
  return this_cpu.curr == &waker && this_cpu.runqueue.empty();
}

}  // namespace

Cpu& select_task_rq_fair(Simulation& sim, const Task& waker, const Task& p, uint32_t wake_flags) {
  assert(p.state() == TaskState::kSleeping && "invariant (1): only a sleeping task moves");
  Cpu& prev_cpu = sim.cpu(p.cpu().id);
  const WakeAffineMode mode = sim.config().wake_affine;
  if (mode == WakeAffineMode::kOff || (wake_flags & WF_SYNC) == 0) return prev_cpu;
  if (&waker.cpu() == &prev_cpu || !waker_cpu_about_to_sleep(waker)) return prev_cpu;
  // select_idle_sibling(): "if the previous CPU is cache affine and idle, don't be stupid".
  if (mode == WakeAffineMode::kSyncIdlePrev && idle_cpu(prev_cpu)) return prev_cpu;
  return sim.cpu(waker.cpu().id);
}

}  // namespace mmreplay::kernelsim
