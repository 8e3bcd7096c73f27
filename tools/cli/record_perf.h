// Running a command under `perf record` for `trace-replay record`: the tracepoint list, the
// permission checks with the sysctl to change, running a program with its wall time, and
// turning perf.data into the perf script text the importer reads.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace mmreplay::tools {

// The syscalls recorded by default (enter and exit), as the importer knows them.
std::vector<std::string> default_record_syscalls();

// perf -e list: syscalls:sys_enter_X / sys_exit_X for each syscall (exit and exit_group have no
// exit event), exceptions:page_fault_user when `faults`, and with `ground_truth` mmap_lock:*,
// lock:contention_begin/end and tlb:tlb_flush.
std::string perf_event_list(const std::vector<std::string>& syscalls, bool faults,
                            bool ground_truth);

// The `perf` on PATH, or an error saying to install it (Debian: linux-perf).
Status find_perf(std::string* path);
// Whether this process may record tracepoints: root, or kernel.perf_event_paranoid <= -1; and
// tracefs with the syscalls events. The error names the sysctl or the mount to fix it.
Status check_perf_permitted();

// Runs argv (argv[0] looked up on PATH), stdout to `stdout_path` when not empty (and stderr to
// /dev/null when `quiet_stderr`), and waits.
// *wall_ns gets the wall time; *exit_status the exit code (128+signal when killed).
Status run_program(const std::vector<std::string>& argv, const std::string& stdout_path,
                   bool quiet_stderr, uint64_t* wall_ns, int* exit_status);

}  // namespace mmreplay::tools
