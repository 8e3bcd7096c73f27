// The memory limit a recorded program ran under: the memory cgroup `record` (and so the command
// it starts, perf's child) or the process of `record --pid` is in. record stores it (format
// 1.14, RecorderInfo::memcg_limit_bytes) so that a recording made in a container, a systemd slice
// with MemoryMax= or any limited group replays under the same limit, its page cache charged to it.
//
// /proc/PID/cgroup names the process's group in each hierarchy, one "ID:CONTROLLERS:PATH" line
// each: cgroup v1's memory controller on a line whose controllers include "memory", v2's unified
// hierarchy on the "0::" line. The limit of the group is its memory.limit_in_bytes (v1) or
// memory.max (v2) under the hierarchy's mount; a group is also bound by every ancestor's (v1 with
// use_hierarchy, always in v2), so the limit is the lowest on the path up to the root. v1 writes
// no limit as PAGE_COUNTER_MAX pages (9223372036854771712 bytes with 4 KiB pages), v2 as "max".

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mmreplay::tools {

// A process's memory cgroup, from /proc/PID/cgroup text.
struct CgroupOfProcess {
  std::string v1_memory;  // path in the v1 memory hierarchy ("" when it has no such line)
  std::string v2;         // path in the v2 unified hierarchy ("" when it has no "0::" line)
};

CgroupOfProcess parse_proc_cgroup(std::string_view text);

// A limit file's text (memory.limit_in_bytes or memory.max): bytes, or 0 for no limit ("max", or
// v1's PAGE_COUNTER_MAX) and for text that is not a number.
uint64_t parse_memcg_limit(std::string_view text);

// The lowest memory limit on the path of the process's group (proc_cgroup: its /proc/PID/cgroup)
// up to the root, under the mounts below `sysfs_cgroup` (v1's at memory/, v2's at the top, or at
// unified/ beside v1's controllers); 0 = no limit, or not known.
uint64_t host_memcg_limit(const std::string& proc_cgroup = "/proc/self/cgroup",
                          const std::string& sysfs_cgroup = "/sys/fs/cgroup");

// The lowest memory limit of the cgroup folder `dir` (record --cgroup) and the folders above it
// that hold a limit file (memory.limit_in_bytes, else memory.max): every v1 group has one, and a
// v2 group with the memory controller has one above it up to the root, which has none; 0 = no
// limit.
uint64_t cgroup_dir_memcg_limit(const std::string& dir);

}  // namespace mmreplay::tools
