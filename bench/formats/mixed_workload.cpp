#include "bench/formats/mixed_workload.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace mmreplay::bench {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kRegion = 64ull << 20;  // each thread's arena

uint64_t next(uint64_t* s) {  // splitmix64
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void check(const Status& s) {
  if (!s) {
    std::fprintf(stderr, "bench: %s\n", s.message().c_str());
    std::exit(1);
  }
}

}  // namespace

MixStats write_mixed_trace(const std::string& path, uint32_t threads, uint64_t events_per_thread,
                           const formats::WriterOptions& options) {
  using namespace formats;
  TraceMeta meta;
  meta.recorder.tool = "trace_io_bench";
  for (uint32_t t = 0; t < threads; ++t) meta.threads.push_back({100 + t, 1, "bench"});
  Status status;
  auto writer = TraceWriter::create(path, meta, options, &status);
  check(status);
  std::vector<uint64_t> rng(threads), ts(threads), cursor(threads), emitted(threads, 0);
  for (uint32_t t = 0; t < threads; ++t) {
    rng[t] = t + 1;
    ts[t] = 1000000 * t;
    cursor[t] = 0;
  }
  std::vector<Range> ranges;
  bool more = true;
  while (more) {
    more = false;
    for (uint32_t t = 0; t < threads; ++t) {
      // A burst of one thread's events, as a per-CPU recorder buffer would hand them over.
      for (int k = 0; k < 64 && emitted[t] < events_per_thread; ++k, ++emitted[t]) {
        uint64_t* r = &rng[t];
        const uint64_t base = 0x7f0000000000ull + t * (kRegion * 4);
        ts[t] += 500 + next(r) % 3000;
        const uint64_t roll = next(r) % 100;
        Event e;
        ranges.clear();
        if (roll < 55) {
          cursor[t] = (cursor[t] + 1 + next(r) % 3) % (kRegion / kPage);
          e = ev::page_fault(ts[t], base + cursor[t] * kPage, next(r) % 4 != 0);
        } else if (roll < 80) {
          e = ev::touch(ts[t], base + cursor[t] * kPage, (1 + next(r) % 16) * kPage, true, kPage);
        } else if (roll < 90) {
          e = ev::madvise(ts[t], base + (next(r) % 4096) * kPage, (1 + next(r) % 8) * kPage,
                          kMadvDontNeed);
        } else if (roll < 93) {
          e = ev::madvise_vector(ts[t], kMadvDontNeed);
          for (int i = 0; i < 8; ++i) {
            ranges.push_back({base + (next(r) % 4096) * kPage, (1 + next(r) % 4) * kPage});
          }
        } else if (roll < 96) {
          e = ev::mmap(ts[t], base + (next(r) % 64) * (1ull << 21), 1ull << 21, 3, 0x22);
        } else if (roll < 98) {
          e = ev::munmap(ts[t], base + (next(r) % 64) * (1ull << 21), 1ull << 21);
        } else {
          e = ev::file_read(ts[t], 1, (next(r) % 1024) * kPage, kPage);
        }
        check(writer->append(t, e, ranges));
      }
      more = more || emitted[t] < events_per_thread;
    }
  }
  check(writer->close());
  return MixStats{writer->events_written(), writer->bytes_written()};
}

}  // namespace mmreplay::bench
