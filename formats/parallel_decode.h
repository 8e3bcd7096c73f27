// Decoding many chunks of one trace on TBB workers, delivered in order.
//
// The chunks named by `ids` are decompressed and decoded in parallel; `sink` sees them one at a
// time, in the order of `ids`, on one thread at a time. At most `max_in_flight` decoded chunks
// exist at once, so memory is bounded by max_in_flight x chunk size whatever the trace length.
// The sink returns false to stop early. The first decode error stops the pipeline and is returned.

#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "common/status.h"
#include "formats/trace_reader.h"

namespace mmreplay::formats {

Status decode_in_order(const TraceReader& reader, std::span<const uint32_t> ids,
                       size_t max_in_flight, const std::function<bool(const DecodedChunk&)>& sink);

}  // namespace mmreplay::formats
