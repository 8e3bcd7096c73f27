// Walking the frames of a trace without trusting its index: used to open a trace whose footer is
// missing (recovery) and by `trace-replay check`, which verifies every frame against the index.

#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/trace_meta.h"
#include "formats/trace_reader.h"

namespace mmreplay::formats {

enum class FrameKind { kZstd, kSkippable };

struct FrameSpan {
  uint64_t offset = 0;
  uint64_t size = 0;  // whole frame, headers included
  FrameKind kind = FrameKind::kZstd;
};

// Finds the frame that starts at `offset`: its kind and its size. An error (naming the offset)
// when the bytes there are not a frame or the frame is cut short.
Status find_frame(std::span<const uint8_t> file, uint64_t offset, FrameSpan* frame);

struct ParsedFrame {
  bool is_header = false;
  TraceMeta meta;      // when is_header
  DecodedChunk chunk;  // otherwise
};

// Decompresses and decodes a zstd frame as a Frame message (header or chunk).
// A header naming more than `max_threads` threads is refused (see read_header).
Status parse_frame(std::span<const uint8_t> file, const FrameSpan& frame, uint64_t max_frame_bytes,
                   ParsedFrame* out, uint32_t max_threads = kDefaultMaxThreads);

// Decompresses and decodes a frame that must hold a chunk.
Status decode_chunk_frame(std::span<const uint8_t> file, const FrameSpan& frame,
                          uint64_t max_frame_bytes, DecodedChunk* out);

struct ScanResult {
  std::vector<ChunkRef> chunks;       // every chunk that decoded, in file order
  std::vector<std::string> problems;  // damaged frames and unreadable bytes skipped, with offsets
  uint64_t skipped_bytes = 0;         // bytes of those, in all
  uint64_t lost_offset = 0;           // where the readable part of the file ends
  uint64_t lost_bytes = 0;            // bytes after it that could not be read as frames
  std::string lost_reason;
  // Not ok when the file is not one trace: a second header frame (two traces concatenated) or a
  // chunk whose (stream, seq) repeats one seen before. Names the offset; the scan stops there.
  Status refused;
};

// Scans the frames from `start` to the end of the file. A damaged zstd frame whose extent is
// known is skipped and reported. Unknown bytes, or a frame whose extent cannot be read, are skipped
// up to the next frame that parses and reported; when none follows, they are the lost tail. A
// second header or a repeated (stream, seq) sets `refused` and ends the scan.
ScanResult scan_chunk_frames(std::span<const uint8_t> file, uint64_t start,
                             uint64_t max_frame_bytes);

}  // namespace mmreplay::formats
