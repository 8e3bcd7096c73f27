// What `validate --real --pressure` needs from the machine to put a workload under memory
// pressure without touching the rest of it: a memory cgroup with a limit (the workload reclaims
// inside it, as mem_cgroup_charge() -> try_to_free_mem_cgroup_pages() does) and a swap area.
// Both are made for the run and taken down after it; a machine that cannot give them (no root, no
// memory controller, a filesystem swapon refuses) yields a one-line reason and the run is skipped.
// A run killed before its destructors leaves both behind: `swapoff FILE` and `rmdir` the group
// (the group is mmreplay-pressure-PID under the memory hierarchy, the file pressure.swap).

#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace mmreplay::tools::calibrate {

// A memory cgroup of its own under the v1 memory hierarchy (/sys/fs/cgroup/memory) or the v2
// one (/sys/fs/cgroup, with the memory controller enabled there), limited to `limit_bytes`
// (memory.limit_in_bytes / memory.max). Removed by the destructor once its tasks have exited.
class MemcgSandbox {
 public:
  MemcgSandbox() = default;
  MemcgSandbox(const MemcgSandbox&) = delete;
  MemcgSandbox& operator=(const MemcgSandbox&) = delete;
  ~MemcgSandbox();

  // Makes the group; "" when done, else why it could not.
  std::string create(uint64_t limit_bytes);
  // Moves process `pid` (and so the children it forks later) into the group; "" or why not.
  std::string join(pid_t pid) const;
  // Reclaims what the group holds, its swap cache included (memory.force_empty under v1,
  // memory.reclaim under v2); "" or why not.
  std::string reclaim_all() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A swap area for the run: the machine's own when one is active, else a file of `bytes` in
// `dir` (fallocate, mkswap, swapon(2)), switched off and removed by the destructor.
class SwapArea {
 public:
  SwapArea() = default;
  SwapArea(const SwapArea&) = delete;
  SwapArea& operator=(const SwapArea&) = delete;
  ~SwapArea();

  // "" when swap is on, else why it could not be.
  std::string ensure(const std::string& dir, uint64_t bytes);
  // The swap space the machine has now (/proc/swaps), in bytes.
  uint64_t total_bytes() const { return total_bytes_; }
  bool made_here() const { return !file_.empty(); }

 private:
  std::string file_;
  uint64_t total_bytes_ = 0;
};

// Both, for one run: the memcg first, then swap in `dir` when none is active.
struct PressureSandbox {
  MemcgSandbox memcg;
  SwapArea swap;
  // "" when both are ready, else why not.
  std::string set_up(uint64_t limit_bytes, const std::string& dir, uint64_t swap_file_bytes) {
    std::string why = memcg.create(limit_bytes);
    if (why.empty()) why = swap.ensure(dir, swap_file_bytes);
    return why;
  }
};

// A fresh folder under /var/tmp named after `what` (not /tmp: a tmpfs there would hold a swap
// file in the memory it is meant to relieve); "" when it cannot be made.
std::string make_var_tmp_dir(const std::string& what);

// The sum of the Size column of /proc/swaps text (KiB), in bytes.
uint64_t parse_swap_total(const std::string& proc_swaps_text);

}  // namespace mmreplay::tools::calibrate
