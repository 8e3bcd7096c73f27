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
#include <cstdint>

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

  // What await_ready() does, for a path written without a coroutine frame (sim/co.h), with its
  // two ways of not completing told apart. kDeferred: the task must queue at its clock; the frame
  // that takes over makes the same step and queues it with `co_await requeue(step)` (nothing ran
  // since the try). kParked: the step ran and left the task in a wait structure that will resume
  // it; the frame that takes over starts with `co_await parked(t)`.
  enum class Outcome : uint8_t { kDone, kDeferred, kParked };
  Outcome try_run() {
    if (!task_.try_enter_now()) return Outcome::kDeferred;
    return run_now() ? Outcome::kDone : Outcome::kParked;
  }
  // Queues the task at its clock to run this step then (what await_suspend() does after a
  // failed try).
  void queue(std::coroutine_handle<> h) { task_.defer(this, h); }

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

// The first await of a frame that takes over after SharedStep::try_run() parked its task: it
// suspends there, and whoever grants the step resumes it.
class ParkedStep {
 public:
  explicit ParkedStep(Task& t) : task_(t) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { task_.park(h); }
  void await_resume() const noexcept {}

 private:
  Task& task_;
};

inline ParkedStep parked(Task& t) {
  return ParkedStep(t);
}

// Awaits a step whose try_run() said kDeferred: the task queues at its clock and the step runs
// when that event fires, as await_ready() returning false would have had it. The step lives in
// the awaiting frame. Its result is the step's await_resume().
template <class Step>
class RequeuedStep {
 public:
  explicit RequeuedStep(Step& step) : step_(step) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { step_.queue(h); }
  decltype(auto) await_resume() const noexcept { return step_.await_resume(); }

 private:
  Step& step_;
};

template <class Step>
RequeuedStep<Step> requeue(Step& step) {
  return RequeuedStep<Step>(step);
}

}  // namespace mmreplay::kernelsim
