// SharedStep: an awaitable point where a task touches shared state.
//
//   co_await mm.mmap_sem.down_read(t);    // DownRead is a SharedStep
//
// await_ready() brings the queue's time up to the task's clock when nothing else is due first
// and then runs the step inline (the common, uncontended case costs no event). Otherwise the
// task is queued at its clock -- after every event already due at that instant, so ties break by
// sequence number -- and the step runs when that event fires. A step either completes (the task
// goes on) or parks the task in a wait structure; whoever grants it later resumes the task.
//
// A derived step implements run_now(), called with now() == task.clock().

#pragma once

#include <coroutine>

#include "kernelsim/sim/task.h"

namespace mmreplay::kernelsim {

class SharedStep {
 public:
  explicit SharedStep(Task& t) : task_(t) {}

  bool await_ready() {
    if (!task_.try_enter_now()) {
      deferred_ = true;
      return false;
    }
    return run_now();
  }
  void await_suspend(std::coroutine_handle<> h) {
    if (deferred_) {
      task_.defer(this, h);
    } else {
      task_.park(h);
    }
  }
  void await_resume() const noexcept {}

  // Runs at now() == task.clock(). Returns true when done, false when the task was parked.
  virtual bool run_now() = 0;

 protected:
  ~SharedStep() = default;
  Task& task_;

 private:
  bool deferred_ = false;
};

// A step that only synchronises: afterwards now() == t.clock() (and the task may have been
// preempted and resumed, or charged interrupt time).
class SyncStep final : public SharedStep {
 public:
  explicit SyncStep(Task& t) : SharedStep(t) {}
  bool run_now() override { return true; }
};

inline SyncStep sync_point(Task& t) {
  return SyncStep(t);
}

}  // namespace mmreplay::kernelsim
