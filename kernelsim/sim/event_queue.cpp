#include "kernelsim/sim/event_queue.h"

#include <algorithm>
#include <cassert>

namespace mmreplay::kernelsim {

void EventQueue::schedule(SimTime when, EventTarget* target, uint64_t arg) {
  assert(when >= now_ && "invariant (1): event scheduled in the past");
  assert(target != nullptr);
  heap_.push_back(Event{when, next_seq_++, target, arg});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

bool EventQueue::run_one() {
  if (heap_.empty()) return false;
  Event& top = heap_.front();
  assert(top.when >= now_ && "invariant (1)");
  now_ = top.when;
  ++fired_;
  const SimTime due = top.target->due(top.when, top.arg);
  if (due > top.when) {
    // What firing would do: the target queues the same event again at `due`. The pop order
    // depends only on (when, seq), so moving it in place gives the same run.
    top.when = due;
    top.seq = next_seq_++;
    ++requeued_;
    sift_down_top();
    return true;
  }
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  Event ev = heap_.back();
  heap_.pop_back();
  ev.target->fire(ev.arg);
  return true;
}

void EventQueue::sift_down_top() {
  const size_t n = heap_.size();
  const Event moved = heap_.front();
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    // The earlier of the two children (Later orders a max-heap of "later", so earliest on top).
    if (child + 1 < n && Later{}(heap_[child], heap_[child + 1])) ++child;
    if (!Later{}(moved, heap_[child])) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = moved;
}

}  // namespace mmreplay::kernelsim
