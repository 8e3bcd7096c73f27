// Columnar encoding of one thread's events into a Chunk, and its decoding.
//
// Encoding (per event, in order): the op byte (kind | has-flags << 6 | has-duration << 7), the
// timestamp delta (zigzag), then only the fields the kind stores (event.cpp): addresses as zigzag
// deltas from the previous address of the chunk, the rest as plain varints. A vector madvise
// stores its range count in arg2 and its ranges in the addr/len columns.
//
// Why columns of varints: values of one field resemble each other (page-aligned addresses a few
// pages apart, small lengths, repeated advice), so zstd finds them; and decoding is a tight loop
// over one-byte values. Measured in bench/formats (bytes/event and events/s).

#pragma once

#include <cstdint>
#include <span>

#include "common/status.h"
#include "formats/event.h"
#include "formats/trace.capnp.h"
#include "formats/trace_reader.h"
#include "formats/varint.h"

namespace mmreplay::formats {

class ChunkEncoder {
 public:
  void append(const Event& event, std::span<const Range> ranges);

  uint32_t count() const { return count_; }
  uint64_t first_ts() const { return first_ts_; }
  uint64_t last_ts() const { return last_ts_; }
  size_t encoded_bytes() const;

  // Fills `chunk` with the columns. REQUIRES: count() > 0.
  void build(capnp_schema::Chunk::Builder chunk, uint32_t stream, uint64_t seq) const;
  void reset();

 private:
  VarintWriter ops_, ts_, duration_, flags_, addr_, len_, arg0_, arg1_, arg2_;
  uint32_t count_ = 0;
  uint64_t first_ts_ = 0;
  uint64_t last_ts_ = 0;
  uint64_t prev_addr_ = 0;
};

// Decodes a chunk read from the frame at `frame_offset` (used only in error messages).
// Reuses out's vectors. Never reads outside the columns; inconsistent columns are an error.
Status decode_chunk(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset, DecodedChunk* out);

}  // namespace mmreplay::formats
