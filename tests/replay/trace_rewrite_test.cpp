// Trace rewrites (issue 16): the policy knobs purge_advice and madvise_batch, read as replay reads
// each thread (replay/trace_rewrite.h), and how a policy spec splits between them and the kernel.

#include "replay/trace_rewrite.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernelsim/policy/presets.h"
#include "replay/policy_spec.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::replay {
namespace {

namespace ev = formats::ev;
using formats::Event;
using formats::EventKind;
using formats::Range;

constexpr uint64_t kA = 0x7f0000000000;
using formats::testing::kPage;
constexpr uint64_t kDontNeed = formats::kMadvDontNeed;
constexpr uint64_t kFree = formats::kMadvFree;

struct Out {
  Event event;
  std::vector<Range> ranges;
  uint64_t think = 0;
};

struct Rewritten {
  std::vector<Out> events;
  RewriteTally tally;
  formats::GapTally gaps;
};

std::unique_ptr<formats::TraceReader> write_trace(const std::string& name,
                                                  const std::vector<Event>& events,
                                                  const std::vector<std::vector<Range>>& ranges,
                                                  const formats::RecorderInfo& recorder) {
  const std::string path = formats::testing::temp_path(name);
  formats::TraceMeta meta;
  meta.recorder = recorder;
  meta.threads = {{1, 1, "t"}};
  Status s;
  {
    formats::WriterOptions options;
    options.chunk_events = 3;  // batches must cross chunk boundaries
    auto w = formats::TraceWriter::create(path, meta, options, &s);
    EXPECT_TRUE(w) << s.message();
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_TRUE(w->append(0, events[i], i < ranges.size() ? ranges[i] : std::vector<Range>{}));
    }
    EXPECT_TRUE(w->close());
  }
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
  EXPECT_TRUE(reader) << s.message();
  return reader;
}

Rewritten rewrite(const std::string& policy, const std::vector<Event>& events,
                  const std::vector<std::vector<Range>>& ranges = {},
                  const formats::RecorderInfo& recorder = {}) {
  kernelsim::KernelConfig config;
  TraceRewrites rewrites;
  EXPECT_TRUE(resolve_policy(policy, &config, &rewrites));
  auto reader = write_trace("rewrite.mmtrace", events, ranges, recorder);
  ChunkCache cache(4);
  Rewritten out;
  RewrittenStream stream(EventStream(cache, *reader, 0), rewrites,
                         formats::GapCosts::from(recorder), &out.gaps, &out.tally);
  while (stream.next()) {
    out.events.push_back({stream.event(),
                          std::vector<Range>(stream.ranges().begin(), stream.ranges().end()),
                          stream.think_ns()});
  }
  EXPECT_TRUE(stream.status()) << stream.status().message();
  return out;
}

uint64_t total_think(const Rewritten& r) {
  uint64_t sum = 0;
  for (const Out& o : r.events) sum += o.think;
  return sum;
}

// A purge pass of three runs, one madvise each, 10 ns of user time apart (events at 100, 110,
// 120 with 0 duration), then a touch at 200 and a fourth purge at 300.
std::vector<Event> purge_pass(uint64_t advice) {
  return {ev::thread_start(0),
          ev::madvise(100, kA, kPage, advice),
          ev::madvise(110, kA + 4 * kPage, 2 * kPage, advice),
          ev::madvise(120, kA + 8 * kPage, kPage, advice),
          ev::touch(200, kA, kPage, true, kPage),
          ev::madvise(300, kA + 12 * kPage, kPage, advice),
          ev::thread_exit(400)};
}

TEST(TraceRewrite, NoRewritePassesEveryEventWithTheClocksThinkTime) {
  const Rewritten r = rewrite("default", purge_pass(kDontNeed));
  ASSERT_EQ(r.events.size(), 7u);
  EXPECT_EQ(r.events[1].think, 100u);
  EXPECT_EQ(r.events[2].think, 10u);
  EXPECT_EQ(r.events[4].think, 80u);
  EXPECT_EQ(r.events[2].event, ev::madvise(110, kA + 4 * kPage, 2 * kPage, kDontNeed));
  EXPECT_EQ(r.tally.advice_rewritten + r.tally.calls_batched + r.tally.vector_calls_split, 0u);
}

