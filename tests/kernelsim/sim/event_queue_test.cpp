// The event queue's ordering contract: time first, then scheduling order.

#include "kernelsim/sim/event_queue.h"

#include <gtest/gtest.h>

#include <vector>

namespace mmreplay::kernelsim {
namespace {

class Recorder final : public EventTarget {
 public:
  explicit Recorder(std::vector<uint64_t>* log) : log_(log) {}
  void fire(uint64_t arg) override { log_->push_back(arg); }

 private:
  std::vector<uint64_t>* log_;
};

TEST(EventQueueTest, EqualTimesFireInSchedulingOrder) {
  EventQueue q;
  std::vector<uint64_t> log;
  Recorder r(&log);
  q.schedule(SimTime::ns(10), &r, 1);
  q.schedule(SimTime::ns(5), &r, 2);
  q.schedule(SimTime::ns(10), &r, 3);
  q.schedule(SimTime::ns(5), &r, 4);
  q.schedule(SimTime::ns(10), &r, 5);
  while (q.run_one()) {
  }
  EXPECT_EQ(log, (std::vector<uint64_t>{2, 4, 1, 3, 5}));
  EXPECT_EQ(q.now(), SimTime::ns(10));
  EXPECT_EQ(q.events_fired(), 5u);
}

TEST(EventQueueTest, InlineAdvanceStopsBeforeTheNextEventAndAtTheHorizon) {
  EventQueue q;
  std::vector<uint64_t> log;
  Recorder r(&log);
  q.schedule(SimTime::ns(100), &r, 1);
  EXPECT_TRUE(q.can_advance_to(SimTime::ns(99)));
  EXPECT_FALSE(q.can_advance_to(SimTime::ns(100))) << "a tie goes to the queued event";
  q.set_horizon(SimTime::ns(50));
  EXPECT_FALSE(q.can_advance_to(SimTime::ns(60)));
  q.set_horizon(SimTime::infinite());
  q.advance_to(SimTime::ns(99));
  EXPECT_EQ(q.now(), SimTime::ns(99));
}

}  // namespace
}  // namespace mmreplay::kernelsim
