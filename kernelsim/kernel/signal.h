// Fatal signals (kernel/signal.c), reduced to what the OOM killer's SIGKILL needs.
//
// A task killed while it sleeps interruptibly (TASK_INTERRUPTIBLE: nanosleep, a recorded blocking
// call, wait4(), a futex wait) is taken out of the wait and woken at once (complete_signal() ->
// signal_wake_up(t, fatal)): its timer is cancelled and its place on the child's wait queue or
// the futex's hash bucket is given up, so the sleep returns (-EINTR) and its op loop ends
// (kernel/thread.h) without waiting for a waker that may never come. A killed task does not start
// such a sleep again (signal_pending() before schedule()). Uninterruptible sleeps (an rwsem, a
// page lock, writeback, reclaim's throttling) are not woken, as in the kernel; the victim leaves
// them when they end.

#pragma once

#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Task;

// Models signal_wake_up(t, true) for a fatal signal sent at `at` (the sender's clock): wakes t if
// it is in an interruptible sleep. REQUIRES: at >= the simulation's now.
void signal_wake_up_fatal(Task& t, SimTime at);

}  // namespace mmreplay::kernelsim
