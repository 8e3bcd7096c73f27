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
};
inline constexpr size_t kSyscallCount = 17;
inline constexpr size_t kMaxSyscallArgs = 6;

// Looks a syscall up by the name perf, strace and trace-cmd use ("mmap", "pread64", ...).
bool syscall_from_name(std::string_view name, Syscall* sc);
std::string_view syscall_name(Syscall sc);

// True when the call's return value is needed to make its event (the address of a new mapping,
// the bytes moved, the child's id). Calls that need none can still be kept when their exit is
// missing.
bool syscall_needs_return(Syscall sc);

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
inline constexpr uint32_t kMapAnonymous = 0x20;
inline constexpr uint32_t kMapPrivate = 0x02;
inline constexpr uint32_t kMapFixed = 0x10;
inline constexpr uint32_t kProtRead = 0x1;
inline constexpr uint32_t kProtWrite = 0x2;
inline constexpr uint64_t kMremapDontUnmap = 0x4;
// Return values in [-4095, -1] are -errno (include/linux/err.h, MAX_ERRNO).
inline constexpr uint64_t kMaxErrno = 4095;
inline bool is_error_return(int64_t ret) {
  return ret < 0 && ret >= -static_cast<int64_t>(kMaxErrno);
}

}  // namespace mmreplay::formats
