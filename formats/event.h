// The in-memory form of one trace event, shared by the writer, the reader, the importers, the
// generators and the replay engine.
//
// An Event is a fixed 64-byte record with generic fields whose meaning depends on the kind; the
// table in kFieldsOf (event.cpp) says which fields a kind carries, and only those are stored in a
// chunk. Fields a kind does not carry read back as zero, so builders below set only the fields of
// their kind. Vector madvise ranges live beside the events of their chunk (DecodedChunk::ranges);
// the event points at them with range_begin/range_count.
//
// Kind numbers are part of the on-disk format: append new kinds, never renumber.

#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/op_table.h"

namespace mmreplay::formats {

// Event kinds, as stored in the low six bits of a chunk's op byte: the trace rows of the op table
// (common/op_table.h), which holds their numbers and names. Fields per kind:
//   thread_start    a trace thread begins running
//   thread_exit     a trace thread ends
//   mm_create       fork/exec: arg0 = new mm id, arg1 = parent mm id (0 = none)
//   mm_exit         arg0 = mm id
//   mmap            addr (where the kernel put it; 0 = the replay chooses), len,
//                   arg0 = prot | flags << 32, arg1 = file id (0 = anon), arg2 = offset
//   munmap          addr, len
//   mprotect        addr, len, arg0 = prot
//   mremap          addr, len = old range, arg0 = new addr (the kernel's result, moved or not;
//                   0 = the replay chooses), arg1 = new len, arg2 = flags
//   brk             addr = new program break (the kernel's result)
//   madvise         addr, len, arg0 = advice (MADV_* numbers of Linux)
//   madvise_vector  arg0 = advice, ranges (madvisev of seed 002 / process_madvise)
//   page_fault      addr, flags: kFlagWrite, kFlagMajor (as observed), kFlagKernel (taken by
//                   the kernel on a user address inside the syscall before it; format 1.3)
//   touch           addr, len, arg0 = stride in bytes (0 = every page), flags: kFlagWrite
//   file_read       arg0 = file id, arg1 = file offset, len, flags: kFlagKernel (the source of
//                   an in-kernel copy; format 1.9)
//   file_write      arg0 = file id, arg1 = file offset, len, flags: kFlagContinued (a later
//                   piece of one call; format 1.7)
//   fsync           arg0 = file id
//   file_truncate   format 1.10: the file lost its page-cache pages from byte arg1 on (open with
//                   O_TRUNC, creat, truncate, ftruncate): arg0 = file id, arg1 = the new size,
//                   arg2 = the pages the recording kernel dropped from its page cache
//                   (filemap:mm_filemap_delete_from_page_cache inside the call), or
//                   kTruncatedPagesUnknown when the capture could not see them (strace)
//   contig_alloc    len = bytes, arg0 = allocation handle (matches the free)
//   contig_free     arg0 = allocation handle
//   observation     format 1.1: what the real kernel did, recorded beside the program's calls for
//                   comparison (record --ground-truth). Never replayed. arg0 = ObservationKind,
//                   arg1 = its value.
//   block           format 1.2: the thread was off its CPU in a blocking system call (sleep,
//                   futex wait, poll, wait4) for duration_ns; arg0 = BlockCall. Replayed as sleep:
//                   the CPU is free for other tasks meanwhile. Without a duration it is skipped.
//   clone           format 1.4: the thread created another one (clone, clone3, fork, vfork) at
//                   this point of its stream; arg0 = the child's tid (a row of the thread table
//                   whose parent_tid is this thread), arg1 = clone flags as far as the capture
//                   knew them (kCloneFlagsUnknown when it did not). The child's task starts when
//                   this event replays, and a fork copies the address space here (dup_mmap()).
//   wait_child      format 1.4: a wait4 that reaped child arg0 (its tid = pid), blocked for
//                   duration_ns; arg1 = BlockCall. Replayed as sleep until that child's task has
//                   exited in the replay (the recorded wake-up order), or for the duration when
//                   the child is not in the trace. Format 1.15, flags kFlagAnyChild: the call
//                   named no child (wait4(-1), 0 or -pgid): it reaps whichever of that child's
//                   siblings exits first in the replay.
//   futex_wake      format 1.4: a futex call that woke waiters (FUTEX_WAKE and the other waking
//                   ops, returning n > 0); arg0 = wake id (0: it ended no recorded wait),
//                   arg1 = uaddr.
//   futex_wait      format 1.4: a futex wait that returned 0; arg0 = the wake id of the
//                   futex_wake that ended it (0: none found), arg1 = uaddr, duration_ns as
//                   block's. Replayed as sleep until that wake has replayed (the recorded
//                   wake-up order), or for the duration without one.
//                   A futex_wake/futex_wait pair with uaddr kOrderUaddr is no futex: an order
//                   the importer added between two threads' events that the recording implies
//                   (formats/import/address_order.h: a use of a range after another thread's
//                   mmap of it; pipe_wakeups.h: a pipe read after the write of its data;
//                   socket_wakeups.h: the same per direction of a socket), replayed the same
//                   way (the wake of a pipe or socket edge has uaddr kSyncOrderUaddr: a sync
//                   wake-up). A futex_wait that a thread's exit ended
//                   (pthread_join) waits for a futex_wake just before that thread_exit.
enum class EventKind : uint8_t {
#define MMREPLAY_EVENT_KIND(Kind, in, disk, ...) MMREPLAY_OP_IF_TRACE_##in(k##Kind = disk, )
  MMREPLAY_OPS(MMREPLAY_EVENT_KIND)
#undef MMREPLAY_EVENT_KIND
};
#define MMREPLAY_EVENT_KIND_COUNT(Kind, in, ...) MMREPLAY_OP_IF_TRACE_##in(+1)
inline constexpr int kEventKindCount = 0 MMREPLAY_OPS(MMREPLAY_EVENT_KIND_COUNT);
#undef MMREPLAY_EVENT_KIND_COUNT

// A kind's row in the op table: trace kinds are the table's first rows, in disk order.
constexpr const common::OpInfo& op_info(EventKind kind) {
  return common::kOpTable[static_cast<size_t>(kind)];
}
namespace detail {
constexpr bool trace_rows_in_disk_order() {
  for (int k = 0; k < kEventKindCount; ++k) {
    if (common::kOpTable[k].disk != k) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::trace_rows_in_disk_order(), "op table (1): trace row numbers are on disk");

// What a kObservation event saw, from the tracepoint that recorded it.
enum class ObservationKind : uint8_t {
  kMmapLockStartLocking = 0,  // mmap_lock:mmap_lock_start_locking, value = 1 for write
  kMmapLockAcquired = 1,      // mmap_lock:mmap_lock_acquire_returned, value = 1 for write
  kMmapLockReleased = 2,      // mmap_lock:mmap_lock_released, value = 1 for write
  kLockContentionBegin = 3,   // lock:contention_begin, value = lock address
  kLockContentionEnd = 4,     // lock:contention_end, value = lock address
  kTlbFlush = 5,              // tlb:tlb_flush, value = pages (-1 = full flush)
  // Format 1.3: the thread was off its CPU from ts for duration_ns between two of its events
  // (perf's PERF_RECORD_SWITCH out and in, record --switch-events), value = 1 when it was
  // preempted (still runnable), 0 when it slept. Time neither the program nor the recorder
  // spent on the CPU: the gap around it is think time without it (formats/think_time.h).
  kOffCpu = 6,
  // The program made a system call that the kernel refused (it returned -errno), from ts for
  // duration_ns; value = errno. Not a program action the model can repeat (its effect is no
  // effect), but its time is kernel time, not think time: the replay runs it as a syscall that
  // fails (kernelsim OpKind::kSyscallFailed). Readers that predate it skip it as an observation
  // and still keep its duration out of the gaps around it (formats/think_time.h).
  kFailedCall = 7,
};
inline constexpr int kObservationKindCount = 8;

// Which system call a kBlock event blocked in (its arg0; part of the on-disk format: append,
// never renumber). Reads and writes of pipes block too: they stay file_read/file_write, ordered
// after the call that gave them data or room by futex_wake/futex_wait pairs with kOrderUaddr
// (formats/import/pipe_wakeups.h); so do sockets whose other end is in the recording
// (formats/import/socket_wakeups.h).
enum class BlockCall : uint8_t {
  kFutex = 0,  // FUTEX_WAIT and the other waiting futex ops (not WAKE/REQUEUE)
  kNanosleep = 1,
  kClockNanosleep = 2,
  kPoll = 3,
  kPpoll = 4,
  kEpollWait = 5,
  kEpollPwait = 6,
  kSelect = 7,
  kPselect6 = 8,
  kWait4 = 9,
  kWaitid = 10,
};
inline constexpr int kBlockCallCount = 11;
// The system call's name ("futex", "clock_nanosleep"), "unknown" past the list.
std::string_view block_call_name(BlockCall call);
std::string_view observation_name(ObservationKind kind);
// Inverse of observation_name for tracepoint names ("tlb:tlb_flush"); false when not one of them.
bool observation_from_tracepoint(std::string_view tracepoint, ObservationKind* kind);

// The uaddr (arg1) of futex_wake and futex_wait events that are ordering edges, not futex
// calls: no futex word sits at address 0 (futex() on it fails with EFAULT).
inline constexpr uint64_t kOrderUaddr = 0;
// The uaddr of a futex_wake that is a pipe's or a socket's wake-up (pipe_wakeups.h,
// socket_wakeups.h): an ordering edge as above,
// and a sync wake-up (wake_up_interruptible_sync_poll()), which may pull the woken task to the
// waker's CPU (kernelsim/sched/wake_affine.h). No futex word sits there either (futex() needs
// 4-byte alignment: EINVAL); readers that predate it replay it as any other wake, so the format
// version stays. Its futex_wait keeps kOrderUaddr.
inline constexpr uint64_t kSyncOrderUaddr = 1;

// kClone's arg1 when the capture did not see the flags (clone3 under perf: they sit behind a
// pointer). No real flag word has every bit set.
inline constexpr uint64_t kCloneFlagsUnknown = ~uint64_t{0};

// Event::flags bits.
inline constexpr uint8_t kFlagWrite = 1u << 0;  // fault or touch was a write
inline constexpr uint8_t kFlagMajor = 1u << 1;  // fault was observed as major
// Format 1.3: the fault was taken in kernel mode on a user address (copy_to_user into a fresh
// buffer, exceptions:page_fault_kernel): it lies inside the syscall before it in the stream.
// Format 1.9: file_read: its bytes went into the kernel, not to user memory: the source of an
// in-kernel copy (copy_file_range(), sendfile(): do_splice_direct() takes the page-cache pages by
// reference); the file_write after it, kFlagContinued, is the destination inside the same call.
// Older readers replay it as a read that copies to user memory.
inline constexpr uint8_t kFlagKernel = 1u << 2;
// Format 1.7: file_write: a later piece of one write(2) that the importer cut at the skbs an
// AF_UNIX stream socket queues it in (formats/import/pipe_wakeups.h (4)). It runs inside the same
// syscall as the piece before it: unix_stream_sendmsg() loops over the skbs, waiting for room
// between them, after one entry into the kernel.
inline constexpr uint8_t kFlagContinued = 1u << 3;
// Format 1.9: block: a poll/select/epoll wait that the ordering edge after it ended (the write
// of the data its thread then reads, formats/import/import_resolve.cpp): the replay waits for
// that edge, not for the recorded duration, which stays for the think-time arithmetic. Older
// readers sleep the duration and then wait for the edge.
inline constexpr uint8_t kFlagWokenByEdge = 1u << 4;
// Format 1.15: wait_child: the wait named no child (wait4's pid -1, 0 or -pgid), so it reaped
// whichever child had exited; arg0 is the one the recording's reaped. Older readers wait for
// that one. block: an interrupted wait (poll/select/epoll, nanosleep) whose signal was a
// child's exit: the wait_child of any child after it ends it, and the replay waits there, as
// for kFlagWokenByEdge (GNU make's pselect6() on its jobserver pipe, ended by SIGCHLD, then
// wait4(-1, WNOHANG)).
inline constexpr uint8_t kFlagAnyChild = 1u << 5;

// file_truncate's arg2 when the capture did not see the pages the truncation dropped.
inline constexpr uint64_t kTruncatedPagesUnknown = ~uint64_t{0};

// Most ranges one vector madvise may carry (process_madvise takes at most IOV_MAX = 1024).
inline constexpr size_t kMaxVectorRanges = 65535;

// Event::duration_ns when the capture did not observe one.
inline constexpr uint64_t kNoDuration = ~uint64_t{0};

// Linux madvise advice numbers used by the model (include/uapi/asm-generic/mman-common.h).
inline constexpr uint64_t kMadvNormal = 0;
inline constexpr uint64_t kMadvWillNeed = 3;
inline constexpr uint64_t kMadvDontNeed = 4;
inline constexpr uint64_t kMadvFree = 8;
inline constexpr uint64_t kMadvCold = 20;
inline constexpr uint64_t kMadvPageout = 21;
inline constexpr uint64_t kMadvPopulateRead = 22;
inline constexpr uint64_t kMadvPopulateWrite = 23;

// One address range of a vector madvise.
struct Range {
  uint64_t addr = 0;
  uint64_t len = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

struct Event {
  uint64_t ts_ns = 0;                  // when the thread issued it (trace clock, ns)
  uint64_t duration_ns = kNoDuration;  // observed duration, kNoDuration when unknown
  uint64_t addr = 0;
  uint64_t len = 0;
  uint64_t arg0 = 0;
  uint64_t arg1 = 0;
  uint64_t arg2 = 0;
  EventKind kind = EventKind::kThreadStart;
  uint8_t flags = 0;
  uint16_t range_count = 0;  // kMadviseVector: number of ranges (at most kMaxVectorRanges)
  uint32_t range_begin = 0;  // kMadviseVector: first range in the chunk's range list

  bool has_duration() const { return duration_ns != kNoDuration; }
  // When it returned: its start plus the observed duration, its start when none was observed.
  uint64_t end_ns() const { return ts_ns + (has_duration() ? duration_ns : 0); }
  bool is_write() const { return (flags & kFlagWrite) != 0; }
  bool is_major() const { return (flags & kFlagMajor) != 0; }
  bool is_kernel_mode() const { return (flags & kFlagKernel) != 0; }
  bool is_continued() const { return (flags & kFlagContinued) != 0; }
  bool is_woken_by_edge() const { return (flags & kFlagWokenByEdge) != 0; }
  bool is_any_child() const { return (flags & kFlagAnyChild) != 0; }
  // kMmap accessors.
  uint32_t prot() const { return static_cast<uint32_t>(arg0 & 0xffffffffu); }
  uint32_t map_flags() const { return static_cast<uint32_t>(arg0 >> 32); }

  friend bool operator==(const Event&, const Event&) = default;
};
static_assert(sizeof(Event) == 64, "Event is one cache line");

// Which generic fields a kind stores; everything else reads back as zero.
enum FieldBits : uint8_t {
  kFieldAddr = 1u << 0,
  kFieldLen = 1u << 1,
  kFieldArg0 = 1u << 2,
  kFieldArg1 = 1u << 3,
  kFieldArg2 = 1u << 4,
  kFieldRanges = 1u << 5,
};
namespace detail {
// What each kind stores (see the EventKind comments above). Part of the on-disk format.
inline constexpr uint8_t kFieldsOf[kEventKindCount] = {
    0,                                                              // thread_start
    0,                                                              // thread_exit
    kFieldArg0 | kFieldArg1,                                        // mm_create
    kFieldArg0,                                                     // mm_exit
    kFieldAddr | kFieldLen | kFieldArg0 | kFieldArg1 | kFieldArg2,  // mmap
    kFieldAddr | kFieldLen,                                         // munmap
    kFieldAddr | kFieldLen | kFieldArg0,                            // mprotect
    kFieldAddr | kFieldLen | kFieldArg0 | kFieldArg1 | kFieldArg2,  // mremap
    kFieldAddr,                                                     // brk
    kFieldAddr | kFieldLen | kFieldArg0,                            // madvise
    kFieldArg0 | kFieldRanges,                                      // madvise_vector
    kFieldAddr,                                                     // page_fault
    kFieldAddr | kFieldLen | kFieldArg0,                            // touch
    kFieldLen | kFieldArg0 | kFieldArg1,                            // file_read
    kFieldLen | kFieldArg0 | kFieldArg1,                            // file_write
    kFieldArg0,                                                     // fsync
    kFieldLen | kFieldArg0,                                         // contig_alloc
    kFieldArg0,                                                     // contig_free
    kFieldArg0 | kFieldArg1,                                        // observation
    kFieldArg0,                                                     // block
    kFieldArg0 | kFieldArg1,                                        // clone
    kFieldArg0 | kFieldArg1,                                        // wait_child
    kFieldArg0 | kFieldArg1,                                        // futex_wake
    kFieldArg0 | kFieldArg1,                                        // futex_wait
    kFieldArg0 | kFieldArg1 | kFieldArg2,                           // file_truncate
};
}  // namespace detail

// REQUIRES: is_known_kind(kind).
inline uint8_t fields_of(EventKind kind) {
  return detail::kFieldsOf[static_cast<size_t>(kind)];
}

// True when `raw` names a kind this build knows.
inline bool is_known_kind(uint8_t raw) {
  return raw < kEventKindCount;
}

// Short lower-case name used by `cat`, `info` and the importers ("mmap", "madvise_vector", ...).
std::string_view kind_name(EventKind kind);
// Inverse of kind_name; returns false when the name is unknown.
bool kind_from_name(std::string_view name, EventKind* kind);

// Builders: one per kind, setting only the fields the kind stores.
namespace ev {
Event thread_start(uint64_t ts);
Event thread_exit(uint64_t ts);
Event mm_create(uint64_t ts, uint64_t mm_id, uint64_t parent_mm_id);
Event mm_exit(uint64_t ts, uint64_t mm_id);
Event mmap(uint64_t ts, uint64_t addr, uint64_t len, uint32_t prot, uint32_t flags,
           uint64_t file_id = 0, uint64_t offset = 0);
Event munmap(uint64_t ts, uint64_t addr, uint64_t len);
Event mprotect(uint64_t ts, uint64_t addr, uint64_t len, uint32_t prot);
Event mremap(uint64_t ts, uint64_t addr, uint64_t len, uint64_t new_addr, uint64_t new_len,
             uint64_t flags);
Event brk(uint64_t ts, uint64_t new_break);
Event madvise(uint64_t ts, uint64_t addr, uint64_t len, uint64_t advice);
// The ranges are passed to TraceWriter::append beside this event.
Event madvise_vector(uint64_t ts, uint64_t advice);
Event page_fault(uint64_t ts, uint64_t addr, bool write, bool major = false, bool kernel = false);
Event touch(uint64_t ts, uint64_t addr, uint64_t len, bool write, uint64_t stride = 0);
Event file_read(uint64_t ts, uint64_t file_id, uint64_t offset, uint64_t len);
Event file_write(uint64_t ts, uint64_t file_id, uint64_t offset, uint64_t len);
Event fsync(uint64_t ts, uint64_t file_id);
// The file's page cache from byte `new_size` on dropped; `pages_dropped` as recorded
// (kTruncatedPagesUnknown: not seen).
Event file_truncate(uint64_t ts, uint64_t file_id, uint64_t new_size, uint64_t pages_dropped);
Event contig_alloc(uint64_t ts, uint64_t handle, uint64_t bytes);
Event contig_free(uint64_t ts, uint64_t handle);
Event observation(uint64_t ts, ObservationKind what, uint64_t value);
// Off the CPU from `ts` for `duration_ns` (ObservationKind::kOffCpu).
Event off_cpu(uint64_t ts, uint64_t duration_ns, bool preempted);
// Blocked in `call` for `duration_ns` (kNoDuration when the capture did not time it).
Event block(uint64_t ts, BlockCall call, uint64_t duration_ns);
// Created thread `child_tid` with `clone_flags` (kCloneFlagsUnknown when not known).
Event clone(uint64_t ts, uint64_t child_tid, uint64_t clone_flags);
// `call` (wait4) reaped `child_tid` after blocking `duration_ns`.
Event wait_child(uint64_t ts, uint64_t child_tid, BlockCall call, uint64_t duration_ns);
// A futex wake at `uaddr` that ended the waits paired with `wake_id` (0: none).
Event futex_wake(uint64_t ts, uint64_t wake_id, uint64_t uaddr);
// A futex wait at `uaddr` ended by wake `wake_id` (0: none recorded).
Event futex_wait(uint64_t ts, uint64_t wake_id, uint64_t uaddr, uint64_t duration_ns);
}  // namespace ev

}  // namespace mmreplay::formats
