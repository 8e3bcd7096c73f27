// Trace rewrites end to end (issue 16's tests): one generated DONTNEED per-call trace, rewritten
// at replay, answers what the traces generated with --advice free and --vector on answer.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "replay/policy_spec.h"
#include "replay/result_keys.h"
#include "replay/study.h"
#include "tests/replay/generated_trace.h"

namespace mmreplay::replay {
namespace {

// Small enough for the default suite, large enough that every thread purges many times.
const std::vector<std::string> kJemalloc = {"--threads", "4",       "--loops",
                                            "1500",      "--scale", "small"};
// The vector program with jemalloc 4.0's purge rule: the same purges as the per-call trace, in
// vector calls of up to UIO_MAXIOV runs (je.patch also purged more: --purge auto).
const std::vector<std::string> kSamePurgesInVectors = {"--vector",  "on",     "--purge",
                                                       "threshold", "--vlen", "1024"};
const std::vector<std::string> kEbizzy = {"--threads", "4", "--loops", "40", "--chunks", "16"};

// gen's `workload` with `params` and then `extra`, in a file named after both.
std::unique_ptr<formats::TraceReader> generate_with(const std::string& workload,
                                                    std::vector<std::string> params,
                                                    const std::vector<std::string>& extra) {
  params.insert(params.end(), extra.begin(), extra.end());
  std::string name = workload;
  for (const std::string& p : extra) name += p;
  return testing::open_trace(testing::generate_file(workload, params, name + ".mmtrace"));
}

RunResult run(const formats::TraceReader& reader, const std::string& policy) {
  RunSpec spec;
  spec.policy_name = policy;
  EXPECT_TRUE(resolve_policy(policy, &spec.config, &spec.rewrites));
  ChunkCache cache(256);
  RunResult r;
  const Status s = execute_run(spec, reader, cache, &r);
  EXPECT_TRUE(s) << s.message();
  return r;
}

uint64_t counter(const RunResult& r, std::string_view key) {
  const auto it = r.counters.find(std::string(key));
  return it == r.counters.end() ? 0 : it->second;
}

// The model's counters, without the replay layer's record of what the rewrites did.
std::map<std::string, uint64_t> model_counters(const RunResult& r) {
  std::map<std::string, uint64_t> out = r.counters;
  for (std::string_view key : {kRewriteAdviceCounter, kRewriteBatchedCounter,
                               kRewriteVectorsCounter, kRewriteSplitCounter}) {
    out.erase(std::string(key));
  }
  return out;
}

// Vector calls madvise_batch=N makes of `reader`'s trace, counted independently of the
// rewriter: per thread, runs of consecutive madvise calls of one advice with only observations
// between them, each run cut into pieces of N.
uint64_t batches_in(const formats::TraceReader& reader, uint64_t n) {
  ChunkCache cache(16);
  uint64_t batches = 0;
  for (uint32_t s = 0; s < reader.meta().threads.size(); ++s) {
    EventStream stream(cache, reader, s);
    uint64_t run = 0;
    uint64_t advice = 0;
    while (stream.next()) {
      const formats::Event& e = stream.event();
      if (e.kind == formats::EventKind::kObservation) continue;
      if (e.kind == formats::EventKind::kMadvise && run > 0 && e.arg0 == advice && run < n) {
        ++run;
        continue;
      }
      run = e.kind == formats::EventKind::kMadvise ? 1 : 0;
      advice = e.arg0;
      if (run == 1) ++batches;
    }
  }
  return batches;
}

TEST(TraceRewriteRun, GeneratorsNameTheirAllocatorAndAdvice) {
  EXPECT_EQ(generate_with("jemalloc-purge", kJemalloc, {})->meta().allocator,
            "jemalloc 4.0, purge MADV_DONTNEED");
  EXPECT_EQ(generate_with("bulk-free", {"--threads", "2", "--size", "1M"}, {"--advice", "free"})
                ->meta()
                .allocator,
            "jemalloc 4.0, purge MADV_FREE (shipped: MADV_DONTNEED)");
  EXPECT_EQ(generate_with("ebizzy", kEbizzy, {})->meta().allocator,
            "glibc 2.21 malloc (ptmalloc2), purge MADV_DONTNEED");
  EXPECT_EQ(generate_with("ebizzy", kEbizzy, {"--mmap", "on"})->meta().allocator, "");
  EXPECT_EQ(generate_with("madv-bomb", {"--processes", "1", "--size", "1M", "--loops", "1"}, {})
                ->meta()
                .allocator,
            "");
}

TEST(TraceRewriteRun, PurgeAdviceFreeOnADontneedTraceIsTheTraceGeneratedWithAdviceFree) {
  for (const auto& [workload, params] :
       {std::pair{"jemalloc-purge", kJemalloc}, std::pair{"ebizzy", kEbizzy}}) {
    auto dontneed = generate_with(workload, params, {"--advice", "dontneed"});
    auto free = generate_with(workload, params, {"--advice", "free"});
    const RunResult rewritten = run(*dontneed, "free+purge_advice=free");
    const RunResult generated = run(*free, "free");
    EXPECT_GT(counter(generated, "madv_lazyfree_pages"), 0u) << workload;
    EXPECT_EQ(counter(rewritten, kRewriteAdviceCounter),
              generated.ops.at("madvise").count() + generated.ops.at("madvise_vector").count())
        << workload;
    EXPECT_EQ(model_counters(rewritten), model_counters(generated)) << workload;
    EXPECT_EQ(rewritten.makespan_ns, generated.makespan_ns) << workload;
    for (const auto& [op, h] : generated.ops) {
      EXPECT_EQ(rewritten.ops.at(op).count(), h.count()) << workload << " " << op;
    }
    // And back: dontneed of the FREE trace is the DONTNEED trace.
    EXPECT_EQ(model_counters(run(*free, "free+purge_advice=dontneed")),
              model_counters(run(*dontneed, "free")))
        << workload;
  }
}

TEST(TraceRewriteRun, BatchingAPerCallTraceMatchesTheTraceGeneratedWithVectorCalls) {
  auto per_call = generate_with("jemalloc-purge", kJemalloc, {});
  auto vector = generate_with("jemalloc-purge", kJemalloc, kSamePurgesInVectors);
  const RunResult plain = run(*per_call, "vector");
  const RunResult batched = run(*per_call, "vector+madvise_batch=1024");
  const RunResult generated = run(*vector, "vector");
  const uint64_t made = batched.ops.at("madvise_vector").count();
  const uint64_t want = generated.ops.at("madvise_vector").count();
  ASSERT_GT(want, 0u);
  EXPECT_EQ(batched.ops.at("madvise").count(), 0u);
  EXPECT_EQ(counter(batched, kRewriteVectorsCounter), made);
  EXPECT_EQ(counter(batched, kRewriteBatchedCounter), plain.ops.at("madvise").count());
  // Issue 16 asked for the generated trace's count within 5%; the rule it gives cannot see purge
  // passes: the purges of two frees in a row have only user time between them, so they are one
  // vector call here and two in the patched program's trace (one per arena_purge() pass). The
  // rewrite makes exactly the batches the rule describes, and never more calls than the program.
  EXPECT_EQ(made, batches_in(*per_call, 1024));
  EXPECT_LE(made, want);
  EXPECT_EQ(counter(batched, "madv_dontneed_pages"), counter(generated, "madv_dontneed_pages"));
  EXPECT_EQ(counter(batched, "faults"), counter(generated, "faults"));
  EXPECT_GT(counter(batched, "madv_dontneed_pages"), 0u);
  EXPECT_LT(counter(batched, "tlb_flush_calls"), counter(plain, "tlb_flush_calls"));
  std::printf(
      "[ figures ] vector calls per-call/rewrite/generated %lu/%lu/%lu, madvise calls "
      "%lu/0/0, pages dropped %lu/%lu/%lu, faults %lu/%lu/%lu, tlb flushes %lu/%lu/%lu\n",
      static_cast<unsigned long>(plain.ops.at("madvise_vector").count()),
      static_cast<unsigned long>(made), static_cast<unsigned long>(want),
      static_cast<unsigned long>(plain.ops.at("madvise").count()),
      static_cast<unsigned long>(counter(plain, "madv_dontneed_pages")),
      static_cast<unsigned long>(counter(batched, "madv_dontneed_pages")),
      static_cast<unsigned long>(counter(generated, "madv_dontneed_pages")),
      static_cast<unsigned long>(counter(plain, "faults")),
      static_cast<unsigned long>(counter(batched, "faults")),
      static_cast<unsigned long>(counter(generated, "faults")),
      static_cast<unsigned long>(counter(plain, "tlb_flush_calls")),
      static_cast<unsigned long>(counter(batched, "tlb_flush_calls")),
      static_cast<unsigned long>(counter(generated, "tlb_flush_calls")));
}

// Seed 002's patched jemalloc (--vector alone, je.patch) purges at least half the dirty pages a
// pass, so its vector calls cut the TLB flushes far more than batching jemalloc 4.0's calls can:
// batching regroups the same purges, je.patch purges in fewer, larger passes.
TEST(TraceRewriteRun, ThePatchedProgramFlushesFarLessThanBatchingThePerCallTrace) {
  auto per_call = generate_with("jemalloc-purge", kJemalloc, {});
  auto patched = generate_with("jemalloc-purge", kJemalloc, {"--vector", "on"});
  const RunResult plain = run(*per_call, "vector");
  const RunResult batched = run(*per_call, "vector+madvise_batch=32");
  const RunResult generated = run(*patched, "vector");
  const uint64_t flushes_plain = counter(plain, "tlb_shootdowns");
  const uint64_t flushes_batched = counter(batched, "tlb_shootdowns");
  const uint64_t flushes_patched = counter(generated, "tlb_shootdowns");
  std::printf(
      "[ figures ] shootdowns per-call/batched/patched %lu/%lu/%lu, pages dropped "
      "%lu/%lu/%lu\n",
      static_cast<unsigned long>(flushes_plain), static_cast<unsigned long>(flushes_batched),
      static_cast<unsigned long>(flushes_patched),
      static_cast<unsigned long>(counter(plain, "madv_dontneed_pages")),
      static_cast<unsigned long>(counter(batched, "madv_dontneed_pages")),
      static_cast<unsigned long>(counter(generated, "madv_dontneed_pages")));
  ASSERT_GT(flushes_patched, 0u);
  EXPECT_LT(flushes_batched, flushes_plain);
  EXPECT_LT(2 * flushes_patched, flushes_batched);
  EXPECT_GT(counter(generated, "madv_dontneed_pages"), counter(plain, "madv_dontneed_pages"))
      << "half the dirty pages a pass: more purged, more refaults";
}

TEST(TraceRewriteRun, SplittingAVectorTraceIsThePerCallTrace) {
  auto per_call = generate_with("jemalloc-purge", kJemalloc, {});
  auto vector = generate_with("jemalloc-purge", kJemalloc, kSamePurgesInVectors);
  const RunResult split = run(*vector, "vector+madvise_batch=split");
  const RunResult plain = run(*per_call, "vector");
  EXPECT_EQ(split.ops.at("madvise_vector").count(), 0u);
  EXPECT_EQ(split.ops.at("madvise").count(), plain.ops.at("madvise").count());
  EXPECT_EQ(counter(split, kRewriteSplitCounter),
            run(*vector, "vector").ops.at("madvise_vector").count());
  // What the calls do to memory does not depend on their timing: the same pages are dropped,
  // faulted, flushed and freed. (The clocks differ: the generators charge a vector call's user
  // time differently, so lock waits and IPI counts of the 4 threads sharing the mm may too.)
  for (const char* key : {"madv_dontneed_pages", "faults", "tlb_flush_calls", "pages_alloc",
                          "pages_free", "pgtable_alloc", "ops_failed"}) {
    EXPECT_EQ(counter(split, key), counter(plain, key)) << key;
  }
}

TEST(TraceRewriteRun, RewritesAreIdenticalOnAnyNumberOfHostThreads) {
  auto per_call = generate_with("jemalloc-purge", kJemalloc, {});
  auto vector = generate_with("jemalloc-purge", kJemalloc, {"--vector", "on"});
  Study study;
  study.traces = {per_call.get(), vector.get()};
  for (const char* policy :
       {"vector+madvise_batch=1024", "linux-6.6+purge_advice=free+madvise_batch=64",
        "free+purge_advice=free", "vector+madvise_batch=split"}) {
    for (size_t t = 0; t < 2; ++t) {
      StudyRun r;
      r.trace = t;
      r.spec.policy_name = policy;
      ASSERT_TRUE(resolve_policy(policy, &r.spec.config, &r.spec.rewrites));
      study.runs.push_back(r);
    }
  }
  StudyResult one;
  StudyResult four;
  StudyOptions options;
  options.threads = 1;
  ASSERT_TRUE(run_study(study, options, &one));
  options.threads = 4;
  ASSERT_TRUE(run_study(study, options, &four));
  ASSERT_EQ(one.runs.size(), four.runs.size());
  for (size_t i = 0; i < one.runs.size(); ++i) {
    EXPECT_EQ(one.runs[i].counters, four.runs[i].counters) << i;
    EXPECT_EQ(one.runs[i].makespan_ns, four.runs[i].makespan_ns) << i;
    EXPECT_EQ(one.runs[i].effective_policy, four.runs[i].effective_policy) << i;
    for (const auto& [op, h] : one.runs[i].ops) {
      EXPECT_EQ(h.count(), four.runs[i].ops.at(op).count()) << i << " " << op;
      EXPECT_EQ(h.max(), four.runs[i].ops.at(op).max()) << i << " " << op;
    }
  }
  // The results record the rewrites beside the kernel's knobs.
  EXPECT_NE(one.runs[2].effective_policy.find("purge_advice=free,madvise_batch=64"),
            std::string::npos)
      << one.runs[2].effective_policy;
}

}  // namespace
}  // namespace mmreplay::replay
