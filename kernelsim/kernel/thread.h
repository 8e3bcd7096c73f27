// Thread lifecycle and the op loop of a trace thread (kernel/fork.c, kernel/exit.c).
//
// run_thread() is a task's top-level coroutine: it takes Ops from its source one by one, runs
// each through the kernel path it models, records its latency (task clock at the end minus at
// the start) and exits at kThreadExit or the end of the stream.
// Thread exit drops the mm's user count; the last user tears the mm down (mmput() ->
// exit_mmap()).

#pragma once

#include <cstdint>
#include <memory>

#include "kernelsim/sim/co.h"
#include "kernelsim/sim/op.h"

namespace mmreplay::kernelsim {

class Task;

// The op loop. Owns `source`.
Co<void> run_thread(Task& t, std::unique_ptr<OpSource> source);

// Runs a hand-written body, then do_exit().
Co<void> run_body(Task& t, Co<void> body);

// Runs one Op on t. Returns false when the thread must exit after it.
Co<bool> do_op(Task& t, const Op& op);

// Models do_exit(): mmput() (exit_mmap() by the last user), then the final schedule().
// The task must not run any further model code after this completes.
Co<void> do_exit(Task& t);

// Models the mm side of exec / the child of fork: t continues in mm `mm_id` (created if
// needed), dropping its old mm (mmput()) unless it is already in it. With a parent (fork),
// a fresh mm_id is first filled from the parent's (dup_mmap(), kernel/fork.h).
Co<void> do_mm_switch(Task& t, uint32_t mm_id, uint32_t parent_mm_id = 0);

// User-space work for `d` on t's CPU, time-sliced with other tasks of that CPU.
Co<void> do_think(Task& t, SimTime d);

// Blocks t off its CPU for `d` (nanosleep, futex wait). `recorded`: `d` is a wait's length as
// measured on the recording machine, its own wake-up included (the CPU's deep idle exit is then
// not added again: Scheduler::wake_up_process()).
Co<void> do_sleep(Task& t, SimTime d, bool recorded = false);

// Models kernel/exit.c: do_wait() for one child: t sleeps off its CPU until the task started by
// the clone keyed `child` (Simulation::clone_task()) has exited, and returns at once when it
// already has. With no such task (the child was not traced), sleeps `fallback` instead.
// `any_child` (wait4(-1), 0 or -pgid): the wait reaps whichever child of that child's parent
// has exited first in the replay, not necessarily `child`, the one the recording's reaped.
Co<void> do_wait(Task& t, uint64_t child, SimTime fallback, bool any_child = false);

}  // namespace mmreplay::kernelsim
