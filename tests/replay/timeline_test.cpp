// The Perfetto/Chrome timeline of a run: valid JSON, nested slices, monotonic tracks, and the
// things a kernel engineer opens it for (mmap_sem waits, shootdown IPIs) where the model has them.

#include "replay/timeline_json.h"

#include <gtest/gtest.h>

#include <sstream>

#include "kernelsim/mm/mm_types.h"
#include "tests/kernelsim/test_util.h"
#include "tests/replay/timeline_check.h"

namespace mmreplay::replay {
namespace {

using kernelsim::Op;
using kernelsim::SimTime;
using kernelsim::Simulation;
using kernelsim::TraceCat;
using kernelsim::Track;
using kernelsim::testing::kBase;
using kernelsim::testing::kPage;
using kernelsim::testing::make_sim;
using kernelsim::testing::thread;
using testing::check_timeline;
using testing::count_named;

constexpr uint64_t kPages = 1024;  // 4 MiB

// CPU 0 maps, populates and unmaps a range while CPUs 1-3 fault in it: faults wait on mmap_sem
// behind the munmap writer, and the munmap's flush sends IPIs to CPUs 1-3 (they run the mm).
void add_munmap_race(Simulation& sim) {
  thread(sim, 1, 0,
         {Op::mmap_anon(kBase, kPages * kPage, kernelsim::PROT_READ | kernelsim::PROT_WRITE),
          Op::touch(kBase, kPages * kPage / 2, true), Op::munmap(kBase, kPages * kPage),
          Op::think(SimTime::ms(2))});
  for (uint32_t cpu = 1; cpu < 4; ++cpu) {
    std::vector<Op> ops = {Op::think(SimTime::us(500))};
    for (uint64_t i = 0; i < 150; ++i) {
      ops.push_back(Op::page_fault(kBase + (kPages / 2 + cpu * 100 + i) * kPage, true));
      ops.push_back(Op::think(SimTime::us(10)));
    }
    thread(sim, 1, cpu, std::move(ops));
  }
}

struct Traced {
  std::unique_ptr<Simulation> sim;
  nlohmann::json doc;
  TimelineStats stats;
  std::string warnings;
};

Traced run_traced(TimelineOptions options) {
  Traced t;
  t.sim = make_sim(4);
  std::ostringstream out;
  std::ostringstream warnings;
  options.warnings = &warnings;
  {
    TimelineJsonWriter writer(out, 4, options);
    t.sim->set_trace_sink(&writer);
    add_munmap_race(*t.sim);
    t.sim->run();
    t.sim->set_trace_sink(nullptr);
    writer.finish(t.sim->now());
    t.stats = writer.stats();
  }
  EXPECT_EQ(t.sim->nr_live_tasks(), 0u);
  EXPECT_EQ(out.str().size(), t.stats.bytes) << "the writer's byte count is what it wrote";
  t.doc = nlohmann::json::parse(out.str());
  t.warnings = warnings.str();
  return t;
}

TEST(Timeline, ParsesNestsAndStaysMonotonicPerTrack) {
  const Traced t = run_traced(TimelineOptions());
  const testing::TimelineSummary s = check_timeline(t.doc);
  EXPECT_GT(s.slices, 100u);
  EXPECT_GT(s.counters, 0u);
  EXPECT_EQ(t.stats.unmatched_ends, 0u);
  EXPECT_FALSE(t.stats.size_guard_hit);
  // One named track per CPU with run slices, and the tasks' own tracks.
  for (uint32_t c = 0; c < 4; ++c) EXPECT_EQ(s.thread_names.at(1 + c), "CPU " + std::to_string(c));
  EXPECT_GT(count_named(t.doc, "task 1 mm 1", "X"), 0u) << "run slices name the task";
  EXPECT_GT(count_named(t.doc, "free pages", "C"), 0u);
  EXPECT_GT(count_named(t.doc, "LRU pages", "C"), 0u);
}

TEST(Timeline, ContendedMmapSemWaitsAppear) {
  const Traced t = run_traced(TimelineOptions());
  const kernelsim::LockClassStats* r = t.sim->lockstat().find("&mm->mmap_sem-R");
  ASSERT_NE(r, nullptr);
  ASSERT_GT(r->contentions, 0u);
  // Each contended read acquisition is one wait slice (readers do not spin).
  EXPECT_EQ(count_named(t.doc, "wait &mm->mmap_sem-R", "X"), r->contentions);
  EXPECT_GT(count_named(t.doc, "&mm->mmap_sem-W", "X"), 0u) << "the munmap's write hold";
}

TEST(Timeline, MunmapShootdownIpisAppearOnSenderAndTargets) {
  const Traced t = run_traced(TimelineOptions());
  const kernelsim::CpuCounters total = t.sim->cpu_totals();
  ASSERT_GT(total.ipis_sent, 0u);
  // An instant per csd queued on a target, its IPI sent or not (csd_ipi=if-empty).
  EXPECT_EQ(count_named(t.doc, "csd call_function", "i"), total.ipis_received);
  EXPECT_EQ(count_named(t.doc, "flush_tlb_func", "X"), total.ipis_received);
  // Each interrupt's entry, and before each handler its interrupt's entry or, in a batch, the
  // read of its csd (an interrupt whose csd an earlier one ran has an entry and no handler).
  const size_t entries = count_named(t.doc, "call_function entry", "X");
  const size_t needless = count_named(t.doc, "call_function entry (csd already run)", "X");
  EXPECT_EQ(entries, total.call_function_irqs);
  EXPECT_EQ(entries - needless + count_named(t.doc, "csd read", "X"), total.ipis_received);
  EXPECT_GT(entries, 0u);
  // Handlers sit on the targets' IRQ tracks (tid 10000 + cpu), never CPU 0's (the sender).
  for (const nlohmann::json& e : t.doc) {
    if (e.at("ph") != "X" || e.at("cat") != "ipi") continue;
    const int64_t tid = e.at("tid");
    EXPECT_GE(tid, 10001);
    EXPECT_LE(tid, 10003);
  }
  EXPECT_GT(count_named(t.doc, "flush_tlb_mm_range", "X"), 0u);
}

TEST(Timeline, WindowLimitsTheTimeRange) {
  TimelineOptions o;
  o.window_start = SimTime::us(600);
  o.window_end = SimTime::us(900);
  const Traced t = run_traced(o);
  const testing::TimelineSummary s = check_timeline(t.doc);
  EXPECT_GT(s.slices, 0u);
  EXPECT_GE(s.min_ts, 600'000);
  EXPECT_LE(s.max_end, 900'000);
  EXPECT_GT(t.stats.events_outside_window, 0u);
  const Traced whole = run_traced(TimelineOptions());
  EXPECT_LT(t.stats.bytes, whole.stats.bytes);
}

TEST(Timeline, SizeGuardStopsUnderTheBoundAndWarnsOnce) {
  TimelineOptions o;
  o.max_bytes = 8192;
  const Traced t = run_traced(o);
  EXPECT_TRUE(t.stats.size_guard_hit);
  EXPECT_GT(t.stats.events_dropped_by_size, 0u);
  EXPECT_LE(t.stats.bytes, o.max_bytes);
  check_timeline(t.doc);  // still valid JSON that nests
  EXPECT_NE(t.warnings.find("timeline would pass 8192 bytes"), std::string::npos) << t.warnings;
  EXPECT_EQ(t.warnings.find("timeline would pass", t.warnings.find('\n')), std::string::npos)
      << "warned more than once: " << t.warnings;
}

TEST(Timeline, TracingChangesNoResult) {
  auto plain = make_sim(4);
  add_munmap_race(*plain);
  plain->run();
  const Traced traced = run_traced(TimelineOptions());
  EXPECT_EQ(plain->stats(), traced.sim->stats());
  EXPECT_EQ(plain->lockstat(), traced.sim->lockstat());
  EXPECT_EQ(plain->now(), traced.sim->now());
  for (uint32_t c = 0; c < 4; ++c) EXPECT_EQ(plain->cpu(c).counters, traced.sim->cpu(c).counters);
}

TEST(Timeline, ReclaimStallsKswapdAndSwapCountersAppear) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  kernelsim::MachineConfig m;
  m.nr_cpus = 2;  // the writer on CPU 0, kswapd on CPU 1
  m.memory_bytes = 64 * kMiB;
  m.swap_bytes = 64 * kMiB;
  std::string error;
  auto sim = Simulation::create(m, kernelsim::cost_profile_default(), "", &error);
  ASSERT_NE(sim, nullptr) << error;
  std::ostringstream out;
  TimelineJsonWriter writer(out, 2, TimelineOptions());
  sim->set_trace_sink(&writer);
  thread(*sim, 1, 0,
         {Op::mmap_anon(kBase, 80 * kMiB, kernelsim::PROT_READ | kernelsim::PROT_WRITE),
          Op::touch(kBase, 80 * kMiB, true)});
  sim->run();
  writer.finish(sim->now());
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  const testing::TimelineSummary s = check_timeline(doc);
  ASSERT_GT(sim->stats().direct_reclaim.count(), 0u);
  EXPECT_EQ(count_named(doc, "direct reclaim", "X"), sim->stats().direct_reclaim.count());
  EXPECT_GT(count_named(doc, "balance_pgdat", "X"), 0u);
  EXPECT_GT(count_named(doc, "&pgdat->lru_lock", "X"), 0u);
  bool kswapd_track = false;
  for (const auto& [tid, name] : s.thread_names) kswapd_track |= name.rfind("kswapd0", 0) == 0;
  EXPECT_TRUE(kswapd_track);
  int64_t max_swap = 0;
  for (const nlohmann::json& e : doc) {
    if (e.at("ph") == "C" && e.at("name") == "swap pages") {
      max_swap = std::max<int64_t>(max_swap, e.at("args").at("used"));
    }
  }
  EXPECT_GT(max_swap, 0) << "swap usage is plotted";
}

TEST(Timeline, EndOutOfLifoOrderSplitsTheInnerSlice) {
  std::ostringstream out;
  {
    TimelineJsonWriter w(out, 1, TimelineOptions());
    w.name_task(0, 0, 1, false);
    const Track t = Track::task(0);
    w.begin(t, "A", TraceCat::kLockHold, SimTime::ns(1000));
    w.begin(t, "B", TraceCat::kLockHold, SimTime::ns(2000));
    w.end(t, "A", TraceCat::kLockHold, SimTime::ns(3000));  // A released before B
    w.end(t, "B", TraceCat::kLockHold, SimTime::ns(4000));
    w.finish(SimTime::ns(5000));
    EXPECT_EQ(w.stats().slices_split, 1u);
  }
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  check_timeline(doc);
  EXPECT_EQ(count_named(doc, "B", "X"), 2u) << "B inside A, then its continuation after A";
  EXPECT_EQ(count_named(doc, "A", "X"), 1u);
}

TEST(Timeline, LongOpenSliceIsSplitToBoundMemory) {
  std::ostringstream out;
  constexpr int kInstants = 70000;  // more than a track holds back
  {
    TimelineJsonWriter w(out, 1, TimelineOptions());
    const Track t = Track::task(0);
    w.begin(t, "balance_pgdat", TraceCat::kReclaim, SimTime::ns(0));
    for (int i = 0; i < kInstants; ++i) w.instant(t, "IPI", TraceCat::kIpi, SimTime::ns(10 + i));
    w.end(t, "balance_pgdat", TraceCat::kReclaim, SimTime::ns(100000));
    w.finish(SimTime::ns(100000));
    EXPECT_EQ(w.stats().slices_split, 1u);
  }
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  check_timeline(doc);
  EXPECT_EQ(count_named(doc, "balance_pgdat", "X"), 2u);
  EXPECT_EQ(count_named(doc, "IPI", "i"), static_cast<size_t>(kInstants));
}

TEST(Timeline, WindowArgumentParses) {
  SimTime a, b;
  std::string error;
  ASSERT_TRUE(parse_timeline_window("10ms:20ms", &a, &b, &error)) << error;
  EXPECT_EQ(a, SimTime::ms(10));
  EXPECT_EQ(b, SimTime::ms(20));
  ASSERT_TRUE(parse_timeline_window("1500:2.5us", &a, &b, &error)) << error;
  EXPECT_EQ(a, SimTime::ns(1500));
  EXPECT_EQ(b, SimTime::ns(2500));
  ASSERT_TRUE(parse_timeline_window("1s:", &a, &b, &error)) << error;
  EXPECT_EQ(b, SimTime::infinite());
  EXPECT_FALSE(parse_timeline_window("20ms:10ms", &a, &b, &error));
  EXPECT_FALSE(parse_timeline_window("10parsecs:20ms", &a, &b, &error));
  EXPECT_FALSE(parse_timeline_window("10ms", &a, &b, &error));
  EXPECT_NE(error.find("START:END"), std::string::npos);
}

}  // namespace
}  // namespace mmreplay::replay
