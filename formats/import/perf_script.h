// Importer for `perf script` text, as `trace-replay record` asks for it:
//
//   perf script --header -F comm,pid,tid,cpu,time,event,trace --ns
//
//   mmtouch 10892/10894 [001]  1468.236276190:  syscalls:sys_enter_mmap: addr: 0x00000000, len: ...
//   mmtouch 10892/10894 [001]  1468.236282071:   syscalls:sys_exit_mmap: 0x7fe42ad90000
//   mmtouch 10892/10894 [001]  1468.236300000: exceptions:page_fault_user: address=0x7f.. ip=0x..
//                                                                           error_code=0x6
//
// Also accepted: a bare tid instead of pid/tid (-F comm,tid,...; threads then take their process
// from the clone that made them), no [cpu] column, microsecond timestamps (no --ns), commands
// with spaces. The "# os release", "# nrcpus avail", "# total memory" and "# cmdline" header
// lines fill the recorder info.
//
// Syscall arguments are read by position (the syscall ABI fixes it; the names perf prints drift
// across kernels). A page fault is a write when error_code bit 1 is set (x86 X86_PF_WRITE).
// mmap_lock:*, lock:contention_begin/end and tlb:tlb_flush are counted as observations.
// exceptions:page_fault_kernel on a user address is a fault inside the syscall that took it
// (kFlagKernel). PERF_RECORD_SWITCH lines (--show-switch-events) give the threads' off-CPU
// intervals (off_cpu observations); PERF_RECORD_LOST lines (--show-lost-events) count the
// events perf dropped. sched:sched_wakeup of a traced thread ends its blocking call's event at
// the wake-up (ImportBuilder::task_woken()). Other
// events are counted as ignored; lines of no known form are counted as unknown. A line that
// names a known event but cannot be read is malformed: the import stops with "FILE:LINE: ...".

#pragma once

#include <cstddef>
#include <string_view>

#include "common/status.h"
#include "formats/import/import_builder.h"
#include "formats/import/line_reader.h"
#include "formats/trace_meta.h"

namespace mmreplay::formats {

// The uprobes `record` puts on glibc's open64 and openat64 (tools/cli/record_perf.h OpenProbes):
// "probe_libc:mmreplay_open_PID: (7f..) path=\"/dev/null\"". The path names the open that the
// thread's next syscall makes (perf prints the syscall's filename only as a pointer).
inline constexpr std::string_view kOpenProbeGroup = "probe_libc";
inline constexpr std::string_view kOpenProbePrefix = "mmreplay_open";
// Return probes on glibc's pipe and pipe2 (the same OpenProbes):
// "probe_libc:mmreplay_pipe_pipe2_PID__return: (7f.. <- 55..) fd0=3 fd1=5 ret=0". The two
// descriptors of the thread's pipe call just before (sys_exit_pipe2 prints only its 0). Also on
// socketpair ("mmreplay_pipe_socketpair_PID__return"): its fds are sockets.
inline constexpr std::string_view kPipeProbePrefix = "mmreplay_pipe";
// An entry probe on glibc's process_madvise (the same OpenProbes) fetching the first
// kVectorProbeRanges entries of its iovec array (perf prints the syscall's iovec only as a
// pointer): "probe_libc:mmreplay_pmadv_PID: (7f..) vlen=3 advice=20 b0=0x7f.. l0=8192 b1=...".
// They become the ranges of the thread's next process_madvise; entries past vlen are whatever
// memory followed the array, and a call with more entries keeps its first kVectorProbeRanges.
inline constexpr std::string_view kVectorProbePrefix = "mmreplay_pmadv";
inline constexpr size_t kVectorProbeRanges = 16;
// An entry probe on glibc's setsockopt (the same OpenProbes) fetching the int its optval points
// at: "probe_libc:mmreplay_sockopt_PID: (7f..) val=65536". It is the value of the thread's next
// setsockopt (SO_SNDBUF sizes a socket's send buffer, socket_wakeups.h); a val perf could not
// fetch (optval NULL) is left out.
inline constexpr std::string_view kSockoptProbePrefix = "mmreplay_sockopt";
// Entry probes on glibc's connect and bind (the same OpenProbes) fetching the sockaddr's family,
// the u16 at offset 2 (an IP port, in network order) and, for AF_UNIX, its sun_path and the
// string after its first byte: "probe_libc:mmreplay_sockaddr_connect_PID: (7f..) fam=1
// port=28719 abstract=\"tmp/s\" path=\"/tmp/s\"". The path (an abstract name, whose first byte
// is 0, as strace's "@name"), or for AF_INET and AF_INET6 the port, is the address of the
// thread's next connect or bind (socket_pairs.h); another family, port 0 or an empty name gives
// none.
inline constexpr std::string_view kSockaddrProbePrefix = "mmreplay_sockaddr";

// The fields record asks perf script for (-F), and the command for messages.
inline constexpr std::string_view kPerfScriptFields = "comm,pid,tid,cpu,time,event,trace";
inline constexpr std::string_view kPerfScriptCommand =
    "perf script -i perf.data --header -F comm,pid,tid,cpu,time,event,trace --ns";

// `launcher_prologue`: ImportOptions::launcher_prologue (the first thread's lines up to and
// with its first execve enter are left out).
Status parse_perf_script(LineReader* lines, ImportBuilder* builder, RecorderInfo* recorder,
                         bool launcher_prologue = false);

}  // namespace mmreplay::formats
