// Running a command under `perf record` for `trace-replay record`: the tracepoint list, the
// permission checks with the sysctl to change (mounting tracefs when root), finding the command
// to run, running a program with its wall time, and the perf script command that turns
// perf.data into the text the importer reads.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace mmreplay::tools {

// record's exit status when the command cannot be run (not found, not executable), as a shell's.
inline constexpr int kExitCannotRun = 127;

// Where the kernel exposes tracepoints (tracefs, and its older place under debugfs).
inline constexpr const char* kTracefsEvents[] = {"/sys/kernel/tracing/events",
                                                 "/sys/kernel/debug/tracing/events"};

// The syscalls recorded by default (enter and exit), as the importer knows them.
std::vector<std::string> default_record_syscalls();

// perf -e list: syscalls:sys_enter_X / sys_exit_X for each syscall (exit and exit_group have no
// exit event), exceptions:page_fault_user and page_fault_kernel when `faults`, and with
// `ground_truth` mmap_lock:*,
// lock:contention_begin/end and tlb:tlb_flush.
std::string perf_event_list(const std::vector<std::string>& syscalls, bool faults,
                            bool ground_truth);

// perf record's ring buffer a CPU (its -m): perf's default is what kernel.perf_event_mlock_kb
// lets an unprivileged user lock, 512 KiB a CPU, and a burst of faults (16K in a few ms when a
// program populates 64 MiB) fills it faster than perf writes it out, so perf drops events and
// the trace is short of them. Root is not bound by the mlock limit: record asks for
// kRecordBufferPerCpu a CPU, halved until all the CPUs' buffers take at most 1/64 of the memory,
// never below perf's default. Returns the -m value ("8M"), or "" to leave perf's default.
inline constexpr uint64_t kRecordBufferPerCpu = uint64_t{8} << 20;
inline constexpr uint64_t kPerfDefaultBufferPerCpu = uint64_t{512} << 10;
std::string record_buffer_size(bool root, uint64_t memory_bytes, uint32_t cpus);

// Whether `text` is a -m value perf takes: a page count, or a size with B, K, M or G.
bool valid_mmap_size(std::string_view text);

// The `perf` on PATH, or an error saying to install it (Debian: linux-perf).
Status find_perf(std::string* path);
// Whether this process may record tracepoints: root, or kernel.perf_event_paranoid <= -1; and
// tracefs with the syscalls events, which it mounts at /sys/kernel/tracing when it is missing and
// this process is root. The error names the sysctl or the mount to fix it.
Status check_perf_permitted();

// The file `name` runs as: `name` itself when it holds a '/', else the first executable `name`
// on PATH. NotFound, naming it, when there is none or it is not an executable file.
Status resolve_command(const std::string& name, std::string* path);

// The perf script command that turns `data` into the importer's text (the header included: it
// gives the machine's CPUs and memory; the switch events give the threads' off-CPU time).
std::vector<std::string> perf_script_argv(const std::string& perf, const std::string& data);

// Runs argv (argv[0] looked up on PATH), stdout to `stdout_path` when not empty (and stderr to
// /dev/null when `quiet_stderr`), and waits, ignoring SIGINT and SIGQUIT meanwhile (the program
// gets them with their default action). Its stdin is record's.
// *wall_ns gets the wall time; *exit_status the exit code (128+signal when killed).
Status run_program(const std::vector<std::string>& argv, const std::string& stdout_path,
                   bool quiet_stderr, uint64_t* wall_ns, int* exit_status);

// Uprobes on glibc's open64 and openat64 that fetch the path argument as a string
// (formats/import/perf_script.h kOpenProbePrefix): perf's syscall tracepoints print the file name
// only as a pointer, so without them an open's file has no name and no kind. Added for one
// recording (the names carry record's pid, so two recordings do not clash) and removed when the
// object goes. events() is "" where they cannot be added (no glibc at the usual places, not
// x86-64, perf probe refused): opens are then recorded without names, as before.
// Also return probes on glibc's pipe, pipe2 and socketpair that fetch the two descriptors they
// returned (kPipeProbePrefix), so their fds have kind pipe or socket under perf too, and an entry
// probe on glibc's process_madvise that fetches its iovec entries (kVectorProbePrefix), so a
// recorded process_madvise keeps its ranges.
class OpenProbes {
 public:
  explicit OpenProbes(const std::string& perf);
  ~OpenProbes();
  OpenProbes(const OpenProbes&) = delete;
  OpenProbes& operator=(const OpenProbes&) = delete;
  // The -e list entries of the probes that were added, comma-separated.
  const std::string& events() const { return events_; }

 private:
  // A probe to add: `spec` for perf probe -a, `event` the name perf gives it, `without` what
  // the recording lacks when perf refuses it (a function this glibc lacks, a kernel without
  // uprobes), or null when that is not worth saying (glibc's internal _nocancel opens, absent
  // from many builds).
  struct Wanted {
    std::string event;
    std::string spec;
    const char* without;
  };
  void want(const std::string& event, const std::string& spec, const char* without);
  // Adds the wanted probes on `libc`: remembers each one perf placed, to trace and to delete;
  // warns of each refused one with its `without`.
  void place(const std::string& libc);
  // One probe alone with perf probe; false (and the warning) when perf refuses it.
  bool place_one(const std::string& libc, const Wanted& w);

  std::string perf_;
  std::vector<Wanted> wanted_;      // until place()
  std::vector<std::string> added_;  // "probe_libc:NAME"
  std::string events_;
};

// The pid of the record that added probe `event` ("probe_libc:mmreplay_open_PID", with
// "__return" after it for a return probe), or 0 for a probe that is not one of record's.
int probe_owner(std::string_view event);

// Removes record's probes whose recorder no longer runs, as `perf probe -l` lists them: a record
// killed before its OpenProbes went (SIGTERM, SIGKILL) leaves them in the kernel, where each
// costs every process on the machine a uprobe hit on each open, pipe and connect. Returns how
// many it removed.
int remove_orphaned_probes(const std::string& perf);

// The descriptors 0..max_fd listed in `proc_fd_dir` ("/proc/self/fd", "/proc/PID/fd") with what
// each points at (readlink: "/dev/null", "pipe:[123]", "socket:[9]", "/dev/pts/0"), for the
// importer to name the fds a recorded process had before recording (fd_table.h (5)). Empty when
// the folder cannot be read.
std::vector<std::pair<int32_t, std::string>> open_fds(const std::string& proc_fd_dir,
                                                      int32_t max_fd);

}  // namespace mmreplay::tools
