// A realistic event mix for the format benchmarks, independent of the generators so the format
// can be measured on its own: per thread, an allocator-like loop of mmap, touches of consecutive
// pages, write faults a few pages apart, madvise(DONTNEED) of freed runs, vector madvise purges,
// occasional munmap and file I/O; timestamps a few microseconds apart with jitter.

#pragma once

#include <cstdint>
#include <string>

#include "formats/trace_writer.h"

namespace mmreplay::bench {

struct MixStats {
  uint64_t events = 0;
  uint64_t file_bytes = 0;
};

// Writes `threads` x `events_per_thread` events to `path`.
MixStats write_mixed_trace(const std::string& path, uint32_t threads, uint64_t events_per_thread,
                           const formats::WriterOptions& options);

}  // namespace mmreplay::bench
