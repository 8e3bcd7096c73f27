#include "kernelsim/sim/task.h"

#include <cassert>

#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

Task::Task(Simulation& sim, uint32_t id, Cpu& cpu) : sim_(sim), id_(id), cpu_(&cpu) {}

Task::~Task() = default;

void Task::start(Co<void> body, SimTime at) {
  assert(state_ == TaskState::kNew && !body_.has_value());
  body_.emplace(std::move(body));
  resume_ = body_->handle();
  clock_ = at;
  if (TraceSink* ts = sim_.trace())
    ts->name_task(id_, cpu_->id, mm_ != nullptr ? mm_->id : 0, kthread);
  sim_.events().schedule(at, this, kWake);
}

void Task::absorb_steal() {
  if (cpu_->curr != this) return;
  clock_ += cpu_->pending_steal;
  cpu_->pending_steal = SimTime::zero();
}

bool Task::should_preempt() const {
  return preempt_count == 0 && !cpu_->runqueue.empty() &&
         clock_ - slice_start >= sim_.machine().time_slice;
}

bool Task::try_enter_now() {
  absorb_steal();
  assert(clock_ >= sim_.now() && "invariant (1): task clock behind global time");
  if (should_preempt()) return false;
  EventQueue& q = sim_.events();
  if (!q.can_advance_to(clock_)) return false;
  q.advance_to(clock_);
  return true;
}

void Task::defer(SharedStep* step, std::coroutine_handle<> h) {
  assert(pending_step_ == nullptr && "invariant (3)");
  resume_ = h;
  pending_step_ = step;
  // Even a due preemption waits for the event: the task is on its CPU until global time
  // reaches its clock (fire() preempts it then).
  sim_.events().schedule(clock_, this, kRun);
}

void Task::fire(uint64_t arg) {
  if (arg == kWake) {
    sim_.sched().wake_up_process(*this, sim_.now());
    return;
  }
  assert(cpu_->curr == this && on_cpu() && "invariant (2): resumed off its CPU");
  absorb_steal();
  if (clock_ > sim_.now()) {
    sim_.events().schedule(clock_, this, kRun);
    return;
  }
  if (pending_step_ != nullptr) {
    if (should_preempt()) {
      sim_.sched().preempt(*this);
      return;
    }
    SharedStep* step = pending_step_;
    pending_step_ = nullptr;
    if (!step->run_now()) return;
  }
  resume_.resume();
}

}  // namespace mmreplay::kernelsim
