// The discrete-event queue: one per Simulation; and EventLane, events of one target that come in
// time order, held beside it with the same (when, seq) order (a device's completions).
//
// Invariants (asserted in debug builds, event_queue.cpp):
//  (1) now() never decreases; no event is ever scheduled before now().
//  (2) Events fire in (when, seq) order; seq is the scheduling order, so two events at the same
//      instant fire in the order they were scheduled and a run is bit-for-bit reproducible.
//  (3) Every scheduled event fires exactly once (there is no cancel: a target that no longer
//      wants an event ignores it by checking the argument it gets back, e.g. a generation count).
//      An event whose target is due later (EventTarget::due()) is moved instead, with the next
//      seq, which is what firing it and scheduling it again would do; it fires once when due.
//      An event its target drops (due() returns SimTime::infinite(): a cancelled timer) does not
//      fire, and the queue's time does not move to it, so a run does not last until a timer
//      nobody waits for.

#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

// Something an event is delivered to. Owned elsewhere; must outlive its queued events.
class EventTarget {
 public:
  virtual void fire(uint64_t arg) = 0;
  // When the event (`when`, `arg`) is due, given what happened to this target since it was
  // queued. A later time means fire() would do nothing but queue it again there (a task charged
  // interrupt time meanwhile: Task::due()), so the queue moves the event instead of firing it.
  // Called with now() == when; may update the target as fire() would before requeueing.
  // SimTime::infinite(): the target no longer wants the event; it is dropped.
  virtual SimTime due(SimTime when, uint64_t /*arg*/) { return when; }

 protected:
  ~EventTarget() = default;
};

class EventQueue {
 public:
  SimTime now() const { return now_; }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  uint64_t events_fired() const { return fired_; }

  // REQUIRES: !empty().
  SimTime next_time() const { return heap_.front().when; }

  // Queue `target->fire(arg)` at `when`.
  // REQUIRES: when >= now().
  void schedule(SimTime when, EventTarget* target, uint64_t arg = 0);
  // The sequence number schedule() would give an event now, for an event kept out of the heap
  // until it is due to be next (EventLane) and queued then with schedule_seq().
  uint64_t take_seq() { return next_seq_++; }
  // Queue an event with a sequence number take_seq() gave earlier: it fires where it would have
  // had it been scheduled then. REQUIRES: when >= now(); seq from take_seq(), used once.
  void schedule_seq(SimTime when, uint64_t seq, EventTarget* target, uint64_t arg);

  // Advance now() to `t` without an event: a running task reached `t` by private work and
  // nothing else is queued at or before `t`.
  // REQUIRES: t >= now(), and empty() || t < next_time().
  void advance_to(SimTime t) {
    assert(t >= now_ && "invariant (1): time went backwards");
    assert((heap_.empty() || t < heap_.front().when) && "invariant (2): would skip a queued event");
    now_ = t;
  }

  // True when a running task may move now() to `t` inline: nothing queued at or before `t`
  // and `t` within the horizon.
  bool can_advance_to(SimTime t) const {
    return t <= horizon_ && (heap_.empty() || t < heap_.front().when);
  }

  // Time beyond which nothing may run inline (Simulation::run_until()); infinite otherwise.
  void set_horizon(SimTime t) { horizon_ = t; }

  // Pop the earliest event, set now() to its time and fire it; or, when its target is due later
  // (EventTarget::due()), move it there as fire() + schedule() would, with a new sequence
  // number. Returns false when empty. Defined here so that the run loop inlines it whichever
  // unity batch it is compiled in.
  bool run_one() {
    if (heap_.empty()) return false;
    const Event& top = heap_.front();
    assert(top.when >= now_ && "invariant (1)");
    const SimTime before = now_;
    now_ = top.when;
    ++fired_;
    const SimTime due = top.target->due(top.when, top.arg);
    if (due > top.when) {
      move_or_drop_top(due, before);
      return true;
    }
    const Event ev = top;
    pop_top();
    ev.target->fire(ev.arg);
    return true;
  }

  // Events moved by run_one() rather than fired (a subset of events_fired()).
  uint64_t events_requeued() const { return requeued_; }

 private:
  struct Event {
    SimTime when;
    uint64_t seq;
    EventTarget* target;
    uint64_t arg;
  };
  // The queue's order: (when, seq), a total order (seq is unique), so the pop order and the run
  // do not depend on how the heap is laid out.
  static bool earlier(const Event& a, const Event& b) {
    return a.when != b.when ? a.when < b.when : a.seq < b.seq;
  }

  // A 4-ary heap (children of i: 4i+1 .. 4i+4): half the levels of a binary one, and a node's
  // children share a cache line or two. A 64-task run's queue is 64-70 events deep; with
  // std::pop_heap's binary heap the event queue was 14-17% of a contended run's host
  // instructions.
  static constexpr size_t kArity = 4;

  // Puts `moved` at heap_[i] and sifts it down, heap_[i]'s old value being discarded (a pop,
  // with the last leaf as `moved`, or the top moved later).
  void sift_down(size_t i, const Event& moved);
  // Adds `ev` to the heap.
  void push(const Event& ev);
  // Removes the earliest event.
  void pop_top() {
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last);
  }
  // run_one() for a top event its target wants later (`due`: moved there) or not at all
  // (SimTime::infinite(): dropped, now() back to `before`).
  void move_or_drop_top(SimTime due, SimTime before);

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
  uint64_t fired_ = 0;
  uint64_t requeued_ = 0;
  SimTime now_;
  SimTime horizon_ = SimTime::infinite();
};

// EventLane: events for one target that mostly come in time order (a device's completions, each
// queued behind the last), kept in a FIFO of their own with only the earliest in the queue's
// heap. Each takes its sequence number when scheduled, so the run is the one schedule() would
// give, event for event; the heap stays as deep as the tasks' own events, not their I/O in
// flight (seed 000: 128 swap writes in flight beside 12 tasks, the heap's sift_down 11% of the
// host's time). An event earlier than the lane's last goes to the heap directly.
class EventLane final : public EventTarget {
 public:
  EventLane(EventQueue& queue, EventTarget& target) : queue_(queue), target_(target) {}
  // Queue `target.fire(arg)` at `when`. REQUIRES: when >= queue.now().
  void schedule(SimTime when, uint64_t arg) {
    const uint64_t seq = queue_.take_seq();
    if (!pending_.empty() && when < pending_.back().when) {
      queue_.schedule_seq(when, seq, &target_, arg);
      return;
    }
    pending_.push_back({when, seq, arg});
    if (pending_.size() == 1) queue_.schedule_seq(when, seq, this, 0);
  }
  void fire(uint64_t /*arg*/) override {
    const uint64_t arg = pending_.front().arg;
    pending_.pop_front();
    if (!pending_.empty()) {
      const Pending& next = pending_.front();
      queue_.schedule_seq(next.when, next.seq, this, 0);
    }
    target_.fire(arg);
  }
  // Events waiting in the lane, the one in the heap included.
  size_t size() const { return pending_.size(); }

 private:
  struct Pending {
    SimTime when;
    uint64_t seq;
    uint64_t arg;
  };
  EventQueue& queue_;
  EventTarget& target_;
  std::deque<Pending> pending_;  // in (when, seq) order; the front's event is in the heap
};

}  // namespace mmreplay::kernelsim
