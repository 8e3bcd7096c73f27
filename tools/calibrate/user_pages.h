// The anonymous memory the calibration probes and the recorded programs work on: one helper, so
// both measure the same kind of mapping (4 KiB pages, THP off).

#pragma once

#include <sys/mman.h>

#include <cstddef>

namespace mmreplay::tools::calibrate {

inline constexpr size_t kUserPage = 4096;

// map_anon_pages()'s two system calls, apart for a caller that times each (real_programs.cpp):
// the mapping (MAP_FAILED when mmap fails), and THP off on it (madvise's result).
inline void* mmap_anon_pages(size_t pages) {
  return ::mmap(nullptr, pages * kUserPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                0);
}
inline int disable_thp(void* p, size_t pages) {
  return ::madvise(p, pages * kUserPage, MADV_NOHUGEPAGE);
}

// An anonymous private mapping of `pages`, THP off (a huge page would hide the 4 KiB faults);
// nullptr when mmap fails.
inline char* map_anon_pages(size_t pages) {
  void* p = mmap_anon_pages(pages);
  if (p == MAP_FAILED) return nullptr;
  disable_thp(p, pages);
  return static_cast<char*>(p);
}

// One write per page: faults each page in (or dirties it again).
inline void write_pages(char* p, size_t pages) {
  for (size_t i = 0; i < pages; ++i) *static_cast<volatile char*>(p + i * kUserPage) = 1;
}

}  // namespace mmreplay::tools::calibrate
