#include "formats/event.h"

#include <array>

namespace mmreplay::formats {
namespace {

struct ObservationName {
  std::string_view name;        // as `cat` prints it
  std::string_view tracepoint;  // where it comes from
};
constexpr std::array<ObservationName, kObservationKindCount> kObservationNames = {{
    {"mmap_lock_start_locking", "mmap_lock:mmap_lock_start_locking"},
    {"mmap_lock_acquired", "mmap_lock:mmap_lock_acquire_returned"},
    {"mmap_lock_released", "mmap_lock:mmap_lock_released"},
    {"lock_contention_begin", "lock:contention_begin"},
    {"lock_contention_end", "lock:contention_end"},
    {"tlb_flush", "tlb:tlb_flush"},
    {"off_cpu", "PERF_RECORD_SWITCH"},
    {"failed_call", "sys_exit with -errno"},
}};

constexpr std::array<std::string_view, kBlockCallCount> kBlockCallNames = {
    "futex",       "nanosleep", "clock_nanosleep", "poll",  "ppoll",  "epoll_wait",
    "epoll_pwait", "select",    "pselect6",        "wait4", "waitid",
};

Event make(EventKind kind, uint64_t ts) {
  Event e;
  e.kind = kind;
  e.ts_ns = ts;
  return e;
}

}  // namespace

std::string_view kind_name(EventKind kind) {
  return is_known_kind(static_cast<uint8_t>(kind)) ? op_info(kind).name
                                                   : std::string_view("unknown");
}

bool kind_from_name(std::string_view name, EventKind* kind) {
  for (int k = 0; k < kEventKindCount; ++k) {
    if (common::kOpTable[k].name == name) {
      *kind = static_cast<EventKind>(k);
      return true;
    }
  }
  return false;
}

std::string_view observation_name(ObservationKind kind) {
  const auto i = static_cast<size_t>(kind);
  return i < kObservationNames.size() ? kObservationNames[i].name : std::string_view("unknown");
}

std::string_view block_call_name(BlockCall call) {
  const auto i = static_cast<size_t>(call);
  return i < kBlockCallNames.size() ? kBlockCallNames[i] : std::string_view("unknown");
}

bool observation_from_tracepoint(std::string_view tracepoint, ObservationKind* kind) {
  for (size_t i = 0; i < kObservationNames.size(); ++i) {
    if (kObservationNames[i].tracepoint == tracepoint) {
      *kind = static_cast<ObservationKind>(i);
      return true;
    }
  }
  return false;
}

namespace ev {

Event thread_start(uint64_t ts) {
  return make(EventKind::kThreadStart, ts);
}
Event thread_exit(uint64_t ts) {
  return make(EventKind::kThreadExit, ts);
}

Event mm_create(uint64_t ts, uint64_t mm_id, uint64_t parent_mm_id) {
  Event e = make(EventKind::kMmCreate, ts);
  e.arg0 = mm_id;
  e.arg1 = parent_mm_id;
  return e;
}

Event mm_exit(uint64_t ts, uint64_t mm_id) {
  Event e = make(EventKind::kMmExit, ts);
  e.arg0 = mm_id;
  return e;
}

Event mmap(uint64_t ts, uint64_t addr, uint64_t len, uint32_t prot, uint32_t flags,
           uint64_t file_id, uint64_t offset) {
  Event e = make(EventKind::kMmap, ts);
  e.addr = addr;
  e.len = len;
  e.arg0 = static_cast<uint64_t>(prot) | (static_cast<uint64_t>(flags) << 32);
  e.arg1 = file_id;
  e.arg2 = offset;
  return e;
}

Event munmap(uint64_t ts, uint64_t addr, uint64_t len) {
  Event e = make(EventKind::kMunmap, ts);
  e.addr = addr;
  e.len = len;
  return e;
}

Event mprotect(uint64_t ts, uint64_t addr, uint64_t len, uint32_t prot) {
  Event e = make(EventKind::kMprotect, ts);
  e.addr = addr;
  e.len = len;
  e.arg0 = prot;
  return e;
}

Event mremap(uint64_t ts, uint64_t addr, uint64_t len, uint64_t new_addr, uint64_t new_len,
             uint64_t flags) {
  Event e = make(EventKind::kMremap, ts);
  e.addr = addr;
  e.len = len;
  e.arg0 = new_addr;
  e.arg1 = new_len;
  e.arg2 = flags;
  return e;
}

Event brk(uint64_t ts, uint64_t new_break) {
  Event e = make(EventKind::kBrk, ts);
  e.addr = new_break;
  return e;
}

Event madvise(uint64_t ts, uint64_t addr, uint64_t len, uint64_t advice) {
  Event e = make(EventKind::kMadvise, ts);
  e.addr = addr;
  e.len = len;
  e.arg0 = advice;
  return e;
}

Event madvise_vector(uint64_t ts, uint64_t advice) {
  Event e = make(EventKind::kMadviseVector, ts);
  e.arg0 = advice;
  return e;
}

Event page_fault(uint64_t ts, uint64_t addr, bool write, bool major, bool kernel) {
  Event e = make(EventKind::kPageFault, ts);
  e.addr = addr;
  e.flags = static_cast<uint8_t>((write ? kFlagWrite : 0) | (major ? kFlagMajor : 0) |
                                 (kernel ? kFlagKernel : 0));
  return e;
}

Event touch(uint64_t ts, uint64_t addr, uint64_t len, bool write, uint64_t stride) {
  Event e = make(EventKind::kTouch, ts);
  e.addr = addr;
  e.len = len;
  e.arg0 = stride;
  e.flags = write ? kFlagWrite : 0;
  return e;
}

Event file_read(uint64_t ts, uint64_t file_id, uint64_t offset, uint64_t len) {
  Event e = make(EventKind::kFileRead, ts);
  e.arg0 = file_id;
  e.arg1 = offset;
  e.len = len;
  return e;
}

Event file_write(uint64_t ts, uint64_t file_id, uint64_t offset, uint64_t len) {
  Event e = make(EventKind::kFileWrite, ts);
  e.arg0 = file_id;
  e.arg1 = offset;
  e.len = len;
  return e;
}

Event fsync(uint64_t ts, uint64_t file_id) {
  Event e = make(EventKind::kFsync, ts);
  e.arg0 = file_id;
  return e;
}

Event file_truncate(uint64_t ts, uint64_t file_id, uint64_t new_size, uint64_t pages_dropped) {
  Event e = make(EventKind::kFileTruncate, ts);
  e.arg0 = file_id;
  e.arg1 = new_size;
  e.arg2 = pages_dropped;
  return e;
}

Event contig_alloc(uint64_t ts, uint64_t handle, uint64_t bytes) {
  Event e = make(EventKind::kContigAlloc, ts);
  e.arg0 = handle;
  e.len = bytes;
  return e;
}

Event contig_free(uint64_t ts, uint64_t handle) {
  Event e = make(EventKind::kContigFree, ts);
  e.arg0 = handle;
  return e;
}

Event observation(uint64_t ts, ObservationKind what, uint64_t value) {
  Event e = make(EventKind::kObservation, ts);
  e.arg0 = static_cast<uint64_t>(what);
  e.arg1 = value;
  return e;
}

Event off_cpu(uint64_t ts, uint64_t duration_ns, bool preempted) {
  Event e = observation(ts, ObservationKind::kOffCpu, preempted ? 1 : 0);
  e.duration_ns = duration_ns;
  return e;
}

Event block(uint64_t ts, BlockCall call, uint64_t duration_ns) {
  Event e = make(EventKind::kBlock, ts);
  e.arg0 = static_cast<uint64_t>(call);
  e.duration_ns = duration_ns;
  return e;
}

Event clone(uint64_t ts, uint64_t child_tid, uint64_t clone_flags) {
  Event e = make(EventKind::kClone, ts);
  e.arg0 = child_tid;
  e.arg1 = clone_flags;
  return e;
}

Event wait_child(uint64_t ts, uint64_t child_tid, BlockCall call, uint64_t duration_ns) {
  Event e = make(EventKind::kWaitChild, ts);
  e.arg0 = child_tid;
  e.arg1 = static_cast<uint64_t>(call);
  e.duration_ns = duration_ns;
  return e;
}

Event futex_wake(uint64_t ts, uint64_t wake_id, uint64_t uaddr) {
  Event e = make(EventKind::kFutexWake, ts);
  e.arg0 = wake_id;
  e.arg1 = uaddr;
  return e;
}

Event futex_wait(uint64_t ts, uint64_t wake_id, uint64_t uaddr, uint64_t duration_ns) {
  Event e = make(EventKind::kFutexWait, ts);
  e.arg0 = wake_id;
  e.arg1 = uaddr;
  e.duration_ns = duration_ns;
  return e;
}

}  // namespace ev
}  // namespace mmreplay::formats
