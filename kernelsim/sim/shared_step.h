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
#include <utility>

#include "kernelsim/sim/task.h"

namespace mmreplay::kernelsim {

class SharedStep {
 public:
  explicit SharedStep(Task& t) : task_(t) {}

  // try_run() below does the same, with its outcome told apart; written out here because every
  // shared step of every task passes here (through try_run() and a stored Outcome it was 0.4%
  // more host instructions in a 64-CPU fault run).
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
  // two ways of not completing told apart: kDeferred, the task must queue at its clock; kParked,
  // the step ran and left the task in a wait structure that will resume it. The frame that takes
  // over makes the same step and awaits `after_try(step, outcome)`, which suspends as
  // await_suspend() would have (nothing ran since the try, so the step is not tried again).
  enum class Outcome : uint8_t { kDone, kDeferred, kParked };
  Outcome try_run() {
    if (!task_.try_enter_now()) return Outcome::kDeferred;
    return run_now() ? Outcome::kDone : Outcome::kParked;
  }
  void suspend_after(Outcome tried, std::coroutine_handle<> h) {
    if (tried == Outcome::kParked) {
      task_.park(h);
    } else {
      task_.defer(this, h);
    }
  }

  // Runs at now() == task.clock(). Returns true when done, false when the task was parked.
  virtual bool run_now() = 0;
  // True for a step that touches nothing: a wake-up may move the deferred task's clock back
  // before it runs (Task::cut_user_run()), as nothing the step does depends on that clock.
  virtual bool synchronises_only() const { return false; }

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
  bool synchronises_only() const override { return true; }
};

inline SyncStep sync_point(Task& t) {
  return SyncStep(t);
}

// Awaits, in the frame that takes over, a step whose SharedStep::try_run() did not complete
// (`tried`): queued at the task's clock, or parked until granted. The step lives in the awaiter,
// in that frame; the result is the step's await_resume(). REQUIRES for kParked: the step is a
// copy of the one that ran, so no wait structure may keep the address of the step that parked
// and its await_resume() must not read what run_now() or the waker wrote (true of mmap_sem's
// and the VMA lock's steps: their waiters are tasks, their results fixed before they park).
template <class Step>
class TriedStep {
 public:
  TriedStep(Step step, SharedStep::Outcome tried) : step_(std::move(step)), tried_(tried) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { step_.suspend_after(tried_, h); }
  decltype(auto) await_resume() const noexcept { return step_.await_resume(); }

 private:
  Step step_;
  SharedStep::Outcome tried_;
};

template <class Step>
TriedStep<Step> after_try(Step step, SharedStep::Outcome tried) {
  return TriedStep<Step>(std::move(step), tried);
}

}  // namespace mmreplay::kernelsim
