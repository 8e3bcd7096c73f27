#include "kernelsim/mm/oom_kill.h"

#include <vector>

#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmu_gather.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

// Models mm/oom_kill.c: out_of_memory() -> oom_kill_process() (mark_oom_victim()).
void out_of_memory(Task& t) {
  if (t.oom_killed) return;  // tsk_is_oom_victim(): already dying
  t.oom_killed = true;
  ++t.sim().vm().oom;
}

uint64_t oom_badness(const Mm& mm) {
  return mm.rss_anon + mm.rss_file + mm.swapents + mm.pte_tables.size();
}

namespace {

// Models __oom_kill_process(): SIGKILL to every task using the victim's mm (the process and any
// other sharing it), each marked an OOM victim (its op loop ends after its current op).
void oom_kill_process(Simulation& sim, const Mm& victim) {
  for (const auto& task : sim.tasks()) {
    if (task->mm() == &victim && !task->kthread) task->oom_killed = true;
  }
  ++sim.vm().memcg_oom_kill;
}

// Models oom_reap_task_mm() -> __oom_reap_task_mm(): under the victim's mmap_lock held for read,
// every VMA but the shared ones (VM_SHARED: their pages stay in the page cache) is unmapped as
// MADV_DONTNEED unmaps it, freeing and uncharging its private pages; then MMF_OOM_SKIP, so the
// next OOM in the group does not wait for this victim.
Co<void> oom_reap_task_mm(Task& t, Mm& victim) {
  const uint64_t before = victim.rss_anon + victim.rss_file;
  co_await victim.mmap_sem.down_read(t);
  std::vector<Vma*> private_vmas;
  victim.vmas.for_each([&private_vmas](Vma& v) {
    if (v.kind != VmaKind::kFileShared) private_vmas.push_back(&v);
  });
  MmuGather tlb(victim);
  for (Vma* v : private_vmas) co_await zap_pte_range(t, *v, v->start, v->end, tlb);
  co_await tlb_finish_mmu(t, tlb);
  victim.oom_skip = true;
  co_await victim.mmap_sem.up_read(t);
  // A victim thread's fault of a cached file page may map one while the reaper waits.
  const uint64_t after = victim.rss_anon + victim.rss_file;
  t.sim().vm().oom_reaped_pages += before > after ? before - after : 0;
}

}  // namespace

Co<bool> mem_cgroup_out_of_memory(Task& t, uint32_t memcg_id) {
  Simulation& sim = t.sim();
  // select_bad_process() over the group: oom_evaluate_task() for each task, the victim the last
  // with the most points (a task of equal points replaces the one chosen).
  Mm* victim = nullptr;
  uint64_t chosen_points = 0;
  for (const auto& task : sim.tasks()) {
    Mm* mm = task->mm();
    if (task->kthread || task->finished() || mm == nullptr || mm->dead ||
        mm->memcg_id != memcg_id || mm->oom_skip) {
      continue;
    }
    // A victim not yet reaped is still freeing its memory: no new kill ("abort"), retry.
    if (task->oom_killed) co_return true;
    const uint64_t points = oom_badness(*mm);
    if (victim == nullptr || points >= chosen_points) {
      victim = mm;
      chosen_points = points;
    }
  }
  if (victim == nullptr) co_return false;
  oom_kill_process(sim, *victim);
  // The charger's own process: its charge fails, and its exit (exit_mmap()) frees the group's
  // pages; the reaper would take the mmap_lock this fault holds.
  if (victim == t.mm()) co_return false;
  co_await oom_reap_task_mm(t, *victim);
  co_return true;
}

}  // namespace mmreplay::kernelsim
