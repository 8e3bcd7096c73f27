// The chunk decoders behind decode_chunk (chunk_decode.cpp), one file each:
//   decode_by_field         format 1.5 and older (byField: one column per field);
//   decode_in_event_order   byKind, one switch on the kind per event (kinds in a short pattern);
//   decode_in_kind_passes   byKind, one pass per kind (kinds near random).
// Each fills out->events (sized to the chunk's count by the caller) and out->ranges (cleared by
// the caller), and checks that every column was read to its end.

#pragma once

#include <cstdint>

#include "common/status.h"
#include "formats/chunk_column_readers.h"
#include "formats/trace.capnp.h"
#include "formats/trace_reader.h"

namespace mmreplay::formats::chunk {

Status decode_by_field(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset, DecodedChunk* out);

Status decode_in_event_order(ChunkReaders& r, const uint8_t* ops, uint64_t frame_offset,
                             DecodedChunk* out);

Status decode_in_kind_passes(ChunkReaders& r, const uint8_t* ops, uint64_t frame_offset,
                             DecodedChunk* out);

}  // namespace mmreplay::formats::chunk
