// Task: one simulated thread (a task_struct) and its private clock.
//
// A task runs kernel paths written as coroutines (sim/co.h). Private work -- anything touching
// only this task's or this CPU's state -- just advances clock() with work(). Before touching
// shared state a path co_awaits a SharedStep (sim/shared_step.h), which brings global time up to
// the task's clock; that is the only place the two clocks meet.
//
// Invariants (asserted in task.cpp):
//  (1) While a task runs (its coroutine is executing), clock() >= the queue's now().
//  (2) A task is in exactly one of: running/spinning on its CPU (cpu().curr == this), in its
//      CPU's run queue (runnable), sleeping in one wait structure, not started, or dead.
//  (3) A task has at most one resume pending: one queued kRun event, or none while it is parked.

#pragma once

#include <array>
#include <cassert>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernelsim/sched/cpu.h"
#include "kernelsim/sim/co.h"
#include "kernelsim/sim/event_queue.h"
#include "kernelsim/sim/sim_floor.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Simulation;
class SharedStep;
class RwSem;
class Mm;
struct Vma;

// The kernel's per-thread VMA cache (3.15-6.0, mm/vmacache.c: current->vmacache): the last VMAs
// this task's faults found in its mm, tried before the tree (mm/vma.h: VmaTree::vma_lookup(addr,
// cache)). Host-side only: a hit charges the same simulated find_vma time as a tree walk. Valid
// while `tree` and `seq` match the tree's (mm->vmacache_seqnum); emptied when the mm changes.
struct VmaCache {
  static constexpr size_t kSize = 4;  // VMACACHE_SIZE
  const void* tree = nullptr;
  uint64_t seq = 0;
  std::array<Vma*, kSize> vmas{};
  void flush() { tree = nullptr; }  // vmacache_flush()
};

enum class TaskState : uint8_t {
  kNew,       // created, start time not reached
  kRunning,   // cpu().curr == this, executing or about to
  kSpinning,  // cpu().curr == this, busy-waiting (spinlock, rwsem optimistic spin)
  kRunnable,  // in cpu().runqueue
  kSleeping,  // off CPU, waiting for a wake-up
  kDead,
};

// A lock this task holds, for hold-time accounting and the rwsem owner-on-CPU check.
struct HeldRwsem {
  RwSem* sem;
  SimTime since;
  bool write;
};

class Task final : public EventTarget {
 public:
  // Event arguments for fire().
  static constexpr uint64_t kRun = 0;   // the task has its CPU: continue at clock()
  static constexpr uint64_t kWake = 1;  // timer or start: wake_up_process() now
  // The end of a recorded wait (OpKind::kBlock): its measured length already holds the
  // recording machine's wake-up, deep idle exit included, so none is added (Scheduler).
  static constexpr uint64_t kWakeRecorded = 2;
  // A wake-up of an interruptible sleep carries the sleep's number above these bits (wake_arg()).
  static constexpr uint64_t kWakeKindMask = 3;
  static constexpr unsigned kSleepSeqShift = 2;
  // A kRun event carries the task's run generation above the same bits (run_arg()): a cut user
  // run (cut_user_run()) queues its event earlier and moves the generation on, so the event it
  // replaced is dropped (due()).
  uint64_t run_arg() const { return kRun | (run_gen_ << kSleepSeqShift); }

  // What an interruptible sleep (TASK_INTERRUPTIBLE) waits for, so that a fatal signal can take
  // the task out of that wait and wake it (kernel/signal.h).
  enum class WaitFor : uint8_t { kNothing, kTimer, kChildExit, kFutex };

  // `floor` is `sim` seen from below (Simulation derives from SimFloor).
  Task(Simulation& sim, SimFloor& floor, uint32_t id, Cpu& cpu);
  ~Task();
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  Simulation& sim() const { return sim_; }
  uint32_t id() const { return id_; }
  Cpu& cpu() const { return *cpu_; }
  Mm* mm() const { return mm_; }
  void set_mm(Mm* mm) {
    mm_ = mm;
    vmacache.flush();
  }
  SimTime clock() const { return clock_; }
  TaskState state() const { return state_; }
  // task_struct->on_cpu: running or spinning on its CPU.
  bool on_cpu() const { return state_ == TaskState::kRunning || state_ == TaskState::kSpinning; }
  bool finished() const { return state_ == TaskState::kDead; }

