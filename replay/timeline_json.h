// TimelineJsonWriter: the model's tracepoints (kernelsim/sim/trace_sink.h) as a Chrome
// trace-event JSON timeline that Perfetto UI and chrome://tracing open.
//
// Layout: one process (pid) per simulated run; per virtual CPU n a track "CPU n" (tid 1+n: which
// task runs, from switch-in to switch-out) and "CPU n IRQ" (tid 10000+n: IPI handlers run there);
// per task a track "task ..." (tid 100000+id, sorted under its CPU): lock waits ("wait <class>")
// and holds (<class>, the lock_stat class name), TLB flushes, IPIs sent ("i" instants), direct
// reclaim, kswapd runs. Counters ("C"): free pages against the watermarks, LRU list sizes, swap
// pages in use, sampled at most once per counter_interval of virtual time and written only when
// a value changed.
//
// Streaming: events are written as they complete. A task track's events are held back only while
// a slice on it is open (a lock hold, a reclaim run: one syscall's worth), then written sorted by
// (ts, longer first); CPU, IRQ and counter tracks are written at once. So on every track "X"
// events nest (no partial overlap) and ts never decreases in file order. A slice ended out of
// LIFO order splits the slices still open above it at that instant (each keeps its name; the
// continuation carries "split":1), which keeps nesting. A track holding back 65536 events splits
// its open slices the same way and writes them, so memory stays bounded.
//
// Window: only events that overlap [window_start, window_end] are written, clipped to it.
// Size guard: bytes are counted as written; when the next event would take the file past
// max_bytes, a warning goes to `warnings` once and every later event is dropped (the file is a
// prefix in time of the run, still valid JSON, under the bound); the process gets a label that
// says so. Pick a --timeline-window to see a later part.

#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kernelsim/sim/trace_sink.h"

namespace mmreplay::replay {

// The size bound of issue 10: warn and stop before the file passes it.
inline constexpr uint64_t kTimelineMaxBytes = uint64_t{200} << 20;

struct TimelineOptions {
  uint32_t pid = 1;
  std::string process_name = "replay";
  kernelsim::SimTime window_start = kernelsim::SimTime::zero();
  kernelsim::SimTime window_end = kernelsim::SimTime::infinite();
  uint64_t max_bytes = kTimelineMaxBytes;
  kernelsim::SimTime counter_interval = kernelsim::SimTime::us(100);
  std::ostream* warnings = nullptr;  // the size-guard warning; nullptr = std::cerr
};

struct TimelineStats {
  uint64_t events_written = 0;  // X, i and C events (metadata not counted)
  uint64_t events_outside_window = 0;
  uint64_t events_dropped_by_size = 0;
  uint64_t counters_unchanged = 0;  // samples not written because no series changed
  uint64_t slices_split = 0;        // open slices split by an out-of-order end
  uint64_t unmatched_ends = 0;      // end() without a begin() (a model bug; 0 expected)
  uint64_t bytes = 0;
  bool size_guard_hit = false;
};

class TimelineJsonWriter final : public kernelsim::TraceSink {
 public:
  // Writes the opening '[' and the process metadata. `out` must outlive the writer.
  TimelineJsonWriter(std::ostream& out, uint32_t nr_cpus, TimelineOptions options);
  ~TimelineJsonWriter() override;
  TimelineJsonWriter(const TimelineJsonWriter&) = delete;
  TimelineJsonWriter& operator=(const TimelineJsonWriter&) = delete;

  // The label of a task's track (a trace thread's tid and name); default "task N mm M".
  void set_task_label(uint32_t task_id, std::string label);
  // Ends slices still open at `end`, writes what is held back and the closing ']'. Idempotent.
  void finish(kernelsim::SimTime end);
  const TimelineStats& stats() const { return stats_; }

  // ---- TraceSink ----
  void name_task(uint32_t task_id, uint32_t cpu, uint32_t mm_id, bool kthread) override;
  void run_slice(uint32_t cpu, uint32_t task_id, kernelsim::SimTime start,
                 kernelsim::SimTime dur) override;
  void begin(kernelsim::Track track, std::string_view name, kernelsim::TraceCat cat,
             kernelsim::SimTime at) override;
  void end(kernelsim::Track track, std::string_view name, kernelsim::TraceCat cat,
           kernelsim::SimTime at) override;
  void complete(kernelsim::Track track, std::string_view name, kernelsim::TraceCat cat,
                kernelsim::SimTime start, kernelsim::SimTime dur,
                kernelsim::TraceArgs args = {}) override;
  void instant(kernelsim::Track track, std::string_view name, kernelsim::TraceCat cat,
               kernelsim::SimTime at, kernelsim::TraceArgs args = {}) override;
  void counter(std::string_view name, kernelsim::SimTime at, kernelsim::TraceArgs series) override;
  kernelsim::SimTime counter_interval() const override { return options_.counter_interval; }

 private:
  static constexpr size_t kMaxArgs = 4;
  struct Event {
    char ph;  // 'X' or 'i'
    std::string_view name;
    kernelsim::TraceCat cat;
    int64_t ts;
    int64_t dur;
    uint32_t nr_args = 0;
    kernelsim::TraceArg args[kMaxArgs];
  };
  static Event make_event(char ph, std::string_view name, kernelsim::TraceCat cat, int64_t ts,
                          int64_t dur);
  struct OpenSlice {
    std::string_view name;
    kernelsim::TraceCat cat;
    int64_t start;
    bool split;
  };
  struct TrackState {
    std::vector<OpenSlice> open;
    std::vector<Event> held;  // completed while a slice was open
    bool announced = false;   // thread_name metadata written
  };
  struct TaskInfo {
    uint32_t cpu = 0;
    std::string label;
  };
  struct CounterState {
    std::vector<std::string_view> keys;  // series names (literals, TraceSink contract (3))
    std::vector<int64_t> last;           // last written values
    std::vector<int64_t> before;         // latest sample before the window, written at its start
    bool has_before = false;
  };

  TrackState& state(kernelsim::Track track);
  void add(kernelsim::Track track, const Event& e);
  void flush(kernelsim::Track track, TrackState& st);
  // Ends every open slice of `track` after what it holds, writes it all, and reopens them.
  void split_open(kernelsim::Track track, TrackState& st);
  void write_event(kernelsim::Track track, TrackState& st, Event e);
  void announce(kernelsim::Track track, TrackState& st);
  void write_counter(std::string_view name, int64_t at, const CounterState& c,
                     const std::vector<int64_t>& values);
  // Appends `line` (one JSON object) if the size bound allows; false when dropped.
  bool emit(const std::string& line, bool metadata);
  void warn_size(int64_t at);

  std::ostream& out_;
  uint32_t nr_cpus_;
  TimelineOptions options_;
  TimelineStats stats_;
  std::map<uint64_t, TrackState> tracks_;  // ordered: the output is deterministic
  std::map<uint32_t, TaskInfo> tasks_;
  std::map<std::string, CounterState, std::less<>> counters_;
  std::string line_;
  bool first_ = true;
  bool finished_ = false;
  int64_t last_time_ = 0;
  int64_t truncated_at_ = -1;
};

// Parses "START:END" for --timeline-window: each side a number with an optional unit ns, us,
// ms or s (no unit: ns); an empty side is open ("10ms:" = from 10 ms to the end).
// False and *error set on bad input.
bool parse_timeline_window(std::string_view text, kernelsim::SimTime* start,
                           kernelsim::SimTime* end, std::string* error);

}  // namespace mmreplay::replay
