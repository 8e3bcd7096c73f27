// TracepointHold: keeps the tracepoints of a recording registered while perf record runs, so
// that perf does not spend seconds at its exit unregistering them one by one.
//
// Why: when the last perf event of a tracepoint goes, perf_trace_event_unreg()
// (kernel/trace/trace_event_perf.c) waits in tracepoint_synchronize_unregister() for an RCU grace
// period. perf record closes its events one after another as it exits, so each of the ~150
// tracepoints record traces waits for a grace period of its own: 25 ms each on the PVM guest
// this was measured on, 3.8 s of the 9 s a `record -- true` took. A helper process opens one
// disabled event of its own on each tracepoint before perf starts; perf's closes are then not the
// last ones and return at once. When the recording is done the helper is released: it exits in
// the background, and its own closes wait out the grace periods without holding anyone up.
//
// Uprobe events (perf probe's "probe_*" groups) are not held: `perf probe -d` refuses to delete
// a probe that still has an open event, and record deletes its probes as soon as it is done.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mmreplay::tools {

// The tracefs ids of the tracepoints in `events` (perf's -e list, "group:name,..."), looked up
// under `events_dir` (".../tracing/events"), each once; a name with a wildcard stands for every
// tracepoint of its group it matches ("syscalls:*"). Entries of a probe_* group, with a wildcard
// in the group, or without an id there are left out.
std::vector<uint64_t> tracepoint_ids(const std::string& events, const std::string& events_dir);

class TracepointHold {
 public:
  // Starts the helper holding the tracepoints of `events` (tracepoint_ids() under the first
  // tracefs that has them) and waits until it holds them. Holds nothing, silently, where the
  // helper cannot start or open them: perf then pays the grace periods itself, as before.
  explicit TracepointHold(const std::string& events);
  // Releases the helper without waiting for it.
  ~TracepointHold();
  TracepointHold(const TracepointHold&) = delete;
  TracepointHold& operator=(const TracepointHold&) = delete;

  // How many tracepoints the helper holds (0 when there is none).
  uint32_t held() const { return held_; }

 private:
  int release_fd_ = -1;  // the helper exits when it sees this pipe's end of file
  uint32_t held_ = 0;
};

}  // namespace mmreplay::tools
