#include "formats/trace_stats.h"

#include <algorithm>
#include <numeric>

#include "formats/parallel_decode.h"

namespace mmreplay::formats {
namespace {
// Decoded chunks alive at once while counting: enough to keep two workers busy.
constexpr size_t kStatsChunksInFlight = 8;
}  // namespace

Status compute_stats(const TraceReader& reader, TraceStats* stats) {
  *stats = TraceStats();
  stats->file_bytes = reader.file_size();
  stats->per_stream.assign(reader.meta().threads.size(), 0);
  std::vector<uint32_t> ids(reader.chunks().size());
  std::iota(ids.begin(), ids.end(), 0u);
  bool any = false;
  return decode_in_order(reader, ids, kStatsChunksInFlight, [&](const DecodedChunk& chunk) {
    for (const Event& e : chunk.events) {
      ++stats->per_kind[static_cast<size_t>(e.kind)];
      if (e.has_duration()) ++stats->with_duration;
    }
    stats->vector_ranges += chunk.ranges.size();
    stats->events += chunk.events.size();
    stats->per_stream[chunk.ref.stream] += chunk.events.size();
    if (!chunk.events.empty()) {
      stats->first_ts = any ? std::min(stats->first_ts, chunk.ref.first_ts) : chunk.ref.first_ts;
      stats->last_ts = any ? std::max(stats->last_ts, chunk.ref.last_ts) : chunk.ref.last_ts;
      any = true;
    }
    return true;
  });
}

}  // namespace mmreplay::formats