  // Private work: advance this task's clock, no event.
  void work(SimTime d) { clock_ += d; }
  // Private work in user mode (think time, user accesses, the MMU's walks and A/D updates for
  // them): also the CPU's user_ns, and an interrupt that lands in it counts as user time
  // (absorb_steal()).
  void user_work(SimTime d) {
    if (clock_ != user_end_) user_start_ = clock_;
    clock_ += d;
    user_end_ = clock_;
    cpu_->counters.user_ns += static_cast<uint64_t>(d.count_ns());
  }

  // Takes ownership of the top-level coroutine and makes the task runnable at `at`.
  // REQUIRES: state() == kNew, at >= now.
  void start(Co<void> body, SimTime at);

  // ---- Scheduler and lock interface (model internals) ------------------------------------------
  void set_state(TaskState s) { state_ = s; }
  // Move the clock forward to `t` (no-op when already later).
  void advance_to(SimTime t) {
    if (t > clock_) clock_ = t;
  }
  // The CPU the task runs on from its next wake-up (sched/wake_affine.h set_task_cpu()).
  // REQUIRES: state() == kSleeping (it is in no run queue).
  void set_cpu(Cpu& cpu) { cpu_ = &cpu; }
  // Charge the interrupt time stolen from this task while it held its CPU, of the handlers that
  // started by its clock (sched/cpu.h pending_steal).
  void absorb_steal();
  // Every pending handler's time, those still to start included: the task leaves its CPU, and
  // the model charges them to it rather than to whoever runs there next.
  void absorb_all_steal();
  // A wake-up preempts this task at `at` (after `interrupt` of a reschedule IPI's entry on its
  // CPU), while it waits at a sync point with its clock ahead in user-mode work: in user mode the
  // preemption is taken at once (the interrupt's return to user mode schedules), so the run is cut
  // there: the clock goes back to max(at, the run's start) (before the run it was in the kernel,
  // which schedules as it returns to user mode), the rest of the run is owed and done when the
  // task has its CPU again, and its event is queued at the cut. False, and nothing changes,
  // when the task is not in such a run at `at`. REQUIRES: running on its CPU (not spinning).
  bool cut_user_run(SimTime at, SimTime interrupt);
  // Another task waits for the CPU, preemption is enabled, and the tick that ends the slice or
  // a wake-up's preemption has come (sched/time_slice.h).
  bool should_preempt() const;
  // How far user-mode work may run before it must stop at a preemption point: kUserModePreemptCheck
  // on (a wake-up may preempt it meanwhile), or sooner the tick that ends its slice while tasks
  // wait for its CPU.
  SimTime user_run_until() const;

 private:
  // should_preempt() and user_run_until() once tasks wait for this one's CPU: out of line, so
  // that the inline tests stay small on the paths where none waits (a 64-CPU fault's).
  bool preempted_by_waiters() const;
  SimTime user_run_until_tick() const;
  // The tick that preempts the task while others wait for its CPU (sched/time_slice.h).
  SimTime preempt_tick() const;

 public:
  // SharedStep protocol (sim/shared_step.h).
  bool try_enter_now();
  void defer(SharedStep* step, std::coroutine_handle<> h);
  void park(std::coroutine_handle<> h) { resume_ = h; }
  // The parked task runs its step again when it next gets its CPU, instead of going on: a
  // woken rwsem writer tries for the lock once more (locking/rwsem.cpp). The step is the
  // awaitable the task is parked in, alive in its frame. REQUIRES: parked, no step pending.
  void rerun_step_when_woken(SharedStep* step) {
    assert(pending_step_ == nullptr && "invariant (3)");
    pending_step_ = step;
  }