TEST(TraceRewrite, PurgeAdviceFreeTurnsDontneedIntoFreeAndLeavesOtherAdvice) {
  std::vector<Event> events = purge_pass(kDontNeed);
  events.insert(events.begin() + 1, ev::madvise(50, kA, kPage, formats::kMadvWillNeed));
  const Rewritten r = rewrite("purge_advice=free", events);
  ASSERT_EQ(r.events.size(), 8u);
  EXPECT_EQ(r.events[1].event.arg0, formats::kMadvWillNeed);  // not a purge
  for (size_t i : {2u, 3u, 4u, 6u}) EXPECT_EQ(r.events[i].event.arg0, kFree) << i;
  EXPECT_EQ(r.tally.advice_rewritten, 4u);
  // Only the advice changed: every other field and the timing are as recorded.
  Event expected = events[3];
  expected.arg0 = kFree;
  EXPECT_EQ(r.events[3].event, expected);
  EXPECT_EQ(r.events[3].think, 10u);
}

TEST(TraceRewrite, PurgeAdviceDontneedTurnsFreeIntoDontneedInVectorCallsToo) {
  const std::vector<Event> events = {ev::thread_start(0), ev::madvise_vector(10, kFree),
                                     ev::thread_exit(20)};
  const Rewritten r =
      rewrite("purge_advice=dontneed", events, {{}, {{kA, kPage}, {kA + 2 * kPage, kPage}}});
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.events[1].event.kind, EventKind::kMadviseVector);
  EXPECT_EQ(r.events[1].event.arg0, kDontNeed);
  EXPECT_EQ(r.events[1].ranges.size(), 2u);
  EXPECT_EQ(r.tally.advice_rewritten, 1u);
}

TEST(TraceRewrite, BatchMergesCallsWithOnlyUserTimeBetweenAndMovesThatTimeBeforeTheCall) {
  const Rewritten r = rewrite("madvise_batch=64", purge_pass(kDontNeed));
  // start, vector(3 ranges), touch, vector(1 range), exit
  ASSERT_EQ(r.events.size(), 5u);
  const Out& vec = r.events[1];
  EXPECT_EQ(vec.event.kind, EventKind::kMadviseVector);
  EXPECT_EQ(vec.event.arg0, kDontNeed);
  EXPECT_EQ(vec.ranges, (std::vector<Range>{
                            {kA, kPage}, {kA + 4 * kPage, 2 * kPage}, {kA + 8 * kPage, kPage}}));
  EXPECT_EQ(vec.event.range_count, 3u);
  EXPECT_EQ(vec.think, 100u + 10u + 10u);  // the user time between the calls moved before it
  EXPECT_EQ(vec.event.ts_ns, 120u);        // open loop: when the last merged call was issued
  EXPECT_EQ(r.events[2].event.kind, EventKind::kTouch);  // a fault ends the batch
  EXPECT_EQ(r.events[2].think, 80u);
  EXPECT_EQ(r.events[3].event.kind, EventKind::kMadviseVector);  // a lone call: 1 range
  EXPECT_EQ(r.events[3].ranges.size(), 1u);
  EXPECT_EQ(r.tally.calls_batched, 4u);
  EXPECT_EQ(r.tally.vector_calls_made, 2u);
  EXPECT_EQ(total_think(r), total_think(rewrite("default", purge_pass(kDontNeed))));
}

TEST(TraceRewrite, BatchStopsAtNRangesAndAtAnotherAdvice) {
  std::vector<Event> events = {ev::thread_start(0)};
  for (uint64_t i = 0; i < 5; ++i)
    events.push_back(ev::madvise(10 + i, kA + i * kPage, kPage, kDontNeed));
  events.push_back(ev::madvise(20, kA, kPage, kFree));
  events.push_back(ev::thread_exit(30));
  const Rewritten r = rewrite("madvise_batch=2", events);
  // 5 DONTNEED calls in vectors of 2, 2, 1; then the FREE call alone.
  ASSERT_EQ(r.events.size(), 6u);
  EXPECT_EQ(r.events[1].ranges.size(), 2u);
  EXPECT_EQ(r.events[2].ranges.size(), 2u);
  EXPECT_EQ(r.events[3].ranges.size(), 1u);
  EXPECT_EQ(r.events[4].event.arg0, kFree);
  EXPECT_EQ(r.events[4].ranges.size(), 1u);
  EXPECT_EQ(r.tally.vector_calls_made, 4u);
}

