// The event queue's ordering contract: time first, then scheduling order.

#include "kernelsim/sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
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

// A target that drops the events whose argument it no longer wants (a cancelled timer).
class Canceller final : public EventTarget {
 public:
  explicit Canceller(std::vector<uint64_t>* log) : log_(log) {}
  void fire(uint64_t arg) override { log_->push_back(arg); }
  SimTime due(SimTime when, uint64_t arg) override {
    return arg == cancelled ? SimTime::infinite() : when;
  }
  uint64_t cancelled = 0;

 private:
  std::vector<uint64_t>* log_;
};

TEST(EventQueueTest, ADroppedEventNeitherFiresNorMovesTime) {
  EventQueue q;
  std::vector<uint64_t> log;
  Canceller c(&log);
  q.schedule(SimTime::ns(10), &c, 1);
  q.schedule(SimTime::ns(20), &c, 2);
  q.schedule(SimTime::ns(1000), &c, 3);
  c.cancelled = 3;
  while (q.run_one()) {
  }
  EXPECT_EQ(log, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(q.now(), SimTime::ns(20)) << "the run ends at its last event that fired";
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.events_fired(), 2u);
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

// A target whose event may find it delayed (as a task charged IPI time while it waited): either
// it queues itself again when fired (requeue_in_fire), the way Task::fire() did, or it says so in
// due() and lets the queue move the event.
class Delayed final : public EventTarget {
 public:
  Delayed(EventQueue* q, std::vector<uint64_t>* log, bool requeue_in_fire)
      : q_(q), log_(log), requeue_in_fire_(requeue_in_fire) {}
  void delay_next(SimTime d) { delays_.push_back(d); }
  SimTime due(SimTime when, uint64_t arg) override {
    if (requeue_in_fire_ || delays_.empty()) return EventTarget::due(when, arg);
    return when + take_delay();
  }
  void fire(uint64_t arg) override {
    if (requeue_in_fire_ && !delays_.empty()) {
      q_->schedule(q_->now() + take_delay(), this, arg);
      return;
    }
    log_->push_back(arg);
  }

 private:
  SimTime take_delay() {
    const SimTime d = delays_.front();
    delays_.erase(delays_.begin());
    return d;
  }
  EventQueue* q_;
  std::vector<uint64_t>* log_;
  bool requeue_in_fire_;
  std::vector<SimTime> delays_;
};

// Moving a delayed event in place (due()) must give the run that firing it and queueing it again
// gives: the same order of everything that fires, ties included, and the same event count.
TEST(EventQueueTest, AnEventMovedByDueFiresInTheOrderARequeueInFireGives) {
  const auto run = [](bool requeue_in_fire, uint64_t* requeued) {
    EventQueue q;
    std::vector<uint64_t> log;
    std::vector<std::unique_ptr<Delayed>> targets;
    uint64_t x = 777;
    const auto next = [&x] {
      x = x * 6364136223846793005u + 1442695040888963407u;
      return x >> 60;  // 0-15: many ties
    };
    for (uint64_t i = 0; i < 40; ++i) {
      targets.push_back(std::make_unique<Delayed>(&q, &log, requeue_in_fire));
      for (uint64_t d = next() % 4; d > 0; --d) {
        // At least 1 ns: a task whose clock did not move fires (Task::fire() requeues only later).
        targets.back()->delay_next(SimTime::ns(static_cast<int64_t>(next()) + 1));
      }
      q.schedule(SimTime::ns(static_cast<int64_t>(next())), targets.back().get(), i);
    }
    uint64_t arg = 1000;
    while (q.run_one()) {
      // Other events keep arriving at the times the delayed ones move to.
      if (next() < 4) {
        q.schedule(q.now() + SimTime::ns(static_cast<int64_t>(next())),
                   targets[next() % targets.size()].get(), arg++);
      }
    }
    *requeued = q.events_requeued();
    log.push_back(q.events_fired());
    return log;
  };
  uint64_t requeued_in_fire = 0;
  uint64_t requeued_by_due = 0;
  const std::vector<uint64_t> a = run(true, &requeued_in_fire);
  const std::vector<uint64_t> b = run(false, &requeued_by_due);
  EXPECT_EQ(a, b);
  EXPECT_EQ(requeued_in_fire, 0u);
  EXPECT_GT(requeued_by_due, 20u) << "the case must move events";
}

// An EventLane is a scheduling detail: a run whose device completions go through one fires the
// same events in the same order, at the same times, as one that queues each in the heap, ties at
// equal times and completions out of the lane's order included. Completions are scheduled, as a
// device's are, by the events that fire, some of them at the time of the lane's last one.
TEST(EventLaneTest, FiresWhatTheHeapWouldInTheSameOrder) {
  const auto run = [](bool through_lane) {
    EventQueue q;
    std::vector<uint64_t> log;
    Recorder completions(&log);
    EventLane lane(q, completions);
    uint64_t state = 12345;
    const auto next = [&state] {
      state = state * 6364136223846793005u + 1442695040888963407u;
      return (state >> 33) % 50;
    };
    // Tasks: each fires, logs, queues a completion and itself again.
    class Tasker final : public EventTarget {
     public:
      Tasker(std::function<void(uint64_t)> f) : f_(std::move(f)) {}
      void fire(uint64_t arg) override { f_(arg); }

     private:
      std::function<void(uint64_t)> f_;
    };
    SimTime last_end;
    uint64_t completion = 1'000'000;
    Tasker* self = nullptr;
    Tasker tasker([&](uint64_t arg) {
      log.push_back(arg);
      const uint64_t r = next();
      // Mostly behind the last completion (a queue), sometimes at its very time, sometimes
      // earlier (out of the lane's order).
      SimTime end = r < 5    ? q.now() + SimTime::ns(static_cast<int64_t>(r))
                    : r < 15 ? std::max(q.now(), last_end)
                             : std::max(q.now(), last_end) + SimTime::ns(static_cast<int64_t>(r));
      last_end = std::max(last_end, end);
      if (through_lane) {
        lane.schedule(end, completion++);
      } else {
        q.schedule(end, &completions, completion++);
      }
      // The task's next step: soon, or at the time of a completion queued earlier (a tie the
      // completion wins, having been scheduled first).
      const SimTime step = next() < 10 ? std::max(q.now(), last_end)
                                       : q.now() + SimTime::ns(static_cast<int64_t>(next() % 7));
      if (arg < 400) q.schedule(step, self, arg + 8);
    });
    self = &tasker;
    for (uint64_t i = 0; i < 8; ++i)
      q.schedule(SimTime::ns(static_cast<int64_t>(i % 3)), &tasker, i);
    while (q.run_one()) {
      log.push_back(static_cast<uint64_t>(q.now().count_ns()));
    }
    EXPECT_EQ(lane.size(), 0u);
    log.push_back(q.events_fired());
    return log;
  };
  const std::vector<uint64_t> heap = run(false);
  const std::vector<uint64_t> lane = run(true);
  EXPECT_EQ(heap, lane);
  EXPECT_GT(heap.size(), 800u);
}

}  // namespace
}  // namespace mmreplay::kernelsim
