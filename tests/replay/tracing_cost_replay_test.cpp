// Replay of recorded timing (issue 19, items 4 and 6): a kernel-mode fault replays inside the
// syscall that took it, and the recorder's costs in the header come out of the think time.

#include <gtest/gtest.h>

#include <vector>

#include "kernelsim/mm/memory.h"
#include "replay/run.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::replay {
namespace {

namespace ev = formats::ev;
using formats::Event;

constexpr uint64_t kUs = 1000;
constexpr uint64_t kBuffer = 0x7f0000000000;
using formats::testing::kPage;

Event timed(Event e, uint64_t duration_ns) {
  e.duration_ns = duration_ns;
  return e;
}

uint64_t counter(const RunResult& r, const char* key) {
  const auto it = r.counters.find(key);
  return it == r.counters.end() ? 0 : it->second;
}

// A header with the recorder's costs: `tracing_ns` per event, `fault_ns` more after a user fault.
formats::RecorderInfo measured_costs(uint64_t tracing_ns, uint64_t fault_ns) {
  formats::RecorderInfo r;
  r.tracing_cost_ns = tracing_ns;
  r.fault_cost_ns = fault_ns;
  return r;
}

RunResult replay(const std::string& name, const formats::RecorderInfo& recorder,
                 const std::vector<Event>& events) {
  const std::string path = formats::testing::temp_path(name);
  {
    formats::TraceMeta meta;
    meta.recorder = recorder;
    meta.threads = {{1, 1, "dd"}};
    meta.files = {{1, "/dev/zero", 1 << 20, 4096}};
    Status s;
    auto w = formats::TraceWriter::create(path, meta, formats::WriterOptions(), &s);
    EXPECT_TRUE(w) << s.message();
    for (const Event& e : events) EXPECT_TRUE(w->append(0, e));
    EXPECT_TRUE(w->close());
  }
  Status s;
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
  EXPECT_TRUE(reader) << s.message();
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 1;
  RunResult r;
  EXPECT_TRUE(execute_run(spec, *reader, cache, &r));
  return r;
}

// mmap a 2-page buffer, read() into it for 1 ms (the kernel faults both pages in copy_to_user,
// at 100 us and 200 us), then 5 us of user time before munmap.
std::vector<Event> read_into_fresh_buffer(bool kernel_faults) {
  std::vector<Event> v = {ev::thread_start(0),
                          timed(ev::mmap(0, kBuffer, 2 * kPage, 3, 0x22), 1 * kUs),
                          timed(ev::file_read(10 * kUs, 1, 0, 2 * kPage), 1000 * kUs)};
  if (kernel_faults) {
    v.push_back(ev::page_fault(100 * kUs, kBuffer, true, false, true));
    v.push_back(ev::page_fault(200 * kUs, kBuffer + kPage, true, false, true));
  }
  v.push_back(timed(ev::munmap(1015 * kUs, kBuffer, 2 * kPage), 1 * kUs));
  v.push_back(ev::thread_exit(1020 * kUs));
  return v;
}

TEST(TracingCostReplay, KernelFaultsReplayInsideTheirSyscall) {
  const RunResult with = replay("kfault.mmtrace", {}, read_into_fresh_buffer(true));
  const RunResult without = replay("nokfault.mmtrace", {}, read_into_fresh_buffer(false));
  EXPECT_EQ(with.counters.at("faults"), 2u);
  EXPECT_EQ(with.counters.at("kernel_mode_faults"), 2u);
  EXPECT_EQ(counter(with, "fault_segv"), 0u);
  EXPECT_EQ(without.counters.count("kernel_mode_faults"), 0u);
  // The faults add their modelled cost and nothing else: the 5 us after the read still run from
  // the read's end, not from the last fault (which would add 800 us of think time).
  ASSERT_GT(with.makespan_ns, without.makespan_ns);
  EXPECT_LT(with.makespan_ns - without.makespan_ns, 100 * kUs);
}

// Two user faults 3 us apart, then a call 4 us after the second.
std::vector<Event> fault_loop() {
  return {ev::thread_start(0),
          timed(ev::mmap(0, kBuffer, 2 * kPage, 3, 0x22), 1 * kUs),
          ev::page_fault(10 * kUs, kBuffer, true),
          ev::page_fault(13 * kUs, kBuffer + kPage, true),
          timed(ev::munmap(17 * kUs, kBuffer, 2 * kPage), 1 * kUs),
          ev::thread_exit(20 * kUs)};
}

TEST(TracingCostReplay, TheHeadersCostsComeOutOfTheThinkTime) {
  const formats::RecorderInfo measured = measured_costs(700, 1500);
  const RunResult net = replay("costs.mmtrace", measured, fault_loop());
  const RunResult raw = replay("nocosts.mmtrace", {}, fault_loop());
  // Gaps: 9 us (after mmap), 3 us (fault to fault), 4 us (fault to munmap), 2 us (to exit):
  // 700 from each, 1500 more after each fault.
  const uint64_t removed = 4 * 700 + 2 * 1500;
  EXPECT_EQ(net.counters.at("think_removed_ns"), removed);
  EXPECT_EQ(net.counters.count("think_clamped"), 0u);
  EXPECT_EQ(raw.counters.count("think_removed_ns"), 0u);  // an old trace replays as it did
  EXPECT_EQ(raw.makespan_ns - net.makespan_ns, removed);
}

TEST(TracingCostReplay, CostsAboveAGapClampItAndAreCounted) {
  // With 700: more than the 3 and 4 us after each fault.
  const formats::RecorderInfo measured = measured_costs(700, 3500);
  const RunResult r = replay("clamp.mmtrace", measured, fault_loop());
  EXPECT_EQ(r.counters.at("think_clamped"), 2u);  // fault to fault, fault to munmap
  EXPECT_GT(r.makespan_ns, 0u);
}

// A read fault maps the zero page; a write 3 us later copies it (do_wp_page() -> wp_page_copy()),
// or, with `fresh`, writes the page after it (a zero-fill fault); munmap 7 us after the write.
std::vector<Event> write_after_read(bool fresh) {
  return {ev::thread_start(0),
          timed(ev::mmap(0, kBuffer, 2 * kPage, 3, 0x22), 1 * kUs),
          ev::page_fault(10 * kUs, kBuffer, false),
          ev::page_fault(13 * kUs, fresh ? kBuffer + kPage : kBuffer, true),
          timed(ev::munmap(20 * kUs, kBuffer, 2 * kPage), 1 * kUs),
          ev::thread_exit(25 * kUs)};
}

TEST(TracingCostReplay, AGapAfterAFaultThatCopiedAPageLosesTheCopyToo) {
  const formats::RecorderInfo measured = measured_costs(700, 1500);
  const RunResult copied = replay("wpcopy.mmtrace", measured, write_after_read(false));
  const RunResult fresh = replay("wpfresh.mmtrace", measured, write_after_read(true));
  EXPECT_EQ(copied.counters.at("fault_cow"), 1u);
  EXPECT_EQ(counter(fresh, "fault_cow"), 0u);
  // The recorder took a zero-fill fault's cost out of the gap after each; the gap after the
  // copy held the copy's surplus over that as well, and it comes out with them.
  const uint64_t surplus = static_cast<uint64_t>(
      kernelsim::wp_copy_surplus(*kernelsim::find_cost_profile("default")).count_ns());
  ASSERT_GT(surplus, 0u);
  ASSERT_LT(surplus, 7 * kUs - 700 - 1500);  // inside the gap: no clamp
  EXPECT_EQ(counter(fresh, "think_removed_ns"), 4 * 700 + 2 * 1500);
  EXPECT_EQ(counter(copied, "think_removed_ns"), 4 * 700 + 2 * 1500 + surplus);
  EXPECT_EQ(counter(copied, "think_clamped"), 0u);
  // A trace whose gaps were not measured (no fault cost) keeps them whole, copy or not.
  const RunResult raw = replay("wpraw.mmtrace", {}, write_after_read(false));
  EXPECT_EQ(raw.counters.at("fault_cow"), 1u);
  EXPECT_EQ(counter(raw, "think_removed_ns"), 0u);
}

TEST(TracingCostReplay, TheCopysSurplusClampsAShortGap) {
  // With 700, 0.2 us short of the 7 us after the copy.
  const formats::RecorderInfo measured = measured_costs(700, 6100);
  const RunResult r = replay("wpclamp.mmtrace", measured, write_after_read(false));
  // Fault to fault (3 us) clamps on the recorder's costs; the copy's gap on its surplus (the
  // default profile's 0.3 us).
  EXPECT_EQ(r.counters.at("think_clamped"), 2u);
  EXPECT_EQ(r.counters.at("think_removed_ns"), 700 + 3 * kUs + 7 * kUs + 700);
}

TEST(TracingCostReplay, ACopyInsideASyscallStaysInItsDuration) {
  const formats::RecorderInfo measured = measured_costs(700, 1500);
  // A read fault maps the zero page; read() then writes the page from the kernel (a kernel-mode
  // fault inside the call, which copies the zero page). The read's recorded duration holds that
  // copy, so the gap after the read loses only the recorder's cost per event.
  const std::vector<Event> events = {ev::thread_start(0),
                                     timed(ev::mmap(0, kBuffer, 2 * kPage, 3, 0x22), 1 * kUs),
                                     ev::page_fault(10 * kUs, kBuffer, false),
                                     timed(ev::file_read(13 * kUs, 1, 0, kPage), 10 * kUs),
                                     ev::page_fault(15 * kUs, kBuffer, true, false, true),
                                     timed(ev::munmap(30 * kUs, kBuffer, 2 * kPage), 1 * kUs),
                                     ev::thread_exit(35 * kUs)};
  const RunResult r = replay("kcopy.mmtrace", measured, events);
  EXPECT_EQ(r.counters.at("fault_cow"), 1u);
  EXPECT_EQ(r.counters.at("kernel_mode_faults"), 1u);
  EXPECT_EQ(counter(r, "think_removed_ns"), 4 * 700 + 1500);
}

}  // namespace
}  // namespace mmreplay::replay
