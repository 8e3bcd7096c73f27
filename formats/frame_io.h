// zstd framing of Cap'n Proto messages, the index frame and the footer, and the mapped input file.
//
// File layout:
//   [zstd frame: Frame{header}] [zstd frame: Frame{chunk}] ...
//   [skippable frame: magic 0x184D2A5E, u32 payload size, payload = Index message + Footer]
// The footer is the last kFooterBytes of the file (little-endian):
//   u64 index message bytes | u32 CRC-32 of the index message | u16 major | u16 minor | u64 magic
// so a reader finds the index from the end, as zstd's seekable format does, and zstdcat still
// reads the file as one valid zstd stream.

#pragma once

#include <capnp/message.h>
#include <zstd.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace mmreplay::formats {

inline constexpr uint32_t kZstdFrameMagic = 0xFD2FB528u;
inline constexpr uint32_t kSkippableMagicFirst = 0x184D2A50u;  // 16 skippable magics
inline constexpr uint32_t kSkippableMagicMask = 0xFFFFFFF0u;
inline constexpr uint32_t kIndexFrameMagic = 0x184D2A5Eu;        // the one this format uses
inline constexpr uint64_t kFooterMagic = 0x3158444952544D4Dull;  // "MMTRIDX1" read little-endian
inline constexpr size_t kFooterBytes = 24;
inline constexpr size_t kSkippableHeaderBytes = 8;

struct Footer {
  uint64_t index_bytes = 0;
  uint32_t index_crc = 0;
  uint16_t major = 0;
  uint16_t minor = 0;
};

uint32_t crc32(std::span<const uint8_t> bytes);
void encode_footer(const Footer& footer, uint8_t out[kFooterBytes]);
// False when the magic does not match.
bool decode_footer(const uint8_t in[kFooterBytes], Footer* footer);

uint32_t load_le32(const uint8_t* p);
void store_le32(uint8_t* p, uint32_t v);

// Compresses Cap'n Proto messages into single zstd frames with content checksums.
class FrameCompressor {
 public:
  explicit FrameCompressor(int level);
  ~FrameCompressor();
  FrameCompressor(const FrameCompressor&) = delete;
  FrameCompressor& operator=(const FrameCompressor&) = delete;

  // Replaces `out` with one zstd frame holding the flat (unpacked) message. Each of `regions`
  // (byte strings inside the message, e.g. a chunk's columns) of at least kMinBlockBytes gets
  // zstd blocks of its own, so zstd codes it with its own literal and sequence tables; smaller
  // ones share a block with their neighbours. Regions are used only when the message is one
  // segment (size its first segment to hold it); the frame is valid either way.
  Status compress(capnp::MessageBuilder& message, std::string* out,
                  std::span<const std::span<const uint8_t>> regions = {});

  // Below this a region's own zstd block costs more (block header, tables) than it saves: on the
  // mixed workload 64 gave 0.05 bytes/event less than no threshold and 0.03 less than 256.
  static constexpr size_t kMinBlockBytes = 64;
  // Shortest match zstd looks for, at every level. In columns of varints a repeat of 3-5 bytes
  // is mostly chance and costs more as a match than as Huffman-coded literals: on the mixed
  // workload 6 gave 2.99 bytes/event at level 9 against 3.04 with the level's own (5), and 2.93
  // against 2.99 at level 19 (3); recorded programs moved by -0.02 to +0.08 bytes/event.
  static constexpr int kMinMatch = 6;

 private:
  Status stream(const uint8_t* data, size_t size, ZSTD_EndDirective mode, std::string* out,
                size_t* pos);
  ZSTD_CCtx* cctx_;
};

// Word-aligned storage for a flat Cap'n Proto message. (capnp::word itself is not copyable, which
// std::vector needs under some standard libraries, so the words are held as uint64_t.)
using WordBuffer = std::vector<uint64_t>;
static_assert(sizeof(uint64_t) == sizeof(capnp::word));

// The buffer as the Cap'n Proto reader takes it.
inline kj::ArrayPtr<const capnp::word> as_words(const WordBuffer& buffer) {
  return kj::arrayPtr(reinterpret_cast<const capnp::word*>(buffer.data()), buffer.size());
}

// Decompresses one zstd frame into word-aligned storage for a Cap'n Proto reader. Refuses frames
// whose content is larger than `max_bytes` before allocating, and anything that is not a whole
// number of words. Errors name `frame_offset`.
Status decompress_frame(std::span<const uint8_t> frame, uint64_t frame_offset, uint64_t max_bytes,
                        WordBuffer* out);

// Cap'n Proto reader limits for a message of `words` words: the traversal limit is a small
// multiple of the message size (a hostile message cannot make traversal amplify without bound)
// and nesting is capped well above what the schema needs.
capnp::ReaderOptions reader_options_for(size_t words);

// A read-only memory map of a whole file (falls back to reading it when mapping fails).
class MappedFile {
 public:
  static Status open(const std::string& path, MappedFile* out);
  // Holds `bytes` in memory instead of mapping a file (fuzzing, tests, pipes).
  static MappedFile from_bytes(std::vector<uint8_t> bytes);
  MappedFile() = default;
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  void release();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::vector<uint8_t> fallback_;
};

}  // namespace mmreplay::formats
