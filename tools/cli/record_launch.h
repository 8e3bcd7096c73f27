// record's launcher: what perf record runs in place of the command, to start it on memory the
// host has not let go cold.
//
// Why: on a virtual machine the host's side of guest memory decays while the guest idles or
// waits: the first write to a page after a pause costs a trip to the host. (On this project's
// PVM guest it did so with the guest's free page reporting turned off as well, page_reporting_
// order above MAX_PAGE_ORDER: the host's own doing, which the guest cannot see or stop.) Measured
// on this project's 2-vCPU guest, a process rewriting 32 MiB it had already faulted in took 3.5 ms
// back to back, 6-8 ms after a 0.2 s sleep and 22-31 ms after 4 s; a program's fresh pages fault at
// 1.4 us back to back and about 2.5 us after a pause. perf record spends 0.3-1 s setting up
// before it runs the command, so a recorded program started cold while the native runs it was
// compared with ran back to back: fork_touch (tests/real) replayed at 1.22-1.42x of native, its
// recorded memset of 32 MiB taking 25 ms against 13.5 ms native, the difference in think time.
//
// What: the launcher maps `warm` bytes with MAP_POPULATE (the kernel allocates and clears each
// page: the host's first write, taken now) and unmaps them, so the pages go back to the free
// lists the command allocates from next; then it execs the command. Its own events (loading this
// binary, the one mmap and munmap) come before the exec and the importer leaves them out
// (ImportOptions::launcher_prologue). Populating inside mmap raises no user page faults.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mmreplay::tools {

// The hidden subcommand perf runs: record-launch --warm-mib N -- COMMAND ARGS...
inline constexpr const char* kLaunchCommand = "record-launch";
// The default warm-up. A program that allocates more gets the rest from colder free lists; the
// warm-up takes a few tens of ms before the command starts, untraced.
inline constexpr uint64_t kRecordWarmMiB = 256;
// At most this share of the memory free now is warmed (a small machine keeps room for perf).
inline constexpr uint64_t kWarmFreeMemoryDivisor = 4;

// The bytes to warm for a request of `mib` MiB with `free_bytes` free: the request, capped at
// free_bytes / kWarmFreeMemoryDivisor.
uint64_t warm_bytes(uint64_t mib, uint64_t free_bytes);

// Allocates, clears and frees `bytes` of memory (MAP_POPULATE, then munmap). False when the
// mapping failed (the command then starts as it would have).
bool warm_free_memory(uint64_t bytes);

// perf record's workload for `command`: this binary (`self`) as the launcher.
std::vector<std::string> launcher_argv(const std::string& self, uint64_t warm_mib,
                                       const std::vector<std::string>& command);

// The launcher's body: warms, then execs command[0] (a path) with `command`. Returns only when
// the exec failed, with the shell's 127 after saying why on stderr.
int launch(uint64_t warm_mib, const std::vector<std::string>& command);

}  // namespace mmreplay::tools
