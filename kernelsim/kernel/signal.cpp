#include "kernelsim/kernel/signal.h"

#include <algorithm>

#include "kernelsim/kernel/futex.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

void signal_wake_up_fatal(Task& t, SimTime at) {
  if (t.state() != TaskState::kSleeping) return;
  Simulation& sim = t.sim();
  switch (t.waits_for) {
    case Task::WaitFor::kNothing:  // uninterruptible, or its waker has already woken it
      return;
    case Task::WaitFor::kTimer:  // hrtimer_cancel(): interrupt_sleep() drops the timer's event
      break;
    case Task::WaitFor::kChildExit: {  // remove_wait_queue(&signal->wait_chldexit)
      std::vector<Task*>& waiters = t.waited_child != nullptr ? t.waited_child->exit_waiters
                                                              : t.waited_children_of->wait_chldexit;
      waiters.erase(std::remove(waiters.begin(), waiters.end(), &t), waiters.end());
      break;
    }
    case Task::WaitFor::kFutex: {  // futex_unqueue()
      auto [first, last] = sim.futex_wakes().waiters.equal_range(t.waited_futex);
      for (auto it = first; it != last; ++it) {
        if (it->second == &t) {
          sim.futex_wakes().waiters.erase(it);
          break;
        }
      }
      break;
    }
  }
  sim.events().schedule(at, &t, t.interrupt_sleep());
}

}  // namespace mmreplay::kernelsim
