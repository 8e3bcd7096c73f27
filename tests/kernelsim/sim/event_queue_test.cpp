// The event queue's ordering contract: time first, then scheduling order.

#include "kernelsim/sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
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

// Many events at few distinct times, scheduled while others fire (as tasks defer while the run
// goes on): every event fires once, in (time, scheduling order) order.
TEST(EventQueueTest, InterleavedSchedulingKeepsTimeThenSequenceOrder) {
  EventQueue q;
  std::vector<uint64_t> log;
  Recorder r(&log);
  std::vector<std::pair<uint64_t, uint64_t>> expected;  // (time ns, arg), arg = schedule order
  uint64_t x = 12345;
  uint64_t next_arg = 0;
  const auto schedule_some = [&](int n) {
    for (int i = 0; i < n; ++i) {
      x = x * 6364136223846793005u + 1442695040888963407u;  // an LCG: fixed, varied times
      const uint64_t at = static_cast<uint64_t>(q.now().count_ns()) + (x >> 59);  // 0-31 ns: ties
      q.schedule(SimTime::ns(static_cast<int64_t>(at)), &r, next_arg);
      expected.emplace_back(at, next_arg++);
    }
  };
  schedule_some(100);
  for (int round = 0; round < 200 && q.run_one(); ++round) schedule_some(round % 3);
  while (q.run_one()) {
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  ASSERT_EQ(log.size(), expected.size());
  // Events scheduled later can fire earlier than ones already fired only if they are due
  // earlier, which schedule() forbids (not before now()); so the log is the sorted order.
  for (size_t i = 0; i < log.size(); ++i) EXPECT_EQ(log[i], expected[i].second) << "at " << i;
  EXPECT_EQ(q.events_fired(), expected.size());
}

}  // namespace
}  // namespace mmreplay::kernelsim
