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
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  Event ev = heap_.back();
  heap_.pop_back();
  assert(ev.when >= now_ && "invariant (1)");
  now_ = ev.when;
  ++fired_;
  ev.target->fire(ev.arg);
  return true;
}

}  // namespace mmreplay::kernelsim
