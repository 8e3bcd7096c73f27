// Thread and mm lifetime: do_exit(), mmput(), the mm switch of exec / fork's child, and the two
// ways a thread spends time outside the kernel paths (think, sleep).

#include <vector>

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/kernel/fork.h"
#include "kernelsim/kernel/thread.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmap.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models mmput(): the last user of an mm tears it down.
Co<void> mmput(Task& t, Mm& mm) {
  if (mm.users > 0) --mm.users;
  if (mm.users == 0 && !mm.dead) co_await exit_mmap(t, mm);
}

// Models the final schedule() of do_exit(): the task leaves its CPU for good.
class ExitStep final : public SharedStep {
 public:
  explicit ExitStep(Task& t) : SharedStep(t) {}
  bool run_now() override {
    // Wakes the parents waiting for this exit (do_notify_parent() -> __wake_up_parent()): those
    // waiting for this child, and those waiting for any child of its parent.
    for (Task* w : task_.exit_waiters) task_.sim().sched().wake_sleeper(task_, *w);
    task_.exit_waiters.clear();
    if (Task* parent = task_.parent) {
      for (Task* w : parent->wait_chldexit) task_.sim().sched().wake_sleeper(task_, *w);
      parent->wait_chldexit.clear();
    }
    task_.sim().sched().exit(task_);
    return false;
  }
};

// Models hrtimer_nanosleep(): off CPU, woken by a timer `d` later, or at once by a fatal signal
// (kernel/signal.h); a task already killed does not sleep.
class SleepStep final : public SharedStep {
 public:
  SleepStep(Task& t, SimTime d, bool recorded) : SharedStep(t), d_(d), recorded_(recorded) {}
  bool run_now() override {
    if (task_.oom_killed) return true;
    task_.sim().events().schedule(
        task_.clock() + d_, &task_,
        task_.begin_interruptible_sleep(Task::WaitFor::kTimer, recorded_));
    task_.sim().sched().sleep(task_);
    return false;
  }

 private:
  SimTime d_;
  bool recorded_;
};

// Models release_task() of a reaped child: it leaves its parent's children list.
void release_task(Task& child) {
  child.reaped = true;
  if (Task* parent = child.parent) std::erase(parent->children, &child);
}

// Models do_wait()'s sleep on wait_chldexit: off CPU until `child` has exited, or a fatal signal.
class WaitChildStep final : public SharedStep {
 public:
  WaitChildStep(Task& t, Task& child) : SharedStep(t), child_(child) {}
  bool run_now() override {
    if (child_.finished() || task_.oom_killed) return true;
    child_.exit_waiters.push_back(&task_);
    task_.begin_interruptible_sleep(Task::WaitFor::kChildExit);
    task_.waited_child = &child_;
    task_.sim().sched().sleep(task_);
    return false;
  }

 private:
  Task& child_;
};

// Models one pass of do_wait() for any child of `parent` (wait4(-1), 0 or a process group:
// do_wait_thread() over its children list): the first child in the list that has exited and
// no wait has reaped is reaped (wait_task_zombie()), which the list's order, oldest clone
// first, decides, not the order they exited in; with none, it sleeps on the parent's
// wait_chldexit until a child exits, and then looks again (done() false). With no child left
// (ECHILD), or a fatal signal, it is done.
class WaitAnyChildStep final : public SharedStep {
 public:
  WaitAnyChildStep(Task& t, Task& parent) : SharedStep(t), parent_(parent) {}
  bool run_now() override {
    done_ = true;
    if (task_.oom_killed || parent_.children.empty()) return true;
    for (Task* child : parent_.children) {
      if (child->finished()) {
        release_task(*child);
        return true;
      }
    }
    done_ = false;
    parent_.wait_chldexit.push_back(&task_);
    task_.begin_interruptible_sleep(Task::WaitFor::kChildExit);
    task_.waited_child = nullptr;
    task_.waited_children_of = &parent_;
    task_.sim().sched().sleep(task_);
    return false;
  }
  bool done() const { return done_; }

 private:
  Task& parent_;
  bool done_ = false;
};

}  // namespace

Co<void> do_wait(Task& t, uint64_t child, SimTime fallback, bool any_child) {
  Task* c = t.sim().clone_task(child);
  if (c == nullptr || c == &t) {
    co_await do_sleep(t, fallback, /*recorded=*/true);
    co_return;
  }
  // The child the recording reaped names the family: its parent's children, the caller's own
  // unless another thread of its process forked it. A child with no recorded clone (a trace
  // before format 1.4) has no family in the run: it is waited for by name.
  if (any_child && c->parent != nullptr) {
    for (;;) {
      WaitAnyChildStep step(t, *c->parent);
      co_await step;
      if (step.done()) co_return;
    }
  }
  co_await WaitChildStep(t, *c);
  if (c->finished() && !c->reaped) release_task(*c);
}

Co<void> do_exit(Task& t) {
  t.work(t.sim().costs().thread_exit);
  co_await sync_point(t);  // mm_users is shared
  if (Mm* mm = t.mm()) co_await mmput(t, *mm);
  co_await ExitStep(t);  // never resumed
}

Co<void> do_mm_switch(Task& t, uint32_t mm_id, uint32_t parent_mm_id) {
  Simulation& sim = t.sim();
  Mm& next = sim.mm(mm_id);
  t.work(sim.costs().mm_create);
  // Fork: the new mm is a copy of the parent's at this moment (copy_mm() -> dup_mm()), made
  // once, by the first task of the child that gets here.
  Mm* parent = parent_mm_id != 0 ? sim.find_mm(parent_mm_id) : nullptr;
  if (parent != nullptr && needs_dup_mmap(next, *parent)) co_await dup_mmap(t, next, *parent);
  co_await sync_point(t);  // mm_users is shared
  // A task spawned already in `next` (the replay starts a child in its own mm) keeps it: only a
  // real switch drops the old mm (mmput()), so an mm is torn down by its last user's exit.
  if (Mm* prev = t.mm(); prev != &next) {
    if (prev != nullptr) co_await mmput(t, *prev);
    ++next.users;
    t.set_mm(&next);
  }
  t.work(switch_mm_irqs_off(sim, t.cpu(), &next));
}

namespace {

// A preemption point at the tick that would end the slice (a task woken onto this CPU meanwhile
// gets its turn there), and a final sync so that interrupts that hit the user code lengthen it.
Co<void> think_in_slices(Task& t, SimTime d) {
  while (d > SimTime::zero()) {
    const SimTime chunk = min(d, t.user_run_until() - t.clock());
    t.user_work(chunk);
    d -= chunk;
    co_await sync_point(t);
  }
}

Co<void> queued_sync_point(Task& t) {
  co_await sync_point(t);
}

}  // namespace

// Most think gaps of a recorded trace are shorter than a slice and end with nothing else due:
// then the think is its work and a sync point that runs inline, with no frame (sim/co.h).
// try_enter_now() is what that sync point tries first (SharedStep::await_ready()); when it
// fails, the sync point is queued as think_in_slices() would queue it (trying again changes
// nothing: nothing ran in between).
Co<void> do_think(Task& t, SimTime d) {
  if (d <= SimTime::zero()) return Co<void>::ready();
  if (t.clock() + d > t.user_run_until()) return think_in_slices(t, d);
  t.user_work(d);
  if (t.try_enter_now()) return Co<void>::ready();
  return queued_sync_point(t);
}

Co<void> do_sleep(Task& t, SimTime d, bool recorded) {
  co_await SleepStep(t, d, recorded);
}

}  // namespace mmreplay::kernelsim
