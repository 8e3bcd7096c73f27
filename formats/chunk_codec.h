// Columnar encoding of one thread's events into a Chunk, and its decoding.
//
// Encoding (format 1.6, Chunk.encoding = byKind; trace.capnp): per event, in order, the op byte
// (kind | has-flags << 6 | has-duration << 7) in `ops`, then into the columns of the event's own
// kind: the timestamp delta (unsigned), duration and flags when the op byte says so, and only the
// fields the kind stores (event.cpp). Addresses are paged zigzag deltas from the previous address
// of the kind's address class (a fault follows the previous fault or touch, a madvise the previous
// advice, an mmap the previous mapping call); file offsets are deltas from the end of the previous
// file read or write, so a sequential read stores 0; the rest are plain varints. A vector madvise
// stores its range count in arg2 and its ranges in its addr/len columns. Every column's varints
// are split into a head (first bytes) and a tail (the rest).
//
// Why: one column per kind and field holds values of one distribution (a fault's gap and a
// madvise's gap differ; a touch's address repeats the fault before it, which the kind already
// says), and with its head and tail apart each byte string is near one distribution too. The
// writer gives every column of some size zstd blocks of its own (frame_io.h), so each gets its
// own Huffman table. Which columns a chunk has, and their lengths, is a small index of varints.
// Measured on the mixed workload at level 9 (bench/formats BM_Write/9): 4.53 bytes/event by
// field, 3.04 by kind, 2.99 with zstd's minimum match at 6; a single zstd block for the whole
// chunk instead of one per column gave 3.62. Predicting each timestamp gap from the thread's
// previous gap (their difference) cost more on every recorded program and was dropped.
//
// Chunks of format 1.5 and older (encoding = byField, one column per field, zigzag timestamp
// deltas, one address chain) still decode.

#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "formats/event.h"
#include "formats/trace.capnp.h"
#include "formats/trace_reader.h"
#include "formats/varint.h"

namespace mmreplay::formats {

// The fields of a byKind column (trace.capnp ColumnField, in its order).
inline constexpr int kColumnFieldCount = 8;

// Which earlier address predicts a kind's address (byKind chunks). Part of the format.
enum class AddrClass : uint8_t { kAccess, kAdvice, kMapping };
inline constexpr int kAddrClassCount = 3;

class ChunkEncoder {
 public:
  void append(const Event& event, std::span<const Range> ranges);

  uint32_t count() const { return count_; }
  uint64_t first_ts() const { return first_ts_; }
  uint64_t last_ts() const { return last_ts_; }
  size_t encoded_bytes() const { return bytes_; }
  // Words a Cap'n Proto segment needs to hold build()'s message whole: the bytes, the column
  // index (at most 4 varints of up to 3 bytes per column) and the frame and chunk structs.
  size_t message_words() const {
    constexpr size_t kIndexBytes = kEventKindCount * kColumnFieldCount * 4 * 3;
    constexpr size_t kStructsAndPadding = 32;
    return (bytes_ + kIndexBytes) / sizeof(uint64_t) + kStructsAndPadding;
  }

  // Fills `chunk` with the columns and appends where each byte string landed in the message to
  // `regions` (for FrameCompressor's block boundaries). REQUIRES: count() > 0.
  void build(capnp_schema::Chunk::Builder chunk, uint32_t stream, uint64_t seq,
             std::vector<std::span<const uint8_t>>* regions = nullptr) const;
  void reset();

 private:
  using KindColumns = std::array<SplitVarintWriter, kColumnFieldCount>;
  VarintWriter ops_;
  std::array<KindColumns, kEventKindCount> columns_;
  size_t bytes_ = 0;
  uint32_t count_ = 0;
  uint64_t first_ts_ = 0;
  uint64_t last_ts_ = 0;
  std::array<uint64_t, kAddrClassCount> prev_addr_{};
  uint64_t file_end_ = 0;  // offset + len of the chunk's previous file read or write
};

// Decodes a chunk read from the frame at `frame_offset` (used only in error messages).
// Reuses out's vectors. Never reads outside the columns; inconsistent columns are an error.
Status decode_chunk(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset, DecodedChunk* out);

}  // namespace mmreplay::formats
