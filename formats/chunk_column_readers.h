// The column readers of a byKind chunk while it is decoded, shared by its two decoders
// (chunk_decode_in_order.cpp, chunk_decode_passes.cpp): the column index read into one reader per
// (kind, field), the check that every column was read to its end, and the decoders' errors.

#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "formats/chunk_layout.h"
#include "formats/trace_reader.h"
#include "formats/varint.h"

namespace mmreplay::formats::chunk {

// The readers of one kind's columns.
struct KindReaders {
  std::array<SplitVarintReader, kColumnFieldCount> f;
  SplitVarintReader& operator[](Field field) { return f[field_index(field)]; }
};
using ChunkReaders = std::array<KindReaders, kEventKindCount>;

// "corrupt chunk in frame at offset N: what".
Status corrupt(uint64_t frame_offset, const std::string& what);
// The error for event `event`, whose op byte holds a kind this build does not know.
Status unknown_kind(uint64_t frame_offset, uint32_t event, uint8_t op);

// Reads the column index into one reader per (kind, field).
Status read_column_index(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset, ChunkReaders* r);

// Every column read to its end, none past it, and the timestamps summing to the last one (`now`).
Status check_columns_ended(const ChunkReaders& r, uint32_t count, uint64_t now,
                           uint64_t frame_offset, const DecodedChunk& out);

}  // namespace mmreplay::formats::chunk
