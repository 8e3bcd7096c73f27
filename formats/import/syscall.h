// The system calls the importers understand, with their arguments in ABI order (the order is
// fixed by the syscall ABI, while the names perf and strace print drift across versions, so the
// importers read arguments by position).

#pragma once

#include <array>
#include <cstdint>
#include <string>
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
  // File descriptors (formats/import/fd_table.h): they make no event of their own but give each
  // descriptor its file, kind and offset.
  kOpen,         // filename, flags, mode                       -> fd
  kOpenat,       // dfd, filename, flags, mode                  -> fd
  kCreat,        // pathname, mode                              -> fd
  kSocket,       // family, type, protocol                      -> fd
  kSocketpair,   // family, type, protocol, usockvec            -> 0 (fds behind the pointer)
  kPipe,         // fildes                                      -> 0 (fds behind the pointer)
  kPipe2,        // fildes, flags                               -> 0 (fds behind the pointer)
  kDup,          // fildes                                      -> fd
  kDup2,         // oldfd, newfd                                -> newfd
  kDup3,         // oldfd, newfd, flags                         -> newfd
  kFcntl,        // fd, cmd, arg                                -> fd for F_DUPFD(_CLOEXEC)
  kClose,        // fd
  kAccept,       // fd, upeer_sockaddr, upeer_addrlen           -> fd
  kAccept4,      // fd, upeer_sockaddr, upeer_addrlen, flags    -> fd
  kEventfd,      // count                                       -> fd
  kEventfd2,     // count, flags                                -> fd
  kMemfdCreate,  // uname, flags                                -> fd
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
  // Socket data: reads and writes of a socket by another name (appended: the order above is the
  // block calls' and the descriptor calls' ranges).
  kSendto,    // fd, buff, len, flags, addr, addr_len           -> bytes
  kRecvfrom,  // fd, ubuf, size, flags, addr, addr_len          -> bytes
  kSendmsg,   // fd, msg, flags                                 -> bytes
  kRecvmsg,   // fd, msg, flags                                 -> bytes
  // A descriptor call (fd_table.h), appended: a connected socket may be paired with the socket
  // its listener accepted (socket_pairs.h).
  kConnect,  // fd, uservaddr, addrlen                            -> 0 (-EINPROGRESS: under way)
  // A descriptor call, appended: SO_SNDBUF/SO_SNDBUFFORCE size a socket's send buffer
  // (socket_wakeups.h); other options change nothing modelled (counted as ignored).
  kSetsockopt,  // fd, level, optname, optval, optlen              -> 0
  // A descriptor call, appended: the address a listener is bound to, for pairing its accepts with
  // the connects to that address (socket_pairs.h).
  kBind,  // fd, umyaddr, addrlen                                   -> 0
  // File data by the other calls that move it (appended), the bytes moved their return value:
  // at an offset, or through an iovec.
  kPwrite64,  // fd, buf, count, pos                               -> bytes
  kReadv,     // fd, vec, vlen                                     -> bytes
  kWritev,    // fd, vec, vlen                                     -> bytes
  kPreadv,    // fd, vec, vlen, pos_l, pos_h                       -> bytes
  kPwritev,   // fd, vec, vlen, pos_l, pos_h                       -> bytes
  kPreadv2,   // fd, vec, vlen, pos_l, pos_h, flags (pos -1: the fd's position) -> bytes
  kPwritev2,  // fd, vec, vlen, pos_l, pos_h, flags                -> bytes
  // Copies inside the kernel (appended): do_splice_direct() takes the source's page-cache pages
  // by reference and copies them once, into the destination. A read of the source that copies
  // nothing to user memory, and a write of the destination inside the same call.
  kCopyFileRange,  // fd_in, off_in, fd_out, off_out, len, flags  -> bytes
  kSendfile64,     // out_fd, in_fd, offset, count (strace: "sendfile") -> bytes
  // fsync(2) without the inode's metadata (appended): sqlite's commits, most databases' logs.
  // The model writes the file's dirty blocks either way (fs/read_write.h do_fsync()).
  kFdatasync,  // fd
  // Truncation of a file's page cache (appended; mm/truncate.h): as open(O_TRUNC) does.
  kFtruncate,  // fd, length                                        -> 0
  // The last link of a file going: its page cache is dropped once no descriptor holds it
  // (iput() -> evict() -> truncate_inode_pages_final()).
  kUnlink,    // pathname                                         -> 0
  kUnlinkat,  // dfd, pathname, flag (AT_REMOVEDIR: a directory)  -> 0
  // A shared file mapping's dirty pages written and waited for (appended): with MS_SYNC, an
  // fdatasync() of the file of each shared mapping in the range (mm/msync.c); MS_ASYNC does
  // nothing since 2.6.19.
  kMsync,  // start, len, flags                                     -> 0
};
inline constexpr size_t kSyscallCount = 71;
inline constexpr size_t kMaxSyscallArgs = 6;