  // Starts an interruptible sleep on `what` with a new number, and returns the event argument
  // that wakes it (kWake or kWakeRecorded with that number).
  uint64_t begin_interruptible_sleep(WaitFor what, bool recorded = false);
  // The event argument that wakes the current interruptible sleep: a waker's event for a sleep
  // a fatal signal ended meanwhile is dropped (fire()).
  uint64_t wake_arg() const { return kWake | (sleep_seq_ << kSleepSeqShift); }
  // Ends the interruptible sleep without its waker (a fatal signal, kernel/signal.h): events
  // queued for it (its timer, hrtimer_cancel()) are dropped; returns the argument of the
  // signal's own wake-up.
  uint64_t interrupt_sleep();

  void fire(uint64_t arg) override;
  // A kRun event is due at clock(), once the interrupt time stolen since it was queued is charged.
  SimTime due(SimTime when, uint64_t arg) override;

  int preempt_count = 0;  // spinlocks held or being waited for
  // Given its CPU and yet to switch to its mm (sched/core.h Scheduler::switch_mm_in()).
  bool mm_switch_pending = false;
  SimTime slice_start;  // when it last got its CPU
  // When it last left a CPU (task_hot()'s exec_start, sched/load_balance.h); infinite: never ran.
  SimTime left_cpu_at = SimTime::infinite();
  std::vector<HeldRwsem> held_rwsems;
  int64_t last_result = 0;  // return value of the last syscall (address or -errno)
  bool kthread = false;     // PF_KTHREAD (kswapd): not a trace thread
  bool oom_killed = false;  // an OOM victim: its op loop ends (mm/oom_kill.h)
  // EEVDF's sched_entity (sched/eevdf_lag.h): the CPU time it has had (every task weighs the
  // same), its lag when it last left its queue, its virtual deadline, and the CPU whose queue
  // still holds it asleep (DELAY_DEQUEUE; nullptr otherwise).
  SimTime vruntime;
  SimTime vlag;
  SimTime eevdf_deadline;
  Cpu* eevdf_delayed_on = nullptr;
  // The wake-up under way for this task preempts the task running on its CPU, and its waker, on
  // that CPU, sent the reschedule IPI (Scheduler::ttwu_ipi()); nullptr otherwise.
  const Cpu* resched_ipi_from = nullptr;
  // The last page alloc_pages() gave the task was not one of those freed to its CPU's pcp list
  // and still at its head (mm/pcp_high.h PerCpuPages): zeroing it costs clear_page_cold.
  bool page_cold = false;
  // A fault of the task copied a page a present pte write-protected (do_wp_page() ->
  // wp_page_copy(): a fork-shared, zero or private page-cache page) since the flag was last
  // taken. A recorded replay takes it (replay/trace_op_source.h): the gap after such a user-mode
  // fault held the copy, which the recorder's zero-fill fault cost does not take out.
  bool wp_copied = false;
  // The interruptible sleep the task is in (kNothing otherwise), and what it waits for.
  WaitFor waits_for = WaitFor::kNothing;
  // kChildExit: the child waited for; nullptr in a wait for any child of `waited_children_of`
  // (wait4(-1), asleep in that task's wait_chldexit).
  Task* waited_child = nullptr;
  Task* waited_children_of = nullptr;
  uint64_t waited_futex = 0;  // kFutex: the wake id
  // Tasks asleep in do_wait() for this one's exit; woken by do_exit().
  std::vector<Task*> exit_waiters;
  // The family do_wait() reads (kernel/exit.cpp): the task whose clone started this one
  // (real_parent; nullptr for a task the run started), the tasks this one's clones started and
  // no wait has reaped yet, in clone order (its `children` list, which release_task() leaves),
  // whether a wait has taken this one's exit (reaped), and the tasks asleep in a wait for any of
  // this one's children (signal->wait_chldexit, woken by each child's exit).
  Task* parent = nullptr;
  std::vector<Task*> children;
  bool reaped = false;
  std::vector<Task*> wait_chldexit;
  VmaCache vmacache;  // lookups in mm()'s VMA tree only

