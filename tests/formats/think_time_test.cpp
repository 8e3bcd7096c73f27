// The gap arithmetic of closed-loop replay (formats/think_time.h): what is taken out of each
// recorded gap, clamping, faults with the header's estimate, kernel-mode faults inside their
// syscall, off-CPU time, and traces that carry no estimate.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/think_time.h"
#include "formats/trace_reader.h"

namespace mmreplay::formats {
namespace {

constexpr uint64_t kUs = 1000;

Event timed(Event e, uint64_t duration_ns) {
  e.duration_ns = duration_ns;
  return e;
}

// The gaps a clock gives for `events`, in order.
std::vector<uint64_t> gaps(GapCosts costs, const std::vector<Event>& events, GapTally* tally) {
  ThinkClock clock(costs);
  std::vector<uint64_t> out;
  for (const Event& e : events) out.push_back(clock.gap_before(e, tally));
  return out;
}

TEST(ThinkTime, WithoutCostsTheGapIsTheRecordedOneFromThePreviousEnd) {
  GapTally tally;
  const auto g = gaps({},
                      {ev::thread_start(0), timed(ev::madvise(10 * kUs, 0, 4096, 4), 5 * kUs),
                       ev::page_fault(40 * kUs, 0x1000, true), ev::munmap(41 * kUs, 0, 4096)},
                      &tally);
  EXPECT_EQ(g, (std::vector<uint64_t>{0, 10 * kUs, 25 * kUs, 1 * kUs}));
  EXPECT_EQ(tally.removed_ns, 0u);
  EXPECT_EQ(tally.clamps, 0u);
}

TEST(ThinkTime, TracingCostComesOutOfEveryGapAndFaultCostAfterAUserFault) {
  GapTally tally;
  const GapCosts costs{700, 1500};
  const auto g = gaps(costs,
                      {ev::thread_start(0), timed(ev::madvise(10 * kUs, 0, 4096, 4), 5 * kUs),
                       ev::page_fault(40 * kUs, 0x1000, true), ev::munmap(45 * kUs, 0, 4096)},
                      &tally);
  // madvise: 10 us - 700; the fault: 25 us - 700 (after a syscall, no fault cost);
  // munmap after the fault: 5 us - 700 - 1500.
  EXPECT_EQ(g, (std::vector<uint64_t>{0, 10 * kUs - 700, 25 * kUs - 700, 5 * kUs - 2200}));
  EXPECT_EQ(tally.removed_ns, 700u + 700u + 2200u);
  EXPECT_EQ(tally.clamps, 0u);
}

TEST(ThinkTime, CostsLargerThanTheGapClampToZeroAndAreCounted) {
  GapTally tally;
  const auto g =
      gaps({700, 1500},
           {ev::page_fault(0, 0x1000, true), ev::page_fault(2 * kUs, 0x2000, true),
            ev::page_fault(3 * kUs, 0x3000, true), ev::page_fault(3 * kUs + 100, 0x4000, true)},
           &tally);
  // 2000 - 2200 clamps; 1000 - 2200 clamps; 100 - 2200 clamps: never negative.
  EXPECT_EQ(g, (std::vector<uint64_t>{0, 0, 0, 0}));
  EXPECT_EQ(tally.clamps, 3u);
  EXPECT_EQ(tally.removed_ns, 2000u + 1000u + 100u);  // no more than was recorded
}

TEST(ThinkTime, AKernelFaultInsideItsSyscallHasNoGapAndKeepsTheSyscallsEnd) {
  GapTally tally;
  // read() from 10 us for 100 us, two kernel-mode faults inside it, then a call at 130 us.
  const auto g =
      gaps({700, 1500},
           {ev::thread_start(0), timed(ev::file_read(10 * kUs, 1, 0, 8192), 100 * kUs),
            ev::page_fault(20 * kUs, 0x1000, true, false, true),
            ev::page_fault(30 * kUs, 0x2000, true, false, true), ev::munmap(130 * kUs, 0, 4096)},
           &tally);
  // The kernel faults take nothing out (their time is inside the read's duration), and the gap
  // after the read runs from its end (110 us), not from the last fault, with no fault cost.
  EXPECT_EQ(g, (std::vector<uint64_t>{0, 10 * kUs - 700, 0, 0, 20 * kUs - 700}));
  EXPECT_EQ(tally.clamps, 0u);
}

TEST(ThinkTime, OffCpuTimeIsNotThinkTimeAndTheGapsCostsAreTakenOnce) {
  GapTally tally;
  // A user fault at 0, preempted from 1 us to 501 us, the next fault at 503 us: 3 us of the
  // gap were on the CPU, and the 2.2 us of costs come out of those pieces once.
  const auto g = gaps({700, 1500},
                      {ev::page_fault(0, 0x1000, true), ev::off_cpu(1 * kUs, 500 * kUs, true),
                       ev::page_fault(503 * kUs, 0x2000, true)},
                      &tally);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[1] + g[2], 3 * kUs - 2200);
  EXPECT_EQ(g[1], 0u);  // the first microsecond went to the costs
  EXPECT_EQ(tally.removed_ns, 2200u);
  EXPECT_EQ(tally.clamps, 0u);
  // Without costs the off-CPU 500 us still are not think time.
  GapTally none;
  const auto plain = gaps({},
                          {ev::page_fault(0, 0x1000, true), ev::off_cpu(1 * kUs, 500 * kUs, true),
                           ev::page_fault(503 * kUs, 0x2000, true)},
                          &none);
  EXPECT_EQ(plain, (std::vector<uint64_t>{0, 1 * kUs, 2 * kUs}));
}

TEST(ThinkTime, AnOlderTraceCarriesNoEstimateAndReplaysItsGapsAsRecorded) {
  Status s;
  auto reader = TraceReader::open(std::string(MMREPLAY_FORMAT_FIXTURES) + "/v1_1_sample.mmtrace",
                                  ReaderOptions(), &s);
  ASSERT_TRUE(reader) << s.message();
  const GapCosts costs = GapCosts::from(reader->meta().recorder);
  EXPECT_EQ(costs.tracing_ns, 0u);
  EXPECT_EQ(costs.fault_ns, 0u);
}

}  // namespace
}  // namespace mmreplay::formats
