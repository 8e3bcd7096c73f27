// Internal state of ImportBuilder, shared by import_builder.cpp (collecting) and
// import_resolve.cpp (finish: processes, mappings, files). Not part of the importer API.

#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/event.h"
#include "formats/import/fd_table.h"
#include "formats/import/import_builder.h"
#include "formats/import/syscall.h"

namespace mmreplay::formats::detail {

inline constexpr int32_t kNoFd = -1;
inline constexpr uint32_t kNoFdOp = UINT32_MAX;

// One event as collected, with what finish() still has to resolve.
struct Item {
  Event event;
  uint64_t seq = 0;             // arrival order, breaks timestamp ties across threads
  int32_t fd = kNoFd;           // file events and file mappings: the descriptor
  bool offset_from_fd = false;  // read/write: the offset is the descriptor's position
  bool emit = true;             // false: a descriptor change only, no event of the trace
  bool ready = false;           // a poll/select/epoll wait that returned ready descriptors
  bool interrupted = false;     // a blocking call a signal ended (is_interrupted_return())
  uint32_t fd_op = kNoFdOp;     // index in BuilderState::fd_ops, applied before the event
  uint64_t uaddr2 = 0;          // futex_wake by WAKE_OP or a requeue: the second futex word
  // An fsync made by msync(MS_SYNC): its file is the shared file mapping's at event.addr
  // (the resolver's SharedFileMaps), not a descriptor's.
  bool file_by_address = false;
};

struct PendingCall {
  bool active = false;
  uint64_t ts = 0;
  SyscallCall call;
};

// How a thread came to be, from the clone/fork that returned its id.
enum class Origin : uint8_t { kUnknown, kSharedVm, kNewMm };

struct ThreadState {
  uint64_t tid = 0;
  std::optional<uint64_t> pid;
  std::string name;
  // Where its CPU changed: (time, CPU) in time order, the first line's CPU first (perf prints
  // the CPU of every record), for the CPU a call ended on (cpu_at()) and the last one.
  std::vector<std::pair<uint64_t, int32_t>> cpu_changes;
  std::optional<uint64_t> parent_tid;
  Origin origin = Origin::kUnknown;
  std::optional<uint64_t> clone_ts;  // when the clone/fork that made it returned in the parent
  std::vector<Item> items;
  PendingCall pending;
  std::string open_path;  // ImportBuilder::open_path(), for the next syscall enter
  // ImportBuilder::vector_ranges(), for the next syscall enter (a process_madvise).
  std::optional<std::vector<Range>> vector_ranges;
  // ImportBuilder::sockopt_value(), for the next syscall enter (a setsockopt).
  std::optional<uint64_t> sockopt_value;
  // ImportBuilder::sockaddr_path(), for the next syscall enter (a connect or bind).
  std::optional<std::string> sockaddr_path;
  // A pipe/pipe2/socketpair that succeeded without its fds (perf): when it started, until
  // pipe_fds() names them or the thread's next syscall.
  std::optional<uint64_t> unseen_pipe;
  Syscall unseen_pipe_call = Syscall::kPipe2;
  uint8_t unseen_pipe_sock_type = 0;  // socketpair: its type argument (SOCK_STREAM, ...)
  bool has_exit = false;
  std::optional<uint64_t> switched_out;  // when it left its CPU, until it is back
  bool preempted = false;                // that switch was a preemption
  std::optional<uint64_t> woken_at;      // its last sched_wakeup (ImportBuilder::task_woken())

  // The CPU it was last seen on (--placement as-recorded), -1 when none was recorded.
  int32_t last_cpu() const { return cpu_changes.empty() ? -1 : cpu_changes.back().second; }
  // The CPU it ran on at `ts` as recorded (the last change at or before it), -1 when none was.
  int32_t cpu_at(uint64_t ts) const {
    auto it = std::upper_bound(cpu_changes.begin(), cpu_changes.end(), ts,
                               [](uint64_t t, const auto& c) { return t < c.first; });
    return it == cpu_changes.begin() ? -1 : std::prev(it)->second;
  }
};

struct BuilderState {
  std::string source;
  uint32_t page_size = 4096;
  // net.core.wmem_default of the recording machine, a new socket's sk_sndbuf (0: not known, the
  // kernel's default SK_WMEM_MAX; socket_wakeups.h).
  uint64_t wmem_default = 0;
  uint64_t wmem_max = 0;  // net.core.wmem_max, SO_SNDBUF's cap (0: not known, SK_WMEM_MAX)
  std::vector<ThreadState> threads;  // in order of first appearance = stream order
  std::unordered_map<uint64_t, uint32_t> index_of;
  std::vector<Range> ranges;
  std::vector<FdOp> fd_ops;
  uint64_t next_seq = 0;
  // The recording traced each page its kernel dropped from the page cache
  // (filemap:mm_filemap_delete_from_page_cache): truncating calls count theirs.
  bool page_cache_deletes_traced = false;
  // System V shared memory: segment sizes by shmid (from shmget), and attaches by address (from
  // shmat) for the size shmdt unmaps. Ids are system-wide; attaches are keyed by address alone,
  // so two processes attaching at one address share an entry (the later one wins).
  std::unordered_map<uint64_t, uint64_t> shm_size;
  std::unordered_map<uint64_t, uint64_t> shm_attached;
  // perf's file mapping records, in the order seen (ImportBuilder::mapping_path()).
  struct MappingPath {
    uint64_t tid;
    uint64_t ts;
    uint64_t addr;
    std::string path;
  };
  std::vector<MappingPath> mapping_paths;

  ThreadState& thread(uint64_t tid);
};

// finish(): resolves processes, mappings and files and assembles the streams.
ImportedTrace resolve_trace(BuilderState* state, RecorderInfo recorder, ImportReport* report);

}  // namespace mmreplay::formats::detail
