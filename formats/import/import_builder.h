// ImportBuilder: the part of every importer that does not depend on the input format.
//
// A parser feeds it what it reads, in input order: syscall enters and exits (or whole calls,
// for strace), page faults, thread names and process ids. The builder
//   (1) keeps a thread table keyed by OS thread id, in order of first appearance, and resolves
//       each thread's address space (mm) from the process id where the tool printed one, else
//       from the clone/fork that created it (CLONE_VM: same mm; fork: a new mm and an mm_create
//       event), else the thread is its own process. The clone stays in the parent's stream as
//       a clone event (the replay starts the child there) and names the child's parent_tid; a
//       successful execve becomes an mm_create of a fresh mm;
//   (2) pairs each enter with the next exit of the same thread, so an event carries the observed
//       duration (exit - enter); the gap to the thread's next event is its think time;
//   (3) at finish(), replays the calls of each mm in time order to follow its mappings (mmap,
//       munmap, mremap, brk) and ties each page fault to the mapping that holds it; faults
//       outside every known mapping (made before recording began) get an implicit anonymous
//       mapping, placed at the start of the mm's first thread and listed in the report;
//   (4) follows each process's descriptor table (open, socket, pipe, dup, close, fork's copy:
//       formats/import/fd_table.h) to give each fd its file, kind and offset.
//   (5) turns blocking calls (futex waits, nanosleep, poll, epoll_wait, select, wait4, ...) into
//       block events carrying their duration, failed ones included (EINTR, ETIMEDOUT: the time
//       was spent off the CPU all the same); a wait4 that reaped a child becomes wait_child,
//       which the replay ends at that child's exit.
//   (6) orders what threads did to each other without a futex or clone to show it: a use of a
//       range after another thread's change of its mappings (address_order.h), a pipe read after
//       the write of its data and a write after the read that made its room (pipe_wakeups.h),
//       the same per direction of a socket whose other end is in the recording (a socketpair,
//       a connect paired with its accept: socket_wakeups.h, socket_pairs.h),
//       a futex wait after the thread exit that ended it (pthread_join); each is a
//       futex_wake/futex_wait pair the replay honours as it does recorded futex wake-ups.
// Other calls that failed (-errno) are counted and kept as failed_call observations with their
// duration (event.h ObservationKind::kFailedCall): the replay runs them as syscalls that fail.
// Nothing here is fatal: odd input (an exit without enter, a clone loop) is counted in the report.
//
// Memory: every event is held until finish() (64 bytes plus a little per event), which is less
// than the text it came from.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "formats/event.h"
#include "formats/import/import_report.h"
#include "formats/import/syscall.h"
#include "formats/trace_meta.h"
#include "formats/trace_writer.h"

namespace mmreplay::formats {

// An imported trace, ready to write: streams in thread-table order, each in time order.
struct ImportedTrace {
  TraceMeta meta;
  std::vector<std::vector<Event>> streams;
  std::vector<Range> ranges;  // kMadviseVector events point here (range_begin, range_count)
};

// Faults at most this far apart (and with no mapping of the trace between them) share one
// implicit mapping: the pages of one pre-existing mapping (a library, the stack, the heap) sit
// closer than this; distinct ones are usually separated by mapped ranges or larger gaps.
inline constexpr uint64_t kImplicitMergeGapBytes = 1ull << 20;

// The name ignored kernel-mode faults on kernel addresses are counted under.
inline constexpr std::string_view kKernelAddressFault = "page_fault_kernel on a kernel address";

class ImportBuilder {
 public:
  // `source` names the input in messages; `page_size` rounds mapping lengths.
  explicit ImportBuilder(std::string source, uint32_t page_size = 4096);
  ~ImportBuilder();
  ImportBuilder(const ImportBuilder&) = delete;
  ImportBuilder& operator=(const ImportBuilder&) = delete;