TEST(TraceRewrite, AnyOtherSyscallEndsABatchButAnObservationDoesNot) {
  const std::vector<Event> events = {ev::thread_start(0),
                                     ev::madvise(100, kA, kPage, kDontNeed),
                                     ev::observation(105, formats::ObservationKind::kTlbFlush, 1),
                                     ev::madvise(110, kA + 2 * kPage, kPage, kDontNeed),
                                     ev::observation(115, formats::ObservationKind::kTlbFlush, 1),
                                     ev::munmap(130, kA + 8 * kPage, kPage),
                                     ev::madvise(140, kA + 4 * kPage, kPage, kDontNeed),
                                     ev::thread_exit(150)};
  const Rewritten r = rewrite("madvise_batch=8", events);
  ASSERT_EQ(r.events.size(), 7u);
  EXPECT_EQ(r.events[1].event.kind, EventKind::kMadviseVector);
  EXPECT_EQ(r.events[1].ranges.size(), 2u);
  EXPECT_EQ(r.events[1].think, 110u);  // 100 + the 5 before the first observation + 5
  // The observations follow the vector call; the one after the last merged call keeps its time.
  EXPECT_EQ(r.events[2].event.kind, EventKind::kObservation);
  EXPECT_EQ(r.events[2].think, 0u);
  EXPECT_EQ(r.events[3].event.kind, EventKind::kObservation);
  EXPECT_EQ(r.events[3].think, 5u);
  EXPECT_EQ(r.events[4].event.kind, EventKind::kMunmap);
  EXPECT_EQ(r.events[5].ranges.size(), 1u);
  EXPECT_EQ(total_think(r), total_think(rewrite("default", events)));
}

TEST(TraceRewrite, TracingCostsComeOutOfTheRecordedGapsBeforeBatching) {
  formats::RecorderInfo recorder;
  recorder.tracing_cost_ns = 4;
  const Rewritten plain = rewrite("default", purge_pass(kDontNeed), {}, recorder);
  const Rewritten batched = rewrite("madvise_batch=64", purge_pass(kDontNeed), {}, recorder);
  // Three recorded gaps of the merged calls each lose the recorder's cost, as without batching.
  EXPECT_EQ(batched.events[1].think, (100u - 4) + (10 - 4) + (10 - 4));
  EXPECT_EQ(total_think(batched), total_think(plain));
  EXPECT_EQ(batched.gaps.removed_ns, plain.gaps.removed_ns);
}

TEST(TraceRewrite, SplitReplaysAVectorCallAsOneMadvisePerRange) {
  const std::vector<Event> events = {ev::thread_start(0), ev::madvise_vector(50, kDontNeed),
                                     ev::thread_exit(60)};
  const Rewritten r = rewrite("madvise_batch=split", events,
                              {{}, {{kA, kPage}, {kA + 4 * kPage, 2 * kPage}, {kA, 3 * kPage}}});
  ASSERT_EQ(r.events.size(), 5u);
  EXPECT_EQ(r.events[1].event, ev::madvise(50, kA, kPage, kDontNeed));
  EXPECT_EQ(r.events[2].event, ev::madvise(50, kA + 4 * kPage, 2 * kPage, kDontNeed));
  EXPECT_EQ(r.events[3].event, ev::madvise(50, kA, 3 * kPage, kDontNeed));
  EXPECT_EQ(r.events[1].think, 50u);
  EXPECT_EQ(r.events[2].think + r.events[3].think, 0u);
  EXPECT_EQ(r.tally.vector_calls_split, 1u);
}

