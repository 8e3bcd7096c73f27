// The user-space side of each operation a generated program performs: the think time that
// separates its events in the trace.
//
// Generators model the program, not the kernel (issue 4): a trace event's timestamp is when the
// program issued the call or began the access, and the gap to the next event is the time the
// program spent in user space. What the kernel then costs (faults, flushes, reclaim, lock waits)
// is the model's job at replay, from a cost profile. These figures are rough orders of magnitude
// for one core of a 2015-era x86 server, the seeds' machines; they only have to keep user time
// realistic next to kernel time, and every one of them can be topped up with --think.
//
//   operation                         cost      reasoning
//   ---------------------------------  --------  ------------------------------------------------
//   syscall argument set-up/return     50 ns    a few loads and the libc wrapper, outside the
//   kernel write a whole page (memset)        250 ns    4 KiB at ~16 GB/s, cache-resident store
//   bandwidth write one byte per page            2 ns      one store and the loop step
//   (will-it-scale loops) read a whole page                  150 ns    4 KiB at ~27 GB/s load
//   bandwidth copy a page (memcpy)               400 ns    a read and a write of 4 KiB search a
//   page (ebizzy)             300 ns    ebizzy's memcmp-based scan of its records malloc fast path
//   (jemalloc)        60 ns     arena lookup, run/bin selection, bookkeeping free fast path
//   (jemalloc)          40 ns     run lookup and dirty accounting realloc (no move) 80 ns
//   size-class check and in-place resize prepare a purge range list         10 ns     per range,
//   filling the iovec for madvisev() file I/O call set-up (dd loop)     200 ns    dd's loop, buffer
//   bookkeeping per block fill a buffer from /dev/zero       150 ns    per page; dd's input side,
//   never a trace event device driver work between CMA     0 ns      the device thread's rate is
//   its own parameter

#pragma once

#include <cstdint>

namespace mmreplay::gen::user_cost {

inline constexpr uint64_t kSyscallNs = 50;
inline constexpr uint64_t kWritePageNs = 250;
inline constexpr uint64_t kWriteBytePerPageNs = 2;
inline constexpr uint64_t kReadPageNs = 150;
inline constexpr uint64_t kCopyPageNs = 400;
inline constexpr uint64_t kSearchPageNs = 300;
inline constexpr uint64_t kMallocNs = 60;
inline constexpr uint64_t kFreeNs = 40;
inline constexpr uint64_t kReallocNs = 80;
inline constexpr uint64_t kPurgeRangeNs = 10;
inline constexpr uint64_t kFileIoCallNs = 200;
inline constexpr uint64_t kDevZeroPageNs = 150;

}  // namespace mmreplay::gen::user_cost