  // Thread identity. Names may change (exec); the last one wins.
  void set_process(uint64_t tid, uint64_t pid);
  void set_name(uint64_t tid, std::string_view name);
  // The CPU the thread was seen on at `ts` (the last one wins: --placement as-recorded; each
  // change is kept, for where the recording ran the tasks its sync wake-ups woke).
  void set_cpu(uint64_t tid, int32_t cpu, uint64_t ts);
  // net.core.wmem_default of the recording machine, in bytes: a new socket's send buffer, which
  // orders an AF_UNIX stream's writes after the reads that made their room (socket_wakeups.h).
  // Kept in the header's params; 0 (the default): not known, the kernel's default is assumed.
  void set_wmem_default(uint64_t bytes);
  // net.core.wmem_max likewise: the cap on a setsockopt(SO_SNDBUF) value.
  void set_wmem_max(uint64_t bytes);
  // Gives the events seen so far under `from` to `to` (strace prints no "[pid N]" while only one
  // thread is traced). Returns false and changes nothing when `to` is already known.
  bool rename_thread(uint64_t from, uint64_t to);
  bool knows_thread(uint64_t tid) const;

  // A syscall entered. exit/exit_group become a thread_exit at once; others wait for their exit.
  // An enter while another is pending on the thread replaces it (the first is counted as
  // unfinished).
  void syscall_enter(uint64_t tid, uint64_t ts, SyscallCall call);
  // The pending call of `tid` returned `ret`. `sc` must match the pending call; otherwise the exit
  // is counted as unmatched and dropped.
  void syscall_exit(uint64_t tid, uint64_t ts, Syscall sc, int64_t ret);
  // A whole call (strace): enter time, duration (kNoDuration when not printed), return value.
  void syscall_complete(uint64_t tid, uint64_t ts, uint64_t duration_ns, SyscallCall call,
                        int64_t ret);
  // The thread ended without an exit call being seen ("+++ exited", "+++ killed").
  void thread_ended(uint64_t tid, uint64_t ts);
  void page_fault(uint64_t tid, uint64_t ts, uint64_t addr, bool write, bool major = false);
  // A fault the kernel took in kernel mode (exceptions:page_fault_kernel). On a user address it
  // is the kernel touching the program's memory for it (copy_to_user into a fresh buffer) and
  // becomes a page_fault with kFlagKernel, in time order inside the syscall that took it; on a
  // kernel address (vmalloc, kernel stacks) it is none of the program's business and is counted
  // as ignored under kKernelAddressFault.
  void kernel_page_fault(uint64_t tid, uint64_t ts, uint64_t addr, bool write);
  // The thread left its CPU (perf's PERF_RECORD_SWITCH OUT; `preempted`: still runnable) and came
  // back (IN): each out-in pair becomes an off_cpu observation with its duration, so the time is
  // not taken for think time (formats/think_time.h). An IN without an OUT (the first one) is
  // ignored; a second OUT replaces the first.
  void switch_out(uint64_t tid, uint64_t ts, bool preempted);
  void switch_in(uint64_t tid, uint64_t ts);
  // sched:sched_wakeup of thread `tid` at `ts` (a wake-up perf saw: one a traced thread did, or
  // one that landed while a traced thread ran). A blocking call (a block, futex_wait or
  // wait_child event) that it ended is off the CPU until then: the rest of the call, the wait
  // for a CPU behind other runnable tasks and the return, is the recording machine's run queue,
  // which the replay models itself. The last wake-up inside the call counts; a call without one
  // keeps its whole length. A thread not (yet) in the trace is left alone.
  void task_woken(uint64_t tid, uint64_t ts);
  // perf's PERF_RECORD_MMAP2 (or MMAP): the thread's process mapped `path` at `addr` (perf
  // reports executable file mappings: a program's libraries). The file its mmap call gave that
  // address gets the name when the importer had none for it (the dynamic loader opens libraries
  // with its own openat, which no probe names).
  void mapping_path(uint64_t tid, uint64_t ts, uint64_t addr, std::string_view path);
  // The recording traced every page its kernel dropped from the page cache (perf's header lists
  // filemap:mm_filemap_delete_from_page_cache): each call that truncates counts its own.
  void page_cache_deletes_traced();
  // `pages` left the page cache in the thread's call under way (truncation; reclaim inside a
  // call counts too, and is ignored by calls that do not truncate).
  void page_cache_deleted(uint64_t tid, uint64_t pages);
  // The path the thread's next syscall opens (a uprobe on the libc open function that makes it,
  // seen before the syscall's enter). Any other syscall enter on the thread drops it.
  void open_path(uint64_t tid, std::string_view path);
  // The descriptors the thread's pipe, pipe2 or socketpair call just returned (a return probe on
  // glibc's wrapper: perf prints them only behind a pointer). They become the call's pair of
  // fds of `kind` (pipe, or socket for socketpair); a call whose fds never come is counted as
  // ignored.
  void pipe_fds(uint64_t tid, uint64_t ts, int32_t fd0, int32_t fd1,
                FileKind kind = FileKind::kPipe);
  // The ranges of the thread's next process_madvise (an entry uprobe on glibc's wrapper that
  // reads its iovec array; perf prints the syscall's only as a pointer), of the call's `vlen`.
  // Any other syscall enter on the thread drops them; fewer than vlen are counted as truncated.
  void vector_ranges(uint64_t tid, std::vector<Range> ranges, uint64_t vlen);
  // The int the thread's next setsockopt passes by pointer (an entry uprobe on glibc's wrapper;
  // perf's tracepoint prints only the pointer). Any other syscall enter on the thread drops it.
  void sockopt_value(uint64_t tid, uint64_t value);
  // The AF_UNIX path the thread's next connect or bind passes in its sockaddr (an entry uprobe
  // on glibc's wrappers; perf prints the syscalls' sockaddr only as a pointer), for pairing
  // connects with the accepts of the listener bound there (socket_pairs.h).
  void sockaddr_path(uint64_t tid, std::string_view path);

