// What a trace says about itself: the header fields, the thread table and the file table.
// These are plain structs; header_codec.cpp maps them to and from the Cap'n Proto Header.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mmreplay::formats {

// Format version written by this build. A reader refuses a file whose major version is newer.
inline constexpr uint16_t kFormatVersionMajor = 1;
// 1.1: observation events; 1.2: block events; 1.3: the recorder's measured tracing and fault
// costs, kernel-mode page faults (kFlagKernel), file kinds (FileInfo::kind, created); 1.4: clone,
// wait_child, futex_wake and futex_wait events and the thread table's parent_tid; 1.5: the
// allocator a generated workload stands for (TraceMeta::allocator); 1.6: chunks stored by kind
// (Chunk.encoding byKind, formats/chunk_codec.h; older chunks are byField); 1.7: file_write pieces
// of one call (kFlagContinued); 1.8: each file's device readahead window (FileInfo::read_ahead_kb);
// 1.9: file_read as the source of an in-kernel copy (kFlagKernel: copy_file_range(), sendfile()),
// and block ended by the ordering edge after it (kFlagWokenByEdge); 1.10: file_truncate; 1.11: the
// recording's sync wake-up placement (RecorderInfo::sync_wakes_on_waker_cpu and _other_cpu);
// 1.12: the recording machine's vm.min_free_kbytes (RecorderInfo::min_free_kbytes); 1.13: the
// kind of its swap device (RecorderInfo::swap_device); 1.14: the memory limit of the recorded
// program's cgroup (RecorderInfo::memcg_limit_bytes); 1.15: waits for any child (kFlagAnyChild
// on wait_child, and on the interrupted wait a child's exit ended).
// A minor version only adds kinds and fields, so a reader reads every older minor version of its
// major one.
inline constexpr uint16_t kFormatVersionMinor = 15;

// Most threads (streams) a reader accepts by default (ReaderOptions::max_threads). The reader keeps
// a table entry per stream id, so a hostile header or chunk naming stream 60M would otherwise cost
// gigabytes; 1M is far above any recorded program (Linux's default threads-max is ~128K per 16
// GiB).
inline constexpr uint32_t kDefaultMaxThreads = 1u << 20;

// One trace thread. Its stream id is its index in the thread table.
struct ThreadInfo {
  uint64_t tid = 0;    // OS thread id as recorded (or a generator's number)
  uint64_t mm_id = 0;  // which address space it runs in (a process); threads of one mm share it
  std::string name;
  int32_t cpu = -1;  // CPU it last ran on in the recording (--placement as-recorded), -1 unknown
  // The thread whose stream holds the clone event that created this one (format 1.4); 0: none,
  // the thread starts at its first event's time.
  uint64_t parent_tid = 0;
  friend bool operator==(const ThreadInfo&, const ThreadInfo&) = default;
};

// What a descriptor points at (trace.capnp enum FileKind, same numbers). Only regular files and
// block devices go through the page cache; kUnknown (files before format 1.3, descriptors whose
// opening was not seen) is replayed as regular, as those files always were.
enum class FileKind : uint8_t {
  kUnknown = 0,
  kRegular,
  kBlockDevice,
  kSocket,
  kPipe,
  kCharDevice,  // /dev/null, /dev/zero, /dev/urandom
  kTty,         // /dev/tty*, /dev/pts/*, /dev/console
  kAnon,        // anon inodes: eventfd, memfd, epoll, signalfd, timerfd
};
inline constexpr size_t kFileKindCount = 8;
// "unknown", "regular", "block", "socket", "pipe", "char", "tty", "anon".
std::string_view file_kind_name(FileKind kind);

// One file that file events and file mappings refer to by id (ids start at 1; 0 = no file).
struct FileInfo {
  uint64_t id = 0;
  std::string path;
  uint64_t size_bytes = 0;
  uint32_t block_size = 4096;
  FileKind kind = FileKind::kUnknown;
  bool created = false;  // made during the recording: no page-cache pages at its start
  // Format 1.8: read_ahead_kb of the device behind the file on the recording machine (its bdi's,
  // from sysfs: tools/cli/host_files.h); -1 when not known (older files, generated traces,
  // files that are not on a block device), and replay then uses its read_ahead_kb knob.
  int32_t read_ahead_kb = -1;
  friend bool operator==(const FileInfo&, const FileInfo&) = default;
};

// Where the trace came from and the machine it was recorded on.
struct RecorderInfo {
  std::string tool;            // "trace-replay gen", "perf", "strace", ...
  std::string command_line;    // what to run to make it again
  std::string kernel_release;  // uname -r of the recording host ("" for generated traces)
  uint32_t cpus = 0;
  uint64_t memory_bytes = 0;
  uint32_t page_size = 4096;
  uint64_t swap_bytes = 0;
  // Format 1.3, measured by `record` on the recording machine (0 = not measured, and replay then
  // takes nothing out of the gaps): the trace time each recorded event adds to the gap after it
  // (perf's own work, and the syscall entry and exit the model charges itself), and the kernel
  // time of one page fault, which stays in the gap after a fault because a fault has no exit.
  uint64_t tracing_cost_ns = 0;
  uint64_t fault_cost_ns = 0;
  // Format 1.11: the recording's sync wake-ups of a task asleep in a pipe or socket call by the
  // call it waited for, by where the woken task ran: on the waker's CPU (wake_affine pulled it
  // there, or both ran on one CPU anyway) or on another (it stayed on its own idle CPU). Replay
  // places sync wake-ups as the majority did (replay/run.cpp); both 0: not known.
  uint64_t sync_wakes_on_waker_cpu = 0;
  uint64_t sync_wakes_on_other_cpu = 0;
  // Format 1.12: /proc/sys/vm/min_free_kbytes on the recording machine (0 = not known). Replay on
  // the recorded memory sets the model's watermarks from it (replay/run.cpp).
  uint64_t min_free_kbytes = 0;
  // Format 1.13: "zram" or "block", the kind of the recording machine's swap
  // (tools/calibrate/host_swap.h); "" = not known. Replay takes it unless --swap-device or
  // --profile zram says otherwise (replay/run.cpp).
  std::string swap_device;
  // Format 1.14: the memory limit of the cgroup the recorded program started in
  // (tools/calibrate/host_memcg.h); 0 = none or not known. Replay takes it unless --memcg-limit
  // says otherwise (replay/run.cpp).
  uint64_t memcg_limit_bytes = 0;
  friend bool operator==(const RecorderInfo&, const RecorderInfo&) = default;
};

struct TraceMeta {
  uint16_t version_major = kFormatVersionMajor;
  uint16_t version_minor = kFormatVersionMinor;
  RecorderInfo recorder;
  std::string generator;                                    // workload name, "" if captured
  std::vector<std::pair<std::string, std::string>> params;  // generator parameters as given
  // Format 1.5: the allocator the generated workload stands for, its version and purge advice
  // ("jemalloc 4.0, purge MADV_DONTNEED"); "" when captured, without an allocator, or older.
  std::string allocator;
  std::vector<ThreadInfo> threads;
  std::vector<FileInfo> files;
  friend bool operator==(const TraceMeta&, const TraceMeta&) = default;
};

}  // namespace mmreplay::formats
