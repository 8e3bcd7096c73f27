// Wake-affine placement: the CPU a task woken by another task runs on (kernel/sched/fair.c:
// select_task_rq_fair() -> wake_affine() -> wake_affine_idle(), then select_idle_sibling()).
//
// The model binds each task to one CPU; only a wake-up marked WF_SYNC may move it. A pipe's
// writer wakes its reader (and a reader the writer it made room for) with
// wake_up_interruptible_sync_poll(): the waker says it is about to sleep, so fair.c runs the
// wakee where the waker is, and the two sides of a pipe ping-pong share one CPU and its cache
// instead of paying a cross-CPU wake-up each way. Recorded here (tests/real pipe_pair): 2,047 of
// 2,048 context switches of the pair were on one CPU.
//
// What is modelled, per knob `wake_affine` (kernel_config.h):
//  - off: the wakee stays on its CPU (the model before this file).
//  - sync: wake_affine_idle()'s "sync && cpu_rq(this_cpu)->nr_running == 1": the waker runs alone
//    on its CPU (its run queue is empty) -> the wakee goes there and runs when the waker sleeps.
//    select_idle_sibling() would keep an idle previous CPU that shares the cache; this mode skips
//    that step, as the recording machine (a KVM guest) did: available_idle_cpu() is false for a
//    vCPU the host has descheduled (vcpu_is_preempted()), which an idle, halted vCPU is.
//  - sync-idle-prev: as sync, and then select_idle_sibling()'s "prev is cache affine and idle ->
//    prev" (every CPU of the model shares one LLC), as on bare metal.
// Not modelled: wake_affine_weight() (load comparison when the waker's CPU is busy), wake_wide()
// (one waker with many wakees), the idle-CPU scans of select_idle_sibling(). A task moves
// otherwise only by idle balancing (sched/load_balance.h).
//
// Invariants: (1) it moves only a sleeping task (in no run queue); (2) a wake-up without
// WF_SYNC never moves the wakee.

#pragma once

#include <cstdint>

namespace mmreplay::kernelsim {

class Simulation;
class Task;
struct Cpu;

// Models select_task_rq_fair() for `p` woken by `waker` with `wake_flags` (WF_SYNC or 0): the CPU
// p should run on, p.cpu() when it stays.
// REQUIRES: p sleeping; waker on its CPU (it is executing the wake-up).
Cpu& select_task_rq_fair(Simulation& sim, const Task& waker, const Task& p, uint32_t wake_flags);

}  // namespace mmreplay::kernelsim
