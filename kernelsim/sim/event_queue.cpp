#include "kernelsim/sim/event_queue.h"

#include <algorithm>
#include <cassert>

namespace mmreplay::kernelsim {

// Inlined into schedule() and schedule_seq().
inline void EventQueue::push(const Event& ev) {
  heap_.push_back(ev);
  // Sift up from the new leaf: parents later than the event move down into the hole.
  size_t i = heap_.size() - 1;
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!earlier(ev, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = ev;
}

void EventQueue::schedule(SimTime when, EventTarget* target, uint64_t arg) {
  assert(when >= now_ && "invariant (1): event scheduled in the past");
  assert(target != nullptr);
  push(Event{when, next_seq_++, target, arg});
}

void EventQueue::schedule_seq(SimTime when, uint64_t seq, EventTarget* target, uint64_t arg) {
  assert(when >= now_ && "invariant (1): event scheduled in the past");
  assert(target != nullptr && seq < next_seq_);
  push(Event{when, seq, target, arg});
}

void EventQueue::move_or_drop_top(SimTime due, SimTime before) {
  if (due == SimTime::infinite()) {  // dropped: not fired, and time stays where it was
    now_ = before;
    --fired_;
    pop_top();
    return;
  }
  // What firing would do: the target queues the same event again at `due`. The pop order
  // depends only on (when, seq), so moving it in place gives the same run.
  Event moved = heap_.front();
  moved.when = due;
  moved.seq = next_seq_++;
  ++requeued_;
  sift_down(0, moved);
}

void EventQueue::sift_down(size_t i, const Event& moved) {
  const size_t n = heap_.size();
  for (;;) {
    const size_t first = kArity * i + 1;
    if (first >= n) break;
    const size_t end = std::min(first + kArity, n);
    size_t best = first;
    for (size_t c = first + 1; c < end; ++c) {
      if (earlier(heap_[c], heap_[best])) best = c;
    }
    if (!earlier(heap_[best], moved)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = moved;
}

}  // namespace mmreplay::kernelsim
