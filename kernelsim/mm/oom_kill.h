// The out-of-memory outcome (mm/oom_kill.c), reduced to what a replay needs.
//
// With no swap slot and nothing reclaimable, an allocation fails after direct reclaim gave up
// (MAX_RECLAIM_RETRIES rounds without progress). The kernel's OOM killer would pick the largest
// task; the model kills the task whose allocation failed (the victim is usually the allocating
// hog in the workloads modelled): counted once per task in VmCounters::oom, and the task's op loop
// ends after the current op (kernel/thread.h), so its exit frees its memory as the kill would.
// A run therefore ends with a count of kills instead of hanging or looping on failed faults.

#pragma once

namespace mmreplay::kernelsim {

class Task;

// Models out_of_memory() -> oom_kill_process() with the allocating task as the victim.
void out_of_memory(Task& t);

}  // namespace mmreplay::kernelsim