  // Counting for the report.
  void count_line() { ++report_.lines; }
  void unknown_line(uint64_t line_number, std::string_view text);
  void ignored_event() { ++report_.ignored_events; }
  // An ignored call or tracepoint, also counted under `name` (ImportReport::ignored_by_name).
  void ignored_event(std::string_view name) {
    ++report_.ignored_events;
    ++report_.ignored_by_name[std::string(name)];
  }
  void unmatched_exit() { ++report_.unmatched_exits; }
  // A line of record's launcher, before the command's exec (ImportOptions::launcher_prologue).
  void launcher_line() { ++report_.launcher_lines; }
  // The recorder dropped `n` events (perf's buffer was full): the trace is short of them.
  void lost_events(uint64_t n) { report_.lost_events += n; }
  void unknown_flag_name() { ++report_.unknown_flag_names; }
  // A ground-truth tracepoint (record --ground-truth): counted by name (header param
  // "observed.NAME"), and, when it is one of the kinds of ObservationKind, kept in the thread's
  // stream as a kObservation event (never replayed). `payload` is the tracepoint's text.
  void observation(uint64_t tid, uint64_t ts, std::string_view tracepoint,
                   std::string_view payload);
  // The same for a binary record whose value was read from its fields.
  void observation_value(uint64_t tid, uint64_t ts, std::string_view tracepoint, uint64_t value);

  // Resolves processes, mappings and files, and returns the trace. `recorder` goes into the
  // header as is. The builder is spent afterwards.
  ImportedTrace finish(RecorderInfo recorder, ImportReport* report);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  ImportReport report_;
};

// Writes an imported trace to `path` (the report's byte counts are not touched).
Status write_imported_trace(const ImportedTrace& trace, const std::string& path,
                            const WriterOptions& options);

}  // namespace mmreplay::formats
