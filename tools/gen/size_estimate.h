// How big a trace `gen` will write, known from the workload's parameters before anything is
// generated, so a typo'd --loops or --scale is refused up front instead of filling the disk
// (issue 15). Each workload counts its own events (Workload::estimate()); this file turns events
// into bytes and words.
//
// The estimate is a guide, not a bound: the trace is zstd-compressed and how well it compresses
// depends on the events, so the gen command also stops a trace that outgrows --max-bytes while
// it is written (WriterSink's limit).

#pragma once

#include <cstdint>
#include <string>

namespace mmreplay::gen {

// Compressed bytes per event of the least regular traces: jemalloc-purge's random heap
// addresses. Measured on `gen jemalloc-purge` (32 threads, 100000 loops): 12150794 bytes /
// 2534887 events = 4.8 at --scale full, 10101487 / 2316259 = 4.4 at --scale tiny; rounded up.
// Workloads whose events repeat (a page-by-page loop, sequential I/O) declare their own figure.
inline constexpr double kIrregularBytesPerEvent = 5.0;

// Compressed bytes per event of a loop that repeats the same few events with a fixed stride:
// `gen tlb_flush1` (8 tasks, a touch + madvise per page of 128 MiB) is 15442 bytes for 524312
// events, 0.024 per event once the header and threads are taken off; doubled, for safety.
inline constexpr double kRepetitiveBytesPerEvent = 0.05;

// What a trace costs besides its events, measured on gen output with few events per thread
// (`trace-replay info`): madvise-vector --scale tiny (1 thread, 5 events) is 652 bytes, almost
// all header; page-fault-scale --scale tiny adds ~250 bytes per thread (its ThreadInfo, its
// file, its first chunk's frame and index entry).
inline constexpr double kTraceHeaderBytes = 700;
inline constexpr double kBytesPerThread = 260;

// A workload's own count, in long double so that --loops 18446744073709551615 times a few
// events per loop neither overflows nor wraps.
struct TraceEstimate {
  long double threads = 0;
  long double events = 0;
  double bytes_per_event = kIrregularBytesPerEvent;
  // The parameter that makes most of the events: the one a refusal tells the user to lower.
  std::string main_param = "--loops";
};

long double estimated_bytes(const TraceEstimate& estimate);

// "about 1.2 GiB (34.5M events)".
std::string describe_estimate(const TraceEstimate& estimate);

// 1536 -> "1.5 KiB"; any size, beyond EiB too (an estimate can be 1e25 bytes).
std::string human_size(long double bytes);

// Helpers for the workloads' formulas: log-uniform mean size, and ceil(a / b) without
// overflow. REQUIRES: b > 0.
long double log_uniform_mean(long double min, long double max);
long double ceil_div(long double a, long double b);

}  // namespace mmreplay::gen
