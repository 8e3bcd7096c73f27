// The out-of-memory outcome (mm/oom_kill.c), reduced to what a replay needs.
//
// Machine-wide (out_of_memory(), CONSTRAINT_NONE): with no swap slot and nothing reclaimable,
// an allocation that direct reclaim could not satisfy (MAX_RECLAIM_RETRIES rounds without
// progress) runs the OOM killer over every process (__alloc_pages_may_oom()). The victim is the
// process with the most oom_badness() points, as below, whoever is allocating: a small process
// allocating past the machine's memory gets a large idle one killed, and retries its allocation
// once the reaper has freed the victim's pages. When the allocating task's own process is chosen,
// its allocation fails and its exit frees the memory. Counted in VmCounters::oom, once per process
// killed; a killed task's op loop ends after its current op (kernel/thread.h). A run therefore
// ends with a count of kills instead of hanging or looping on failed faults.
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

// Models out_of_memory() for the whole machine, called by the page allocator when reclaim gave
// up: picks and kills the victim and reaps its private memory. True when the allocation should
// retry (another process was killed and reaped, or a victim is still exiting and t waited a
// jiffy for it); false when t's own process was chosen (or nothing else was killable: the kernel
// panics, the model ends t's process) or t is already a victim: its allocation fails.
// REQUIRES: t holds no spinlock.
Co<bool> out_of_memory(Task& t);

// oom_badness() of an mm, without oom_score_adj: get_mm_rss() + MM_SWAPENTS + page-table pages.
uint64_t oom_badness(const Mm& mm);

// Models mem_cgroup_out_of_memory() for the group `memcg_id` that t's charge could not fit:
// picks and kills the victim and reaps its private memory. True when the charge should retry (a
// victim was killed and reaped, or one is still exiting); false when there was nothing to kill or
// t's own process was chosen (its charge fails and its exit frees the group's memory).
// REQUIRES: t holds no spinlock.
Co<bool> mem_cgroup_out_of_memory(Task& t, uint32_t memcg_id);

}  // namespace mmreplay::kernelsim
