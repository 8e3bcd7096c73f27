#include "formats/import/syscall.h"

namespace mmreplay::formats {
namespace {

constexpr std::array<std::string_view, kSyscallCount> kNames = {
    "mmap",
    "munmap",
    "mprotect",
    "mremap",
    "brk",
    "madvise",
    "process_madvise",
    "read",
    "pread64",
    "write",
    "fsync",
    "clone",
    "clone3",
    "fork",
    "vfork",
    "exit",
    "exit_group",
    // file descriptors
    "open",
    "openat",
    "creat",
    "socket",
    "socketpair",
    "pipe",
    "pipe2",
    "dup",
    "dup2",
    "dup3",
    "fcntl",
    "close",
    "accept",
    "accept4",
    "eventfd",
    "eventfd2",
    "memfd_create",
    // blocking
    "futex",
    "nanosleep",
    "clock_nanosleep",
    "poll",
    "ppoll",
    "epoll_wait",
    "epoll_pwait",
    "select",
    "pselect6",
    "wait4",
    "waitid",
    // process lifecycle
    "execve",
    "execveat",
    // System V shared memory
    "shmget",
    "shmat",
    "shmdt",
    // socket data
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    // file descriptors, appended
    "connect",
    "setsockopt",
    "bind",
    // file data, appended
    "pwrite64",
    "readv",
    "writev",
    "preadv",
    "pwritev",
    "preadv2",
    "pwritev2",
    // copies inside the kernel
    "copy_file_range",
    "sendfile64",
    "fdatasync",
    "ftruncate",
    "unlink",
    "unlinkat",
    "msync",
};

}  // namespace

bool syscall_from_name(std::string_view name, Syscall* sc) {
  if (name == "sendfile") name = "sendfile64";  // strace's name; the tracepoint's is sendfile64
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) {
      *sc = static_cast<Syscall>(i);
      return true;
    }
  }
  return false;
}

std::string_view syscall_name(Syscall sc) {
  return kNames[static_cast<size_t>(sc)];
}

bool syscall_needs_return(Syscall sc) {
  switch (sc) {
    case Syscall::kMmap:
    case Syscall::kMremap:
    case Syscall::kBrk:
    case Syscall::kRead:
    case Syscall::kPread64:
    case Syscall::kWrite:
    case Syscall::kClone:
    case Syscall::kClone3:
    case Syscall::kFork:
    case Syscall::kVfork:
    // a new descriptor: its number is the return value
    case Syscall::kOpen:
    case Syscall::kOpenat:
    case Syscall::kCreat:
    case Syscall::kSocket:
    case Syscall::kDup:
    case Syscall::kFcntl:
    case Syscall::kAccept:
    case Syscall::kAccept4:
    case Syscall::kEventfd:
    case Syscall::kEventfd2:
    case Syscall::kMemfdCreate:
    case Syscall::kExecve:  // only a successful exec (0) replaces the mm
    case Syscall::kExecveat:
    case Syscall::kShmget:
    case Syscall::kShmat:
    case Syscall::kSendto:  // the bytes moved
    case Syscall::kRecvfrom:
    case Syscall::kSendmsg:
    case Syscall::kRecvmsg:
    case Syscall::kPwrite64:
    case Syscall::kReadv:
    case Syscall::kWritev:
    case Syscall::kPreadv:
    case Syscall::kPwritev:
    case Syscall::kPreadv2:
    case Syscall::kPwritev2:
    case Syscall::kCopyFileRange:
    case Syscall::kSendfile64:
      return true;
    default:
      return false;
  }
}

bool syscall_file_data(Syscall sc, FileDataCall* call) {
  // pos_l of the p*v calls holds the whole offset on a 64-bit kernel (pos_h, its upper half, is
  // 0 there).
  switch (sc) {
    case Syscall::kRead:
    case Syscall::kReadv:
      *call = {false, FileDataCall::kNoOffsetArg, false};
      return true;
    case Syscall::kWrite:
    case Syscall::kWritev:
      *call = {true, FileDataCall::kNoOffsetArg, false};
      return true;
    case Syscall::kPread64:
    case Syscall::kPreadv:
      *call = {false, 3, false};
      return true;
    case Syscall::kPwrite64:
    case Syscall::kPwritev:
      *call = {true, 3, false};
      return true;
    case Syscall::kPreadv2:
      *call = {false, 3, true};
      return true;
    case Syscall::kPwritev2:
      *call = {true, 3, true};
      return true;
    default:
      return false;
  }
}

bool syscall_block_call(Syscall sc, const std::array<uint64_t, kMaxSyscallArgs>& args,
                        BlockCall* call) {
  if (sc < Syscall::kFutex || sc > Syscall::kWaitid) return false;
  if (sc == Syscall::kFutex) {
    switch (args[1] & kFutexCmdMask) {
      case kFutexWait:
      case kFutexLockPi:
      case kFutexWaitBitset:
      case kFutexWaitRequeuePi:
      case kFutexLockPi2:
        break;
      default:
        return false;
    }
  }
  // The blocking calls are listed in BlockCall's order.
  *call = static_cast<BlockCall>(static_cast<size_t>(sc) - static_cast<size_t>(Syscall::kFutex));
  return true;
}

}  // namespace mmreplay::formats
