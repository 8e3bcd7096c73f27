// Whole-trace statistics for `trace-replay info`: events per kind and per thread, time span,
// bytes per event. Decodes every chunk (in parallel, see parallel_decode.h).

#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "formats/event.h"
#include "formats/trace_reader.h"

namespace mmreplay::formats {

struct TraceStats {
  uint64_t events = 0;
  std::array<uint64_t, kEventKindCount> per_kind{};
  std::vector<uint64_t> per_stream;  // events per thread (stream id order)
  uint64_t vector_ranges = 0;        // ranges carried by vector madvise events
  uint64_t with_duration = 0;        // events with an observed duration
  uint64_t first_ts = 0;             // earliest timestamp (0 when there are no events)
  uint64_t last_ts = 0;
  uint64_t file_bytes = 0;
  double bytes_per_event() const {
    return events == 0 ? 0.0 : static_cast<double>(file_bytes) / static_cast<double>(events);
  }
};

Status compute_stats(const TraceReader& reader, TraceStats* stats);

}  // namespace mmreplay::formats
