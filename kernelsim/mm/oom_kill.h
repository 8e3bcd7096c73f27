// The out-of-memory outcome (mm/oom_kill.c), reduced to what a replay needs.
//
// Machine-wide: with no swap slot and nothing reclaimable, an allocation fails after direct
// reclaim gave up (MAX_RECLAIM_RETRIES rounds without progress). The kernel's OOM killer would
// pick the largest task; the model kills the task whose allocation failed (the victim is usually
// the allocating hog in the workloads modelled): counted once per task in VmCounters::oom, and
// the task's op loop ends after the current op (kernel/thread.h), so its exit frees its memory as
// the kill would. A run therefore ends with a count of kills instead of hanging or looping on
// failed faults.
//
// In a memory cgroup (4.19+: 29ef680ae7c2 "memcg, oom: move out_of_memory back to the charge
// path"): a charge that reclaim could not fit runs the OOM killer over the group's tasks only
// (mem_cgroup_out_of_memory() -> select_bad_process() -> mem_cgroup_scan_tasks()). The victim is
// the process with the most oom_badness() points -- its resident pages, swap entries and page
// tables -- the last of equals in task order, whoever is charging: a small child allocating past
// the limit gets its large parent killed. Every task of the victim's mm is marked (SIGKILL to
// each process sharing it), and the OOM reaper (4.6+, oom_reap_task_mm()) unmaps the victim's
// private memory at once, so a victim asleep (in wait4() for the very task charging, say) frees
// its pages without waking; the charger then retries. The model's simplifications: the reaper's
// work is the charger's time (the kernel's oom_reaper kthread runs it while the charger waits);
// oom_score_adj is 0 for every task; a forked child's pages shared with its parent count in the
// owner's points only (rss_anon: own pages); and a charge that still fails after its one OOM round
// fails (VM_FAULT_OOM, counted in fault_oom) where the kernel would go on retrying.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Mm;
class Task;

// Models out_of_memory() -> oom_kill_process() with the allocating task as the victim.
void out_of_memory(Task& t);

// oom_badness() of an mm, without oom_score_adj: get_mm_rss() + MM_SWAPENTS + page-table pages.
uint64_t oom_badness(const Mm& mm);

// Models mem_cgroup_out_of_memory() for the group `memcg_id` that t's charge could not fit:
// picks and kills the victim and reaps its private memory. True when the charge should retry (a
// victim was killed and reaped, or one is still exiting); false when there was nothing to kill or
// t's own process was chosen (its charge fails and its exit frees the group's memory).
// REQUIRES: t holds no spinlock.
Co<bool> mem_cgroup_out_of_memory(Task& t, uint32_t memcg_id);

}  // namespace mmreplay::kernelsim
