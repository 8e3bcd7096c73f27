// The will-it-scale style loops that calibrate runs untraced on this machine and that the model
// replays: one list, so the native loop and its generated trace have the same shape (region
// sizes, calls per round, process or thread mode).
//
// A loop is a round repeated; a round does `ops_per_round` operations (faults, pages, calls). Its
// throughput is operations per second summed over the workers; its IPIs are the TLB-shootdown
// interrupts per operation. Each worker is pinned to its own CPU; the ping-pong is two threads on
// one CPU ("1 CPU") or on two.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mmreplay::tools::calibrate {

enum class LoopKind : uint8_t {
  kPageFault1,    // mmap anon, write one byte per page, munmap (per fault)
  kPageFault2,    // the same over a private mapping of a cached file: COW faults (per fault)
  kTlbFlush2,     // per page of 1 MiB: write, madvise(4 KiB, DONTNEED) (per page)
  kMmapMunmap,    // mmap one page, write it, munmap (per round)
  kMadvDontneed,  // write a byte per page of 1 MiB, madvise(1 MiB, DONTNEED) (per page)
  kMadvFree,      // write a byte per page of 1 MiB, madvise(1 MiB, FREE) (per page)
  kReadCached,    // pread of 16 KiB blocks of a 1 MiB cached file (per read)
  kReadPage,      // pread of 4 KiB blocks of it: with kReadCached, per call apart from per page
  kPingPong,      // 1-byte pipe ping-pong between two threads (per round trip)
};

struct ThroughputLoop {
  LoopKind kind;
  std::string name;               // as printed and as gen names its workload where it has one
  std::string op;                 // what one operation is
  bool threads_share_mm = false;  // thread mode (one process); else one process per worker
  uint64_t ops_per_round = 1;
  // The fewest workers at which a worker sleeps by design (0: never): the ping-pong's threads
  // wait for each other (1), mmap-munmap's threads wait for mmap_lock held for write (2). Such a
  // loop's CPU time leaves its waits out, so the CPU clock does not measure it (throughput_fit.h).
  int sleeps_from_workers = 0;
};

// Region and call sizes, shared by the native loops and their model.
inline constexpr uint64_t kLoopPage = 4096;
inline constexpr uint64_t kFaultLoopBytes = 4ull << 20;    // page_fault1/2: 1024 faults per round
inline constexpr uint64_t kTlbLoopBytes = 1ull << 20;      // tlb_flush2.c's MEMSIZE
inline constexpr uint64_t kMmapLoopBytes = kLoopPage;      // one page per mmap
inline constexpr uint64_t kReuseLoopBytes = 1ull << 20;    // the madvise reuse region
inline constexpr uint64_t kReadFileBytes = 1ull << 20;     // the cached file per worker
inline constexpr uint64_t kReadCallBytes = 16ull << 10;    // one pread
inline constexpr uint64_t kReadPageCallBytes = kLoopPage;  // one pread of read-page
// The bytes of one pread of a read loop (0 for the other loops).
uint64_t read_call_bytes(LoopKind k);

const std::vector<ThroughputLoop>& throughput_loops();
const ThroughputLoop* find_throughput_loop(std::string_view name);

}  // namespace mmreplay::tools::calibrate
