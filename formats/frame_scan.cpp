#include "formats/frame_scan.h"

#include <capnp/serialize.h>
#include <kj/exception.h>
#include <zstd.h>

#include <map>
#include <utility>

#include "formats/chunk_codec.h"
#include "formats/frame_io.h"
#include "formats/header_codec.h"

namespace mmreplay::formats {
namespace {

std::string where(uint64_t offset) {
  return "offset " + std::to_string(offset);
}

// Scratch for decompressed frames, one per host thread, reused across calls.
WordBuffer& scratch_words() {
  thread_local WordBuffer words;
  return words;
}

}  // namespace

Status find_frame(std::span<const uint8_t> file, uint64_t offset, FrameSpan* frame) {
  const uint64_t remaining = offset < file.size() ? file.size() - offset : 0;
  if (remaining < 4) return Status::corruption(where(offset) + ": frame cut short (no magic)");
  const uint8_t* p = file.data() + offset;
  const uint32_t magic = load_le32(p);
  frame->offset = offset;
  if ((magic & kSkippableMagicMask) == kSkippableMagicFirst) {
    if (remaining < kSkippableHeaderBytes) {
      return Status::corruption(where(offset) + ": skippable frame cut short");
    }
    const uint64_t size = kSkippableHeaderBytes + load_le32(p + 4);
    if (size > remaining) return Status::corruption(where(offset) + ": skippable frame cut short");
    frame->size = size;
    frame->kind = FrameKind::kSkippable;
    return Status::ok();
  }
  if (magic != kZstdFrameMagic) return Status::corruption(where(offset) + ": not a zstd frame");
  const size_t size = ZSTD_findFrameCompressedSize(p, remaining);
  if (ZSTD_isError(size)) {
    return Status::corruption(where(offset) + ": zstd frame is cut short or damaged (" +
                              ZSTD_getErrorName(size) + ")");
  }
  frame->size = size;
  frame->kind = FrameKind::kZstd;
  return Status::ok();
}

// Decompresses `frame` and hands its Frame root to `use`, turning a malformed message (a kj
// exception from the reader's bounds and limit checks) into an error naming the offset.
template <typename Use>
Status with_frame_root(std::span<const uint8_t> file, const FrameSpan& frame,
                       uint64_t max_frame_bytes, Use use) {
  WordBuffer& words = scratch_words();
  if (Status s = decompress_frame(file.subspan(frame.offset, frame.size), frame.offset,
                                  max_frame_bytes, &words);
      !s) {
    return s;
  }
  try {
    capnp::FlatArrayMessageReader message(as_words(words), reader_options_for(words.size()));
    return use(message.getRoot<capnp_schema::Frame>());
  } catch (const kj::Exception& e) {
    return Status::corruption("frame at " + where(frame.offset) +
                              ": malformed Cap'n Proto message: " + e.getDescription().cStr());
  }
}

Status parse_frame(std::span<const uint8_t> file, const FrameSpan& frame, uint64_t max_frame_bytes,
                   ParsedFrame* out, uint32_t max_threads) {
  return with_frame_root(file, frame, max_frame_bytes, [&](capnp_schema::Frame::Reader root) {
    switch (root.which()) {
      case capnp_schema::Frame::HEADER:
        out->is_header = true;
        return read_header(root.getHeader(), "frame at " + where(frame.offset), &out->meta,
                           max_threads);
      case capnp_schema::Frame::CHUNK:
        out->is_header = false;
        return decode_chunk(root.getChunk(), frame.offset, &out->chunk);
    }
    return Status::corruption("frame at " + where(frame.offset) + ": unknown frame type");
  });
}

Status decode_chunk_frame(std::span<const uint8_t> file, const FrameSpan& frame,
                          uint64_t max_frame_bytes, DecodedChunk* out) {
  return with_frame_root(file, frame, max_frame_bytes, [&](capnp_schema::Frame::Reader root) {
    if (root.which() != capnp_schema::Frame::CHUNK) {
      return Status::corruption("frame at " + where(frame.offset) + ": expected a chunk");
    }
    return decode_chunk(root.getChunk(), frame.offset, out);
  });
}

namespace {

// The offset of the next frame that parses, searching from `from`: a skippable frame whose
// extent fits, or a zstd frame that decompresses (its content checksum holds) and decodes. A magic
// number that turns up inside compressed bytes fails those checks and the search goes on.
// Returns file.size() when no frame follows.
uint64_t next_readable_frame(std::span<const uint8_t> file, uint64_t from,
                             uint64_t max_frame_bytes) {
  ParsedFrame parsed;
  for (uint64_t at = from; at + 4 <= file.size(); ++at) {
    const uint32_t magic = load_le32(file.data() + at);
    const bool skippable = (magic & kSkippableMagicMask) == kSkippableMagicFirst;
    if (magic != kZstdFrameMagic && !skippable) continue;
    FrameSpan frame;
    if (!find_frame(file, at, &frame)) continue;
    if (skippable || parse_frame(file, frame, max_frame_bytes, &parsed)) return at;
  }
  return file.size();
}

}  // namespace

ScanResult scan_chunk_frames(std::span<const uint8_t> file, uint64_t start,
                             uint64_t max_frame_bytes) {
  ScanResult result;
  uint64_t offset = start;
  ParsedFrame parsed;
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> first_at;  // (stream, seq) -> frame offset
  while (offset < file.size()) {
    FrameSpan frame;
    Status damage = find_frame(file, offset, &frame);
    if (damage && frame.kind == FrameKind::kZstd) {
      damage = parse_frame(file, frame, max_frame_bytes, &parsed);
      if (damage && parsed.is_header) {
        result.refused = Status::corruption(
            where(offset) + ": a second header frame (two traces in one file?); refusing the file");
        break;
      }
      if (damage) {
        ChunkRef ref = parsed.chunk.ref;
        ref.offset = frame.offset;
        ref.size = frame.size;
        const auto [seen, fresh] = first_at.try_emplace({ref.stream, ref.seq}, ref.offset);
        if (!fresh) {
          result.refused =
              Status::corruption(where(offset) + ": chunk of stream " + std::to_string(ref.stream) +
                                 " seq " + std::to_string(ref.seq) + " repeats the chunk at " +
                                 where(seen->second) + " (a duplicated chunk); refusing the file");
          break;
        }
        result.chunks.push_back(ref);
      }
    }
    if (damage) {
      offset += frame.size;
      continue;
    }
    // Bytes that are not a frame, a frame whose extent cannot be read, or one that does not
    // decode: resume at the next frame that parses. A damaged size field may make a frame look
    // longer than it is, so the search starts right after the damaged frame's first byte rather
    // than after its apparent end: one damaged frame costs only its own chunk.
    const uint64_t next = next_readable_frame(file, offset + 1, max_frame_bytes);
    if (next == file.size()) {
      result.lost_offset = offset;
      result.lost_bytes = file.size() - offset;
      result.lost_reason = damage.message();
      break;
    }
    result.skipped_bytes += next - offset;
    result.problems.push_back("skipped " + std::to_string(next - offset) + " bytes at " +
                              where(offset) + " (" + damage.message() +
                              "); the next frame starts at " + where(next));
    offset = next;
  }
  if (result.lost_bytes == 0 && result.refused.is_ok()) result.lost_offset = file.size();
  return result;
}

}  // namespace mmreplay::formats
