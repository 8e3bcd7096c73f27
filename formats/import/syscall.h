// The system calls the importers understand, with their arguments in ABI order (the order is
// fixed by the syscall ABI, while the names perf and strace print drift across versions, so the
// importers read arguments by position).

#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "formats/event.h"

namespace mmreplay::formats {

enum class Syscall : uint8_t {
  kMmap,            // addr, len, prot, flags, fd, off           -> new address
  kMunmap,          // addr, len
  kMprotect,        // start, len, prot
  kMremap,          // addr, old_len, new_len, flags, new_addr   -> new address
  kBrk,             // brk                                        -> new break
  kMadvise,         // start, len, advice
  kProcessMadvise,  // pidfd, iovec, vlen, advice, flags
  kRead,            // fd, buf, count                             -> bytes
  kPread64,         // fd, buf, count, pos                        -> bytes
  kWrite,           // fd, buf, count                             -> bytes
  kFsync,           // fd
  kClone,           // flags, ...                                 -> child tid
  kClone3,          // uargs, size (flags only where the tool decodes the struct)
  kFork,            // (none)                                     -> child pid
  kVfork,           // (none)                                     -> child pid
  kExit,            // code
  kExitGroup,       // code
  // Calls that block the thread off its CPU: they become kBlock events (see syscall_block_call).
  kFutex,           // uaddr, op, val, timeout, uaddr2, val3
  kNanosleep,       // req, rem
  kClockNanosleep,  // clockid, flags, req, rem
  kPoll,            // fds, nfds, timeout_ms
  kPpoll,           // fds, nfds, tsp, sigmask, sigsetsize
  kEpollWait,       // epfd, events, maxevents, timeout
  kEpollPwait,      // epfd, events, maxevents, timeout, sigmask, sigsetsize
  kSelect,          // n, inp, outp, exp, tvp
  kPselect6,        // n, inp, outp, exp, tsp, sig
  kWait4,           // pid, status, options, rusage
  kWaitid,          // which, pid, infop, options, rusage
  // Process lifecycle beyond clone/exit.
  kExecve,    // filename, argv, envp                               -> 0 in the new image
  kExecveat,  // dfd, filename, argv, envp, flags                   -> 0 in the new image
  // System V shared memory: attaches are mappings.
  kShmget,  // key, size, shmflg                                    -> shmid
  kShmat,   // shmid, shmaddr, shmflg                               -> address
  kShmdt,   // shmaddr
};
inline constexpr size_t kSyscallCount = 33;
inline constexpr size_t kMaxSyscallArgs = 6;

// Looks a syscall up by the name perf, strace and trace-cmd use ("mmap", "pread64", ...).
bool syscall_from_name(std::string_view name, Syscall* sc);
std::string_view syscall_name(Syscall sc);

// True when the call's return value is needed to make its event (the address of a new mapping,
// the bytes moved, the child's id). Calls that need none can still be kept when their exit is
// missing.
bool syscall_needs_return(Syscall sc);

// True when the call can block its thread off the CPU, with the BlockCall its event records.
// futex counts only for the ops that wait (FUTEX_WAIT, _BITSET, _REQUEUE_PI, LOCK_PI, LOCK_PI2),
// read from args[1]; FUTEX_WAKE and the requeues run on the CPU and are dropped. Reads of pipes
// and sockets block too, but the importers do not know fd kinds yet: they stay file reads.
bool syscall_block_call(Syscall sc, const std::array<uint64_t, kMaxSyscallArgs>& args,
                        BlockCall* call);

// One call as a parser saw it.
struct SyscallCall {
  Syscall sc = Syscall::kMmap;
  std::array<uint64_t, kMaxSyscallArgs> args{};
  bool clone_flags_known = true;  // false for clone3 seen by perf (flags sit behind a pointer)
  std::vector<Range> ranges;      // process_madvise, where the tool decoded the iovec
};

// Linux constants the importers interpret (include/uapi/linux/sched.h, mman-common.h).
inline constexpr uint64_t kCloneVm = 0x00000100;
inline constexpr uint64_t kCloneThread = 0x00010000;
inline constexpr uint64_t kCloneVfork = 0x00004000;
inline constexpr uint32_t kMapAnonymous = 0x20;
inline constexpr uint32_t kMapShared = 0x01;
inline constexpr uint64_t kShmRdonly = 010000;  // include/uapi/linux/shm.h: SHM_RDONLY
inline constexpr uint32_t kMapPrivate = 0x02;
inline constexpr uint32_t kMapFixed = 0x10;
inline constexpr uint32_t kProtRead = 0x1;
inline constexpr uint32_t kProtWrite = 0x2;
inline constexpr uint64_t kMremapDontUnmap = 0x4;
// include/uapi/linux/futex.h
inline constexpr uint64_t kFutexCmdMask = 0x7f;  // FUTEX_CMD_MASK without PRIVATE/CLOCK_REALTIME
inline constexpr uint64_t kFutexWait = 0;
inline constexpr uint64_t kFutexLockPi = 6;
inline constexpr uint64_t kFutexWaitBitset = 9;
inline constexpr uint64_t kFutexWaitRequeuePi = 11;
inline constexpr uint64_t kFutexLockPi2 = 13;
inline constexpr uint64_t kFutexWake = 1;
inline constexpr uint64_t kFutexRequeue = 3;
inline constexpr uint64_t kFutexCmpRequeue = 4;
inline constexpr uint64_t kFutexWakeOp = 5;
inline constexpr uint64_t kFutexUnlockPi = 7;
inline constexpr uint64_t kFutexWakeBitset = 10;
inline constexpr uint64_t kFutexCmpRequeuePi = 12;
// Return values in [-4095, -1] are -errno (include/linux/err.h, MAX_ERRNO).
inline constexpr uint64_t kMaxErrno = 4095;
inline bool is_error_return(int64_t ret) {
  return ret < 0 && ret >= -static_cast<int64_t>(kMaxErrno);
}

}  // namespace mmreplay::formats
