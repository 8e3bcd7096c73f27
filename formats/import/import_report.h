// ImportReport: what an importer saw and what it made of it, for `trace-replay import` and
// `record` to print and for tests to check. Nothing here is fatal: a malformed line stops the
// import with a Status instead.

#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "formats/event.h"
#include "formats/trace_meta.h"

namespace mmreplay::formats {

// At most this many unknown lines are kept as examples (all are counted).
inline constexpr size_t kUnknownLineExamples = 5;

// A mapping the importer had to invent because faults hit an address no call in the trace had
// mapped (it existed before recording started).
struct ImplicitMapping {
  uint64_t mm_id = 0;
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t faults = 0;
};

struct ImportReport {
  uint64_t lines = 0;                         // input lines (or records, for trace.dat)
  uint64_t unknown_lines = 0;                 // lines of no form the importer knows: skipped
  std::vector<std::string> unknown_examples;  // "line N: TEXT", the first few
  uint64_t ignored_events = 0;  // well-formed records of events the model has no use for
  uint64_t launcher_lines = 0;  // record's launcher's, before the command's exec: left out
  uint64_t vector_madvise_ranges_truncated = 0;  // probe gave fewer ranges than the call's vlen
  uint64_t failed_calls = 0;        // calls that returned -errno: failed_call observations
  uint64_t unmatched_exits = 0;     // exits (or resumes) with no enter seen
  uint64_t unfinished_calls = 0;    // enters with no exit by the end of the input
  uint64_t dropped_unfinished = 0;  // of those, calls whose event needs the return value
  uint64_t vector_madvise_without_ranges = 0;  // process_madvise whose iovec was not decoded
  uint64_t fd_calls = 0;  // open, socket, pipe, dup, close, ...: descriptor changes
  std::array<uint64_t, kFileKindCount> files_per_kind{};  // the file table by FileKind
  uint64_t futex_waits_paired = 0;         // futex waits given the wake that ended them
  uint64_t futex_waits_ended_by_exit = 0;  // others given the thread exit that ended them
  // Ordering edges from one thread's change of a range's mappings to another thread's later use
  // of it (address_order.h), replayed as wake-ups.
  uint64_t address_order_edges = 0;
  // Pipe reads and writes that slept (an off_cpu observation inside them), and the edges from
  // the write that put a read's data in or the read that made a write's room (pipe_wakeups.h),
  // replayed as wake-ups.
  uint64_t pipe_calls_slept = 0;
  uint64_t pipe_wakeup_edges = 0;
  // Of the calls those edges (and the sockets' below) woke from a sleep, with both CPUs
  // recorded: how many ran on the CPU of the call that woke them, and how many on another
  // (RecorderInfo::sync_wakes_on_waker_cpu, _other_cpu).
  uint64_t sync_wakes_on_waker_cpu = 0;
  uint64_t sync_wakes_on_other_cpu = 0;
  // The same for sockets whose two ends are in the recording (socket_wakeups.h): edges, calls
  // that slept, and reads/writes of sockets whose other end is not (not ordered: they replay as
  // a syscall and a copy). Connections paired from a connect and an accept, and connects and
  // accepts left unpaired (socket_pairs.h).
  uint64_t socket_wakeup_edges = 0;
  uint64_t socket_calls_slept = 0;
  uint64_t socket_calls_unpaired = 0;
  // poll/select/epoll waits that returned ready and whose thread then read a pipe or socket
  // that has such an edge: the write that woke them is the edge's, so they replay as the read's
  // wait for it, not as a timer of their recorded length (import_resolve.cpp).
  uint64_t readiness_waits_on_edges = 0;
  // wait4 calls that named no child (pid -1, 0 or -pgid) and reaped one: they replay as a wait
  // for whichever child of that parent exits first. Of the waits a signal interrupted, those a
  // child's exit ended (a wait for any child right after them): they replay as that wait.
  uint64_t waits_for_any_child = 0;
  uint64_t waits_ended_by_child_exit = 0;
  // AF_UNIX stream writes replayed as several pieces (their skbs where an edge needs one,
  // pipe_wakeups.h (4)), and the pieces they make.
  uint64_t socket_writes_in_pieces = 0;
  uint64_t socket_write_pieces = 0;
  // setsockopt(SO_SNDBUF) calls whose value sized their socket's send buffer, and those whose
  // value the recording did not hold (perf without record's probe: the socket keeps the default).
  uint64_t socket_sndbuf_set = 0;
  uint64_t socket_sndbuf_unknown = 0;
  uint64_t socket_connections_paired = 0;
  uint64_t socket_connects_unpaired = 0;
  uint64_t socket_accepts_unpaired = 0;
  uint64_t shm_attach_without_size = 0;  // shmat of a segment whose shmget was not seen
  uint64_t unknown_flag_names = 0;       // strace flag names this build does not know (taken as 0)
  // Ground-truth events (mmap_lock:*, lock:contention_*, tlb:tlb_flush) by name: kept as counts
  // in the header's params ("observed.NAME"), not replayed.
  std::map<std::string, uint64_t> observations;
  // Of ignored_events, the calls and tracepoints by name ("futex", "writev",
  // "sched:sched_switch", "signal SIGCHLD"): a syscall once per call (its enter, or strace's
  // line), so the exits of ignored calls count in ignored_events only.
  std::map<std::string, uint64_t> ignored_by_name;

  std::array<uint64_t, kEventKindCount> events_per_kind{};
  uint64_t events = 0;
  uint64_t events_with_duration = 0;
  uint64_t think_time_ns = 0;  // sum over threads of the gaps between calls
  uint64_t threads = 0;
  uint64_t processes = 0;
  uint64_t files = 0;
  // Files opened unseen (the dynamic loader's libraries) named by perf's mapping records.
  uint64_t files_named_by_mappings = 0;

  uint64_t lost_events = 0;  // dropped by the recorder (PERF_RECORD_LOST), not in the trace
  // Off-CPU intervals between events (perf --switch-events), kept as off_cpu observations.
  uint64_t off_cpu_intervals = 0;
  uint64_t off_cpu_ns = 0;
  uint64_t preempted_ns = 0;  // of which the thread was runnable (preempted)
  // Blocking calls that end at their recorded wake-up (sched:sched_wakeup,
  // ImportBuilder::task_woken()) instead of their return, and the time cut off them: the
  // threads' waits for a CPU after the wake-up.
  uint64_t blocks_cut_at_wakeup = 0;
  uint64_t blocks_runnable_ns = 0;

  uint64_t faults_in_known_mappings = 0;
  uint64_t faults_outside_mappings = 0;  // went to implicit mappings
  std::vector<ImplicitMapping> implicit_mappings;

  uint64_t count(EventKind kind) const { return events_per_kind[static_cast<size_t>(kind)]; }
};

// A few lines of text, for the import command's stderr: counts per kind, threads, durations,
// unknown lines with examples, implicit mappings.
std::string format_report(const ImportReport& report);

}  // namespace mmreplay::formats
