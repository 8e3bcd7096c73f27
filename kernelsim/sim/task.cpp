#include "kernelsim/sim/task.h"

#include <cassert>

#include "kernelsim/sched/core.h"
#include "kernelsim/sched/cpu.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/sim/sim_floor.h"

namespace mmreplay::kernelsim {

Task::Task(Simulation& sim, SimFloor& floor, uint32_t id, Cpu& cpu)
    : sim_(sim), floor_(floor), id_(id), cpu_(&cpu) {}

Task::~Task() = default;

void Task::start(Co<void> body, SimTime at) {
  assert(state_ == TaskState::kNew && !body_.has_value());
  body_.emplace(std::move(body));
  resume_ = body_->handle();
  clock_ = at;
  if (floor_.trace() != nullptr) floor_.trace_task_start(*this);
  floor_.events().schedule(at, this, kWake);
}

void Task::defer(SharedStep* step, std::coroutine_handle<> h) {
  assert(pending_step_ == nullptr && "invariant (3)");
  resume_ = h;
  pending_step_ = step;
  // Even a due preemption waits for the event: the task is on its CPU until global time
  // reaches its clock (fire() preempts it then).
  floor_.events().schedule(clock_, this, run_arg());
}

SimTime Task::due(SimTime when, uint64_t arg) {
  if (arg != run_arg()) {
    // A run event a cut user run replaced (cut_user_run()): dropped.
    if ((arg & kWakeKindMask) == kRun) return SimTime::infinite();
    // An interruptible sleep's wake-up for a sleep that has ended otherwise (a fatal signal
    // cancelled its timer, or a waker raced with the signal): dropped.
    const uint64_t seq = arg >> kSleepSeqShift;
    const bool stale = seq != 0 && (seq != sleep_seq_ || state_ != TaskState::kSleeping);
    return stale ? SimTime::infinite() : when;
  }
  assert(cpu_->curr == this && on_cpu() && "invariant (2): resumed off its CPU");
  // IPI handlers ran on this CPU while the task waited for its event: it is due at its clock
  // with their time charged, and the queue moves the event there instead of firing it. An
  // interrupt pending in IRR (kernel/smp_ipi.h) fires first once global time has passed its
  // start: no csd sent from then on can still be queued in time for the interrupt before it.
  // Here, once an event, not at every sync point (1.3% of a 64-CPU fault run's instructions).
  if (cpu_->irr_pending_at <= floor_.now() && cpu_->irqs_disabled == 0 &&
      cpu_->irr_fires_at() <= floor_.now()) {
    fire_needless_irq(sim_, *cpu_);
  }
  absorb_steal();
  return clock_;
}

uint64_t Task::begin_interruptible_sleep(WaitFor what, bool recorded) {
  waits_for = what;
  ++sleep_seq_;
  return (recorded ? kWakeRecorded : kWake) | (sleep_seq_ << kSleepSeqShift);
}

uint64_t Task::interrupt_sleep() {
  waits_for = WaitFor::kNothing;
  waited_child = nullptr;
  ++sleep_seq_;
  return wake_arg();
}

bool Task::preempted_by_waiters() const {
  return clock_ >= cpu_->wakeup_preempt_at || clock_ >= preempt_tick();
}

SimTime Task::user_run_until_tick() const {
  const SimTime tick = preempt_tick();
  const SimTime check = clock_ + kUserModePreemptCheck;
  return tick > clock_ ? min(tick, check) : check;
}

SimTime Task::preempt_tick() const {
  return floor_.time_slice().preempt_tick(slice_start, 1 + cpu_->runqueue.size());
}

void Task::fire(uint64_t arg) {
  if (const uint64_t kind = arg & kWakeKindMask; kind == kWake || kind == kWakeRecorded) {
    if ((arg >> kSleepSeqShift) != 0) {  // due() dropped it if its sleep had ended
      waits_for = WaitFor::kNothing;
      waited_child = nullptr;
    }
    floor_.sched().wake_up_process(*this, floor_.now(), kind == kWakeRecorded);
    return;
  }
  assert(cpu_->curr == this && on_cpu() && "invariant (2): resumed off its CPU");
  // The queue fired this event only because due() found the task due now (stolen time charged).
  assert(clock_ <= floor_.now() && "fired before the task's clock: due() moves such events");
  if (mm_switch_pending && !floor_.sched().switch_mm_in(*this)) return;
  if (pending_step_ != nullptr) {
    if (should_preempt()) {
      floor_.sched().preempt(*this);
      return;
    }
    if (owed_user_ > SimTime::zero()) {
      resume_cut_user_run();
      return;
    }
    SharedStep* step = pending_step_;
    pending_step_ = nullptr;
    if (!step->run_now()) return;
  }
  resume_.resume();
}

bool Task::cut_user_run(SimTime at, SimTime interrupt) {
  assert(cpu_->curr == this && state_ == TaskState::kRunning);
  // Only a run of user-mode work the task is still ahead in, parked at a step whose outcome does
  // not depend on its clock; a task holding a spinlock is in the kernel.
  if (pending_step_ == nullptr || !pending_step_->synchronises_only() || preempt_count != 0 ||
      user_end_ != clock_) {
    return false;
  }
  const SimTime cut = max(at, user_start_);
  if (cut >= clock_) return false;
  // The user time was counted when the work was charged; the owed part is not counted again.
  owed_user_ += clock_ - cut;
  user_end_ = cut;
  clock_ = cut + interrupt;
  ++run_gen_;
  floor_.events().schedule(clock_, this, run_arg());
  return true;
}

void Task::resume_cut_user_run() {
  if (clock_ != user_end_) user_start_ = clock_;
  clock_ += owed_user_;
  user_end_ = clock_;
  owed_user_ = SimTime::zero();
  floor_.events().schedule(clock_, this, run_arg());
}

}  // namespace mmreplay::kernelsim