 private:
  Simulation& sim_;
  SimFloor& floor_;
  uint32_t id_;
  Cpu* cpu_;
  Mm* mm_ = nullptr;
  SimTime clock_;
  TaskState state_ = TaskState::kNew;
  std::coroutine_handle<> resume_;
  SharedStep* pending_step_ = nullptr;
  uint64_t sleep_seq_ = 0;  // the number of the last interruptible sleep (0: none yet)
  std::optional<Co<void>> body_;
  // The last run of user_work() by the task's clock, [user_start_, user_end_).
  SimTime user_start_;
  SimTime user_end_;
  // User-mode work a wake-up's preemption cut off (cut_user_run()), done when the task runs again.
  SimTime owed_user_;
  uint64_t run_gen_ = 0;  // see run_arg()

  // Does the owed user-mode work and queues the task's run at its end. Out of line: fire()'s
  // path, which every event of a task takes, stays as it was without it.
  [[gnu::noinline]] void resume_cut_user_run();

  // Charges one handler's stolen time to this task.
  void charge_steal(const IrqSteal& s);
};

// The interrupt pending in IRR on `cpu` (kernel/smp_ipi.h) fires, once the handler running when
// its IPI landed has returned, and finds call_single_queue empty: its entry is paid for nothing
// (kernel/smp.cpp). REQUIRES: cpu.irr_pending_at is not infinite.
void fire_needless_irq(Simulation& sim, Cpu& cpu);

// The sync-point path (SharedStep::await_ready()) runs several times a simulated event: inline
// here, not calls into task.cpp.

inline void Task::absorb_steal() {
  // With interrupts off (arch/x86/irqflags.h) no handler runs on this CPU: one accepted before
  // they went off is charged after they come back on, never inside a spin_lock_irq*() hold.
  if (cpu_->curr != this || cpu_->irqs_disabled > 0) return;
  IrqStealQueue& pending = cpu_->pending_steal;
  while (!pending.empty() && pending.front().start <= clock_) {
    charge_steal(pending.front());
    pending.pop_front();
  }
}

inline void Task::absorb_all_steal() {
  if (cpu_->curr != this || cpu_->irqs_disabled > 0) return;
  for (const IrqSteal& s : cpu_->pending_steal) charge_steal(s);
  cpu_->pending_steal.clear();
}

// Tick-based CPU time accounting (account_process_tick(), the kernel's default without
// CONFIG_IRQ_TIME_ACCOUNTING or VIRT_CPU_ACCOUNTING): a tick held off while a handler runs fires
// as it returns and counts in the mode the handler interrupted. So a handler that landed in user
// work is user time to getrusage(), and the rest of that user run comes after it; one that landed
// in kernel work before the run pushes the whole run later.
inline void Task::charge_steal(const IrqSteal& s) {
  if (s.start < user_start_) {
    user_start_ += s.duration;
    user_end_ += s.duration;
  } else if (s.start < user_end_) {
    cpu_->counters.irq_user_ns += static_cast<uint64_t>(s.duration.count_ns());
    user_end_ += s.duration;
  }
  clock_ += s.duration;
}

inline SimTime Task::user_run_until() const {
  // None waits: a task that comes meanwhile is a wake-up, looked for within the check interval.
  if (cpu_->runqueue.empty()) return clock_ + kUserModePreemptCheck;
  return user_run_until_tick();
}

inline bool Task::should_preempt() const {
  return preempt_count == 0 && !cpu_->runqueue.empty() && preempted_by_waiters();
}

inline bool Task::try_enter_now() {
  absorb_steal();
  assert(clock_ >= floor_.now() && "invariant (1): task clock behind global time");
  if (should_preempt()) return false;
  EventQueue& q = floor_.events();
  if (!q.can_advance_to(clock_)) return false;
  q.advance_to(clock_);
  return true;
}

}  // namespace mmreplay::kernelsim
