// What swap this machine has, from /proc/swaps. `record` stores its size (format 1.0's
// RecorderInfo::swap_bytes, which record left at 0 before) and its kind (format 1.13,
// RecorderInfo::swap_device), so a recording replays with the swap it was made under; calibrate
// measures zram's costs when zram is what the kernel swaps to.
//
// /proc/swaps lists each active swap area (mm/swapfile.c swap_show()): its path, type (partition
// or file), size and use in KiB, and priority. The kernel fills the highest-priority area first
// (a zram device is usually set above a disk's, as zram-generator and Android do), so the model's
// one device takes the kind of the highest-priority area and the size of them all. A zram
// device's reads are synchronous (SWP_SYNCHRONOUS_IO) and swap-ins on it skip the swap cache
// since 4.15; anything else is a block device (kernelsim/mm/swapfile.h SwapDevice).

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mmreplay::tools {

struct HostSwap {
  uint64_t bytes = 0;  // all areas together; 0 = no swap
  std::string device;  // "zram", "block", or "" when there is no swap
};

// /proc/swaps' text (its header line first) read as above. Lines that do not parse are skipped.
HostSwap parse_proc_swaps(std::string_view text);

// This machine's /proc/swaps; no swap when it cannot be read.
HostSwap host_swap(const std::string& path = "/proc/swaps");

}  // namespace mmreplay::tools