// Looks a syscall up by the name perf, strace and trace-cmd use ("mmap", "pread64", ...).
bool syscall_from_name(std::string_view name, Syscall* sc);
std::string_view syscall_name(Syscall sc);

// True when the call's return value is needed to make its event (the address of a new mapping,
// the bytes moved, the child's id). Calls that need none can still be kept when their exit is
// missing.
bool syscall_needs_return(Syscall sc);

// A call that moves a file's data through a buffer or an iovec (read, write, pread64, pwrite64,
// readv, writev and the preadv/pwritev family): the descriptor is args[0], the bytes its return
// value, and the offset args[offset_arg] or, with kNoOffsetArg, the descriptor's position.
struct FileDataCall {
  static constexpr int kNoOffsetArg = -1;
  bool write = false;
  int offset_arg = kNoOffsetArg;
  bool minus_one_is_position = false;  // preadv2/pwritev2: an offset of -1 is the position
};
// True for those calls, with how they read their arguments.
bool syscall_file_data(Syscall sc, FileDataCall* call);

// True when the call can block its thread off the CPU, with the BlockCall its event records.
// futex counts only for the ops that wait (FUTEX_WAIT, _BITSET, _REQUEUE_PI, LOCK_PI, LOCK_PI2),
// read from args[1]; FUTEX_WAKE and the requeues run on the CPU and are dropped. Reads of pipes
// and sockets block too; their kind is known only once the descriptor tables are followed
// (fd_table.h, at finish()), and they stay reads, ordered after the write that woke them where
// the other end is in the recording (pipe_wakeups.h, socket_wakeups.h).
bool syscall_block_call(Syscall sc, const std::array<uint64_t, kMaxSyscallArgs>& args,
                        BlockCall* call);

// One call as a parser saw it.
struct SyscallCall {
  Syscall sc = Syscall::kMmap;
  std::array<uint64_t, kMaxSyscallArgs> args{};
  bool clone_flags_known = true;  // false for clone3 seen by perf (flags sit behind a pointer)
  std::vector<Range> ranges;      // process_madvise, where the tool decoded the iovec
  // What strace shows and perf does not (formats/import/fd_table.h):
  std::string path;              // open/openat/creat: the file name; memfd_create: its name;
                                 // connect, bind: an AF_UNIX address's sun_path (socket_pairs.h)
  std::string fd_path;           // -y: what the call's first fd argument points at ("/dev/null",
                                 //     "pipe:[123]", "TCP:[...]"), "" when not printed
  std::string ret_path;          // -y: what a returned fd points at ("= 3</tmp/x>")
  std::vector<int32_t> fds_out;  // pipe, pipe2, socketpair: the two fds of "[3, 4]"
  std::vector<std::string> fds_out_paths;  // and their -y paths, where printed
  bool fd_args_known = true;  // false: strace printed a descriptor call it could not decode
  // setsockopt: args[3] is the int optval points at (strace prints it; record's probe on glibc's
  // setsockopt fetches it), not the pointer perf's tracepoint prints.
  bool optval_known = false;
  // open(O_TRUNC), creat, ftruncate: the page-cache pages the kernel dropped inside the call
  // (perf: filemap:mm_filemap_delete_from_page_cache, counted per page); kTruncatedPagesUnknown
  // when the recording did not trace them (strace, or perf without the tracepoint).
  uint64_t pages_dropped = kTruncatedPagesUnknown;
};