TEST(TraceRewrite, BatchThenSplitGivesBackTheCallsInOrder) {
  // What batching merged, split takes apart again: same calls, same order, same advice.
  const Rewritten batched = rewrite("madvise_batch=3", purge_pass(kDontNeed));
  std::vector<Event> events;
  std::vector<std::vector<Range>> ranges;
  for (const Out& o : batched.events) {
    events.push_back(o.event);
    ranges.push_back(o.ranges);
  }
  const Rewritten split = rewrite("madvise_batch=split", events, ranges);
  const Rewritten plain = rewrite("default", purge_pass(kDontNeed));
  ASSERT_EQ(split.events.size(), plain.events.size());
  for (size_t i = 0; i < plain.events.size(); ++i) {
    EXPECT_EQ(split.events[i].event.kind, plain.events[i].event.kind) << i;
    EXPECT_EQ(split.events[i].event.addr, plain.events[i].event.addr) << i;
    EXPECT_EQ(split.events[i].event.len, plain.events[i].event.len) << i;
    EXPECT_EQ(split.events[i].event.arg0, plain.events[i].event.arg0) << i;
  }
}

TEST(PolicySpec, RewritesCombineWithAPresetAndKernelKnobs) {
  kernelsim::KernelConfig config;
  TraceRewrites rewrites;
  ASSERT_TRUE(resolve_policy("linux-4.5+madvise=vector+purge_advice=free+madvise_batch=64", &config,
                             &rewrites));
  kernelsim::KernelConfig expected;
  ASSERT_TRUE(kernelsim::expand_policy("linux-4.5+madvise=vector", &expected));
  EXPECT_EQ(format_policy_knobs(config, {}), format_policy_knobs(expected, {}));
  EXPECT_EQ(rewrites.purge_advice, PurgeAdvice::kFree);
  EXPECT_EQ(rewrites.madvise_batch, MadviseBatch::kBatch);
  EXPECT_EQ(rewrites.batch_ranges, 64u);
  const std::string knobs = format_policy_knobs(config, rewrites);
  EXPECT_NE(knobs.find(",purge_advice=free,madvise_batch=64"), std::string::npos) << knobs;
  // Alone, they rewrite the trace under the model's defaults.
  ASSERT_TRUE(resolve_policy("madvise_batch=split", &config, &rewrites));
  ASSERT_TRUE(kernelsim::expand_policy("default", &expected));
  EXPECT_EQ(format_policy_knobs(config, {}), format_policy_knobs(expected, {}));
  EXPECT_EQ(rewrites.madvise_batch, MadviseBatch::kSplit);
  EXPECT_EQ(rewrites.purge_advice, PurgeAdvice::kAsRecorded);
}

TEST(PolicySpec, BadRewriteValuesNameTheKnobAndItsValues) {
  kernelsim::KernelConfig config;
  TraceRewrites rewrites;
  Status s = resolve_policy("linux-4.5+purge_advice=lazy", &config, &rewrites);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("purge_advice"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("as-recorded|free|dontneed"), std::string::npos) << s.message();
  for (const char* bad : {"madvise_batch=0", "madvise_batch=65536", "madvise_batch=+4",
                          "madvise_batch=on", "madvise_batch="}) {
    s = resolve_policy(bad, &config, &rewrites);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.message().find("off|split|N, N = 1..65535"), std::string::npos) << s.message();
  }
  s = resolve_policy("purge_advice=free+purge_advice=dontneed", &config, &rewrites);
  EXPECT_NE(s.message().find("given twice"), std::string::npos) << s.message();
  s = resolve_policy("purge_advice=free+linux-4.5", &config, &rewrites);
  EXPECT_FALSE(s);
  // An unknown knob lists the kernel's and the rewrites'.
  s = resolve_policy("linux-4.5+purge=free", &config, &rewrites);
  EXPECT_NE(s.message().find("madv_free"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("madvise_batch"), std::string::npos) << s.message();
  // A command with no trace to rewrite refuses them rather than dropping them.
  EXPECT_FALSE(resolve_policy("purge_advice=free", &config));
  EXPECT_TRUE(resolve_policy("purge_advice=as-recorded", &config));
}

}  // namespace
}  // namespace mmreplay::replay
