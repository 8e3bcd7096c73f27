#include "kernelsim/mm/oom_kill.h"

#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/kernel/signal.h"
#include "kernelsim/kernel/thread.h"
#include "kernelsim/mm/memcontrol.h"
#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmu_gather.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

uint64_t oom_badness(const Mm& mm) {
  return mm.rss_anon + mm.rss_file + mm.swapents + mm.pte_tables.size();
}

namespace {

// What select_bad_process() found: the victim, or that one chosen before is still exiting.
struct BadProcess {
  Mm* victim = nullptr;
  bool pending = false;  // oom_evaluate_task()'s "abort": a victim not yet reaped
};

// Models select_bad_process(): oom_evaluate_task() for each task whose mm `eligible` admits (the
// group's for a memcg OOM, every one machine-wide); the victim is the last with the most points
// (a task of equal points replaces the one chosen).
template <typename Eligible>
BadProcess select_bad_process(const Simulation& sim, Eligible eligible) {
  BadProcess chosen;
  uint64_t chosen_points = 0;
  for (const auto& task : sim.tasks()) {
    Mm* mm = task->mm();
    if (task->kthread || task->finished() || mm == nullptr || mm->dead || mm->oom_skip ||
        !eligible(*mm)) {
      continue;
    }
    // A victim not yet reaped is still freeing its memory: no new kill.
    if (task->oom_killed) return {nullptr, true};
    const uint64_t points = oom_badness(*mm);
    if (chosen.victim == nullptr || points >= chosen_points) {
      chosen.victim = mm;
      chosen_points = points;
    }
  }
  return chosen;
}

// Models __oom_kill_process(): SIGKILL, sent by t, to every task using the victim's mm (the
// process and any other sharing it), each marked an OOM victim (its op loop ends after its current
// op) and woken from an interruptible sleep; the kill is recorded as the kernel logs it. `kills`
// is the counter of the OOM's scope: machine-wide, or the memcg `memcg_id` (0: machine-wide).
void oom_kill_process(Task& t, const Mm& victim, uint32_t memcg_id, uint64_t& kills) {
  Simulation& sim = t.sim();
  for (const auto& task : sim.tasks()) {
    if (task->mm() != &victim || task->kthread) continue;
    task->oom_killed = true;
    signal_wake_up_fatal(*task, t.clock());
  }
  ++kills;
  sim.stats().oom_kills.push_back({t.clock(), victim.id, t.mm() != nullptr ? t.mm()->id : 0,
                                   memcg_id, victim.rss_anon, victim.rss_file, victim.swapents,
                                   victim.pte_tables.size()});
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

Co<bool> out_of_memory(Task& t) {
  Simulation& sim = t.sim();
  if (t.oom_killed) co_return false;  // tsk_is_oom_victim(current): it is exiting already
  const BadProcess b = select_bad_process(sim, [](const Mm&) { return true; });
  if (b.pending) {
    // The victim's memory is not freed yet: __alloc_pages_may_oom() backs off for a jiffy
    // (schedule_timeout_uninterruptible(1)) and the allocation retries.
    co_await do_sleep(t, SimTime::ns(JIFFY_NS));
    co_return true;
  }
  // Nothing else killable: the kernel panics ("Out of memory and no killable processes");
  // the model ends t's process (a task without one, a kernel thread, just fails).
  if (b.victim == nullptr && t.mm() == nullptr) co_return false;
  Mm& victim = b.victim != nullptr ? *b.victim : *t.mm();
  oom_kill_process(t, victim, kRootMemcg, sim.vm().oom);
  // t's own process: its allocation fails, and its exit (exit_mmap()) frees the memory; the
  // reaper would take the mmap_lock t's fault holds.
  if (&victim == t.mm()) co_return false;
  co_await oom_reap_task_mm(t, victim);
  co_return true;
}

Co<bool> mem_cgroup_out_of_memory(Task& t, uint32_t memcg_id) {
  Simulation& sim = t.sim();
  const BadProcess b =
      select_bad_process(sim, [memcg_id](const Mm& mm) { return mm.memcg_id == memcg_id; });
  if (b.pending) co_return true;  // retry: the victim's exit frees the group's pages
  if (b.victim == nullptr) co_return false;
  oom_kill_process(t, *b.victim, memcg_id, sim.vm().memcg_oom_kill);
  // The charger's own process: its charge fails, and its exit (exit_mmap()) frees the group's
  // pages; the reaper would take the mmap_lock this fault holds.
  if (b.victim == t.mm()) co_return false;
  co_await oom_reap_task_mm(t, *b.victim);
  co_return true;
}

}  // namespace mmreplay::kernelsim
