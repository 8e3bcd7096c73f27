#include "kernelsim/fs/bh_invalidate.h"

#include "kernelsim/kernel/smp.h"
#include "kernelsim/sched/cpumask.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/sim/task.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

// Models fs/buffer.c: has_bh_in_lru()
bool has_bh_in_lru(const BufferCache& cache, uint32_t cpu) {
  return !cache.lru(cpu).empty();
}

// Models fs/buffer.c: invalidate_bh_lru()
SimTime invalidate_bh_lru(BufferCache& cache, uint32_t cpu, const CostProfile& costs,
                          VmCounters& vm) {
  std::vector<BufferHead*>& lru = cache.lru(cpu);
  SimTime spent = costs.bh_invalidate_handler;
  for (BufferHead* bh : lru) {
    --bh->b_count;  // brelse()
    spent += costs.atomic_local;
  }
  vm.bh_lru_invalidated += lru.size();
  lru.clear();
  return spent;
}

// Models fs/buffer.c: invalidate_bh_lrus()
Co<void> invalidate_bh_lrus(Task& t, bool only_holding) {
  Simulation& sim = t.sim();
  BufferCache& cache = sim.buffers();
  co_await sync_point(t);
  CpuMask targets;
  for (uint32_t cpu = 0; cpu < sim.nr_cpus(); ++cpu) {
    // on_each_cpu_cond(): has_bh_in_lru() reads every CPU's bh_lru from here, a line from each
    // CPU at its distance. The caller's own is charged as a same-socket transfer too: the model
    // did so before it had a topology and seed 004's figures were validated with it.
    if (only_holding) {
      t.work(cpu == t.cpu().id ? sim.costs().cacheline_transfer
                               : sim.topology().line_transfer(cpu, t.cpu().id));
    }
    if (!only_holding || has_bh_in_lru(cache, cpu)) targets.set(cpu);
  }
  if (only_holding) co_await sync_point(t);
  const bool local = targets.test(t.cpu().id);
  uint32_t sent = 0;
  co_await smp_call_function_many(
      t, targets,
      [&](Cpu& target) { return invalidate_bh_lru(cache, target.id, sim.costs(), sim.vm()); },
      &sent);
  sim.vm().bh_invalidate_ipis += sent;
  // on_each_cpu*() runs func on the calling CPU too, with irqs off.
  if (local) t.work(invalidate_bh_lru(cache, t.cpu().id, sim.costs(), sim.vm()));
}

// Models the per-CPU search of "mm: drop bh from per-cpu lru when migrating" (Abbott, 2012)
void drop_bh_from_lrus(Task& t, BhKey key) {
  Simulation& sim = t.sim();
  BufferCache& cache = sim.buffers();
  const CostProfile& c = sim.costs();
  for (uint32_t cpu = 0; cpu < sim.nr_cpus(); ++cpu) {
    std::vector<BufferHead*>& lru = cache.lru(cpu);
    ++sim.vm().bh_lru_drop_searches;
    t.work((cpu == t.cpu().id ? SimTime::zero() : sim.topology().line_transfer(cpu, t.cpu().id)) +
           c.bh_lru_slot * static_cast<int64_t>(lru.size()));
    for (size_t i = 0; i < lru.size(); ++i) {
      if (lru[i]->key != key) continue;
      --lru[i]->b_count;  // brelse()
      t.work(c.atomic_local);
      lru.erase(lru.begin() + static_cast<std::ptrdiff_t>(i));
      ++sim.vm().bh_lru_invalidated;
      break;
    }
  }
}

// Models fs/buffer.c: invalidate_bh_lrus_cpu() (5.13+)
void invalidate_bh_lrus_cpu(Task& t) {
  Simulation& sim = t.sim();
  t.work(invalidate_bh_lru(sim.buffers(), t.cpu().id, sim.costs(), sim.vm()));
}

}  // namespace mmreplay::kernelsim
