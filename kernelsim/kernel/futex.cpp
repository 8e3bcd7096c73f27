#include "kernelsim/kernel/futex.h"

#include "kernelsim/kernel/thread.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// futex_wait_queue(): off CPU on the wake id unless it already replayed, or a fatal signal is
// pending (kernel/signal.h).
class FutexWaitStep final : public SharedStep {
 public:
  FutexWaitStep(Task& t, uint64_t id) : SharedStep(t), id_(id) {}
  bool run_now() override {
    FutexWakes& f = task_.sim().futex_wakes();
    if (f.woken.contains(id_) || task_.oom_killed) return true;
    f.waiters.emplace(id_, &task_);
    task_.begin_interruptible_sleep(Task::WaitFor::kFutex);
    task_.waited_futex = id_;
    task_.sim().sched().sleep(task_);
    return false;
  }

 private:
  uint64_t id_;
};

// futex_wake() -> wake_up_q(): the waiters become runnable now, each on the CPU
// select_task_rq() gives it.
class FutexWakeStep final : public SharedStep {
 public:
  FutexWakeStep(Task& t, uint64_t id, uint32_t wake_flags)
      : SharedStep(t), id_(id), wake_flags_(wake_flags) {}
  bool run_now() override {
    FutexWakes& f = task_.sim().futex_wakes();
    f.woken.insert(id_);
    auto [first, last] = f.waiters.equal_range(id_);
    for (auto it = first; it != last; ++it) {
      task_.sim().sched().select_task_rq(*it->second, task_, wake_flags_);
      task_.sim().sched().wake_sleeper(task_, *it->second);
    }
    f.waiters.erase(first, last);
    return true;
  }

 private:
  uint64_t id_;
  uint32_t wake_flags_;
};

}  // namespace

Co<void> futex_wait(Task& t, uint64_t wake_id, SimTime fallback) {
  if (wake_id == 0) {
    co_await do_sleep(t, fallback, /*recorded=*/true);
    co_return;
  }
  co_await FutexWaitStep(t, wake_id);
}

Co<void> futex_wake(Task& t, uint64_t wake_id, uint32_t wake_flags) {
  if (wake_id != 0) co_await FutexWakeStep(t, wake_id, wake_flags);
}

size_t futex_wake_all(FutexWakes& f, SimTime now) {
  size_t n = 0;
  for (auto& [id, task] : f.waiters) {
    task->sim().events().schedule(now, task, task->wake_arg());
    ++n;
  }
  f.waiters.clear();
  return n;
}

}  // namespace mmreplay::kernelsim
