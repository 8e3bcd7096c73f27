// AddressSpace: where a generated task's mmap() calls land.
//
// Each task (thread or process) gets its own slice of the user address space and lays its
// mappings out top-down inside it, first fit, reusing holes that munmap() leaves, as the kernel's
// top-down unmapped-area search does (mm/mmap.c: unmapped_area_topdown()). Giving every task its
// own slice keeps the mappings of threads that share an mm disjoint however their events
// interleave at replay, and keeps a task's addresses independent of the order tasks are generated
// in, which is what makes traces reproducible byte for byte.
//
// Invariants: (1) holes never overlap and never touch (neighbours are merged); (2) every address
// handed out lies inside the slice and is aligned as asked.

#pragma once

#include <cstdint>
#include <map>

namespace mmreplay::gen {

// Top of the first slice: where x86-64's mmap_base sits below a default 8 MiB stack and its gap,
// rounded down (47-bit user space ends at 0x7fffffffffff).
inline constexpr uint64_t kMmapTop = 0x7f0000000000ull;
// Bytes of address space per task: 256 GiB, so kMaxTasks (256) slices use 64 TiB of 128 TiB.
inline constexpr uint64_t kTaskSliceBytes = 1ull << 38;

class AddressSpace {
 public:
  // The slice of task number `task` (0-based, global over the trace).
  explicit AddressSpace(uint64_t task);

  // Returns the start of a new mapping of `len` bytes aligned to `align`, or 0 when the slice
  // has no hole big enough. REQUIRES: len > 0; align is a power of two, at least a page.
  uint64_t map(uint64_t len, uint64_t align);

  // Gives a mapping back. REQUIRES: [addr, addr + len) is mapped: one range map() handed out, or
  // several adjacent ones (jemalloc's cached chunks merge and leave with one munmap).
  void unmap(uint64_t addr, uint64_t len);

 private:
  std::map<uint64_t, uint64_t> holes_;  // hole start -> hole end (exclusive)
};

}  // namespace mmreplay::gen
