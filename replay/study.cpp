#include "replay/study.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "common/tsan_handoff.h"

namespace mmreplay::replay {
namespace {

// Cache sizing when the caller does not choose: every thread of every run in flight holds one
// chunk while it reads, and the runs drift apart; a few chunks per thread let a trailing run find
// what a leading run decoded.
constexpr size_t kCacheChunksPerThread = 4;
constexpr size_t kMinCacheChunks = 64;

size_t default_cache_chunks(const Study& study, int threads) {
  size_t widest = 1;
  for (const auto* t : study.traces) widest = std::max(widest, t->meta().threads.size());
  return std::max(kMinCacheChunks,
                  widest * kCacheChunksPerThread * static_cast<size_t>(std::max(threads, 1)));
}

// What a run costs the host, for ordering only: its events, times the simulated CPUs whose
// per-CPU state (TLB flushes, LRU drains, lock queues) those events touch. A study is as fast
// as its slowest run, so the largest runs start first and short ones fill in behind them
// (longest-processing-time-first); results still land in each run's own slot.
uint64_t run_weight(const Study& study, const StudyRun& run) {
  const formats::TraceReader& trace = *study.traces[run.trace];
  const uint32_t cpus = run.spec.cpus != 0 ? run.spec.cpus : trace.meta().recorder.cpus;
  return trace.total_events() * std::max<uint64_t>(cpus, 1);
}

}  // namespace

std::vector<size_t> heaviest_first(const Study& study, const std::vector<size_t>& run_index) {
  std::vector<uint64_t> weight(run_index.size());
  for (size_t j = 0; j < run_index.size(); ++j) {
    weight[j] = run_weight(study, study.runs[run_index[j]]);
  }
  std::vector<size_t> order(run_index.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(),
                   [&weight](size_t a, size_t b) { return weight[a] > weight[b]; });
  return order;
}

uint64_t peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      uint64_t kb = 0;
      status >> kb;
      return kb;
    }
    status.ignore(1 << 16, '\n');
  }
  return 0;
}

Status run_study(const Study& study, const StudyOptions& options, StudyResult* result) {
  *result = StudyResult();
  if (options.threads < 0 || options.threads > kMaxHostThreads) {
    return Status::invalid_argument("--threads " + std::to_string(options.threads) +
                                    ": outside 1.." + std::to_string(kMaxHostThreads));
  }
  const int threads = options.threads > 0
                          ? options.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const size_t capacity =
      options.cache_chunks > 0 ? options.cache_chunks : default_cache_chunks(study, threads);
  ChunkCache cache(capacity);
  for (size_t i = 0; i < study.runs.size(); ++i) {
    if (options.shard.contains(i)) result->run_index.push_back(i);
  }
  result->runs.resize(result->run_index.size());
  std::vector<Status>& status = result->run_status;
  status.assign(result->run_index.size(), Status::ok());
  // What the workers share. It reaches them, and each run's result comes back, through TBB,
  // which TSan cannot see into (common/tsan_handoff.h).
  struct Shared {
    const Study& study;
    const StudyOptions& options;
    StudyResult* result;
    ChunkCache& cache;
    const std::vector<size_t> order;  // heaviest first
    std::atomic<size_t> next{0};      // the next entry of `order` a worker takes
    std::atomic<uint64_t> events{0};
    std::mutex progress_mu;
    size_t done = 0;
  } shared{study, options, result, cache, heaviest_first(study, result->run_index),
           {0},   {0},     {},     0};

  const auto start = std::chrono::steady_clock::now();
  tbb::task_arena arena(threads);
  // One body per worker, each taking the next heaviest run until none is left. parallel_for
  // over the runs themselves would split the range in halves and start runs in no useful order.
  arena.execute([&shared, threads] {
    tbb::parallel_for(
        tbb::blocked_range<int>(0, threads, 1),
        [state = TbbShared<Shared>(&shared)](const tbb::blocked_range<int>&) {
          Shared& s = *state;
          StudyResult& r = *s.result;
          for (size_t k = s.next++; k < s.order.size(); k = s.next++) {
            const size_t j = s.order[k];
            const StudyRun& run = s.study.runs[r.run_index[j]];
            r.run_status[j] =
                execute_run(run.spec, *s.study.traces[run.trace], s.cache, &r.runs[j]);
            s.events += r.runs[j].events_replayed;
            std::lock_guard lock(s.progress_mu);
            ++s.done;
            if (s.options.progress)
              s.options.progress(s.done, r.run_status.size(), s.events.load());
          }
          tsan_publish(&r);
        },
        tbb::simple_partitioner());
  });
  tsan_observe(result);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  HostStats& host = result->host;
  host.wall_seconds = wall;
  host.events_replayed = shared.events.load();
  host.events_per_second = wall > 0 ? static_cast<double>(host.events_replayed) / wall : 0;
  host.cache = cache.stats();
  host.cache_capacity = capacity;
  host.peak_rss_kb = peak_rss_kb();
  host.threads = threads;
  Status first_failure = Status::ok();
  for (size_t j = 0; j < status.size(); ++j) {
    if (status[j]) continue;
    status[j] = status[j].with_context("run " + std::to_string(result->run_index[j] + 1) + " (" +
                                       study.runs[result->run_index[j]].spec.policy_name + ")");
    if (first_failure) first_failure = status[j];
  }
  return first_failure;
}

bool StudyResult::all_ok() const {
  for (const Status& s : run_status) {
    if (!s) return false;
  }
  return true;
}

}  // namespace mmreplay::replay
