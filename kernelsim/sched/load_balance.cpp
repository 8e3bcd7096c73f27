#include "kernelsim/sched/load_balance.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <iterator>

#include "kernelsim/sched/eevdf_lag.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

constexpr SimTime kMigrationCost = SimTime::ns(sysctl_sched_migration_cost_ns);

// task_hot(): it left a CPU less than sysctl_sched_migration_cost before `at` (its cache there
// still warm). A task that never ran (just forked) is not.
bool task_hot(const Task& t, SimTime at) {
  return t.left_cpu_at != SimTime::infinite() && at - t.left_cpu_at < kMigrationCost;
}

// sched_balance_find_src_rq(): the CPU with the most tasks waiting behind its running one, the
// nearest to `this_cpu` among equals (lower CpuDistance: the SMT sibling, then the socket).
Cpu* find_busiest_queue(Simulation& sim, const Cpu& this_cpu) {
  Cpu* busiest = nullptr;
  for (uint32_t id = 0; id < sim.nr_cpus(); ++id) {
    Cpu& cpu = sim.cpu(id);
    if (&cpu == &this_cpu || cpu.runqueue.empty()) continue;
    if (busiest == nullptr || cpu.runqueue.size() > busiest->runqueue.size() ||
        (cpu.runqueue.size() == busiest->runqueue.size() &&
         sim.topology().distance(this_cpu.id, id) <
             sim.topology().distance(this_cpu.id, busiest->id))) {
      busiest = &cpu;
    }
  }
  return busiest;
}

// detach_one_task() from `src` for `dst`: the least recently run task waiting on src that may move
// (the tail of cfs_tasks; not a kernel thread, not cache hot), detached there, EEVDF lag and all,
// and dst's now, not yet running; nullptr when none may. REQUIRES: dst idle-bound (no curr,
// nothing queued).
Task* detach_one_task(Simulation& sim, Cpu& src, Cpu& dst, SimTime at) {
  assert(dst.curr == nullptr && dst.runqueue.empty());
  auto pick = src.runqueue.end();
  for (auto it = src.runqueue.begin(); it != src.runqueue.end(); ++it) {
    const Task& t = **it;
    if (t.kthread || task_hot(t, at)) continue;
    if (pick == src.runqueue.end() || t.left_cpu_at < (*pick)->left_cpu_at) pick = it;
  }
  if (pick == src.runqueue.end()) return nullptr;
  Task& p = **pick;
  src.runqueue.erase(pick);
  if (src.next_buddy == &p) {
    // The wake-up that was to preempt src's task for p has nothing left to hand over.
    src.next_buddy = nullptr;
    src.wakeup_preempt_at = SimTime::infinite();
  }
  ++dst.counters.balance_pulls;
  if (sim.time_slice().eevdf()) {
    // dequeue_entity() on the old queue keeps its lag; place_entity() on the new one uses it.
    const SimTime limit = sim.time_slice().lag_limit();
    eevdf_dequeue_sleeper(src, p, at, limit, /*delay_dequeue=*/false);
    eevdf_cpu_idles(dst, at, limit);  // its delayed sleepers leave before p is placed
    p.set_cpu(dst);
    const SimTime slice = sim.time_slice().base_slice();
    eevdf_enqueue(dst, p, eevdf_place(dst, p, at, slice), slice, /*new_task=*/false);
  } else {
    p.set_cpu(dst);
  }
  return &p;
}

}  // namespace

Task* sched_balance_newidle(Simulation& sim, Cpu& this_cpu, SimTime at) {
  assert(this_cpu.curr == nullptr && this_cpu.runqueue.empty());
  const IdleBalanceMode mode = sim.config().idle_balance;
  assert(mode != IdleBalanceMode::kOff);
  if (mode == IdleBalanceMode::kNewidleAvgIdle && this_cpu.avg_idle < kMigrationCost) {
    return nullptr;
  }
  Cpu* busiest = find_busiest_queue(sim, this_cpu);
  return busiest == nullptr ? nullptr : detach_one_task(sim, *busiest, this_cpu, at);
}

Task* nohz_idle_balance(Simulation& sim, Cpu& busy, SimTime at, Cpu** idle_cpu) {
  assert(sim.config().idle_balance != IdleBalanceMode::kOff);
  Cpu* idle = nullptr;
  for (uint32_t id = 0; id < sim.nr_cpus(); ++id) {
    Cpu& cpu = sim.cpu(id);
    if (&cpu == &busy || cpu.curr != nullptr || !cpu.runqueue.empty()) continue;
    if (idle == nullptr ||
        sim.topology().distance(busy.id, id) < sim.topology().distance(busy.id, idle->id)) {
      idle = &cpu;
    }
  }
  if (idle == nullptr) return nullptr;
  Task* p = detach_one_task(sim, busy, *idle, at);
  if (p != nullptr) *idle_cpu = idle;
  return p;
}

void update_avg_idle(Cpu& cpu, SimTime at) {
  const SimTime idle = at - cpu.idle_since;
  const int64_t avg = cpu.avg_idle.count_ns();
  const int64_t next = avg + (idle.count_ns() - avg) / AVG_IDLE_WEIGHT;
  cpu.avg_idle = SimTime::ns(std::min(next, 2 * sysctl_sched_migration_cost_ns));
}

}  // namespace mmreplay::kernelsim
