// Study: a set of runs (trace x policy x machine) executed side by side on TBB workers.
//
// Each run is sequential and deterministic; runs share one ChunkCache, so a trace is decoded
// once however many runs replay it. Results come back in run order whatever the number of host
// threads, so `--threads 1` and `--threads N` give identical results. A study can be split into
// shards (`--shard i/N`: runs whose index is i-1 modulo N) whose results merge exactly.

#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/trace_reader.h"
#include "replay/chunk_cache.h"
#include "replay/run.h"

namespace mmreplay::replay {

struct StudyRun {
  size_t trace = 0;  // index into Study::traces
  RunSpec spec;
};

struct Study {
  std::vector<const formats::TraceReader*> traces;
  std::vector<StudyRun> runs;
};

struct Shard {
  uint32_t index = 1;  // 1-based
  uint32_t count = 1;
  bool contains(size_t run) const { return run % count == index - 1; }
};

// The most host worker threads a study takes (--threads): beyond the cores of any machine this runs
// on, and far below what makes oneTBB's arena fail (65537 crashed it).
inline constexpr int kMaxHostThreads = 1024;

struct StudyOptions {
  int threads = 0;          // host threads; 0 = all cores
  size_t cache_chunks = 0;  // 0 = sized from the traces' thread counts and the host threads
  Shard shard;
  // Called (serialised) after each run with runs done, runs in this shard and events so far.
  std::function<void(size_t, size_t, uint64_t)> progress;
};

// Host-side figures; never part of the deterministic results.
struct HostStats {
  double wall_seconds = 0;
  uint64_t events_replayed = 0;
  double events_per_second = 0;
  ChunkCacheStats cache;
  size_t cache_capacity = 0;
  uint64_t peak_rss_kb = 0;
  int threads = 0;
};

struct StudyResult {
  std::vector<size_t> run_index;  // which runs of the study these are (shard members)
  std::vector<RunResult> runs;
  std::vector<Status> run_status;  // per run: ok, or why it failed (its result is then unusable)
  HostStats host;
  bool all_ok() const;
};

// The order in which run_study starts the runs `run_index` names: positions into run_index,
// heaviest first (a run's trace events times its simulated CPUs), ties in the study's order.
std::vector<size_t> heaviest_first(const Study& study, const std::vector<size_t>& run_index);

// Runs the study's runs in `options.shard`, heaviest first (a study is as fast as its slowest
// run; see heaviest_first). The first failed run's error is returned (naming
// the run); results of the others are still filled, and run_status says which failed.
Status run_study(const Study& study, const StudyOptions& options, StudyResult* result);

// Peak resident set of this process (VmHWM of /proc/self/status), 0 when unknown.
uint64_t peak_rss_kb();

}  // namespace mmreplay::replay