// Linux constants the importers interpret (include/uapi/linux/sched.h, mman-common.h).
inline constexpr uint64_t kCloneVm = 0x00000100;
inline constexpr uint64_t kCloneThread = 0x00010000;
inline constexpr uint64_t kCloneVfork = 0x00004000;
inline constexpr uint32_t kMapAnonymous = 0x20;
inline constexpr uint32_t kMapShared = 0x01;
inline constexpr uint64_t kMsSync = 4;          // MS_SYNC (include/uapi/asm-generic/mman-common.h)
inline constexpr uint64_t kShmRdonly = 010000;  // include/uapi/linux/shm.h: SHM_RDONLY
inline constexpr uint32_t kMapPrivate = 0x02;
inline constexpr uint32_t kMapFixed = 0x10;
inline constexpr uint32_t kProtRead = 0x1;
inline constexpr uint32_t kProtWrite = 0x2;
inline constexpr uint64_t kMremapDontUnmap = 0x4;
inline constexpr uint64_t kCloneFiles = 0x00000400;
// include/uapi/asm-generic/fcntl.h
inline constexpr uint64_t kOCreat = 0100;
inline constexpr uint64_t kOExcl = 0200;
inline constexpr uint64_t kOTrunc = 01000;
inline constexpr uint64_t kAtRemovedir = 0x200;   // include/uapi/linux/fcntl.h
inline constexpr uint64_t kAtFdcwd = 0xffffff9c;  // AT_FDCWD (-100) as a 32-bit dfd argument
inline constexpr uint64_t kFDupfd = 0;
inline constexpr uint64_t kFDupfdCloexec = 1030;
// include/linux/net.h: enum sock_type, and the mask of socket()'s type argument without
// SOCK_NONBLOCK and SOCK_CLOEXEC.
inline constexpr uint64_t kSockStream = 1;
inline constexpr uint64_t kSockDgram = 2;
inline constexpr uint64_t kSockSeqpacket = 5;
inline constexpr uint64_t kSockTypeMask = 0xf;
// include/linux/socket.h: the address families whose connections the importer pairs.
inline constexpr uint64_t kAfUnix = 1;
inline constexpr uint64_t kAfInet = 2;
inline constexpr uint64_t kAfInet6 = 10;
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
// include/uapi/asm-generic/errno.h: a non-blocking connect that is under way.
inline constexpr int64_t kEinprogress = 115;
// include/uapi/asm-generic/socket.h: the setsockopt level and options that size a send buffer.
inline constexpr uint64_t kSolSocket = 1;
inline constexpr uint64_t kSoSndbuf = 7;
inline constexpr uint64_t kSoSndbufforce = 32;
// Return values in [-4095, -1] are -errno (include/linux/err.h, MAX_ERRNO).
inline constexpr uint64_t kMaxErrno = 4095;
inline bool is_error_return(int64_t ret) {
  return ret < 0 && ret >= -static_cast<int64_t>(kMaxErrno);
}
// A call a signal interrupted: EINTR as user space sees it (include/uapi/asm-generic/errno-base.h)
// and the restart codes the syscall exit tracepoint sees before signal delivery turns them into
// EINTR or a restart (include/linux/errno.h: ERESTARTSYS 512, ERESTARTNOINTR 513,
// ERESTARTNOHAND 514, ERESTART_RESTARTBLOCK 516).
inline constexpr int64_t kEintr = 4;
inline constexpr int64_t kErestartsys = 512;
inline constexpr int64_t kErestartnohand = 514;
inline constexpr int64_t kErestartRestartblock = 516;
inline bool is_interrupted_return(int64_t ret) {
  return ret == -kEintr || (ret <= -kErestartsys && ret >= -kErestartnohand) ||
         ret == -kErestartRestartblock;
}

}  // namespace mmreplay::formats
