#include "formats/trace_hash.h"

#include <cstdio>

#include "formats/frame_io.h"
#include "formats/frame_scan.h"

namespace mmreplay::formats {
namespace {

// FNV-1a, 64-bit (the offset basis and prime of the FNV specification).
constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;
// The content checksum closes a zstd frame: its last 4 bytes when Content_Checksum_flag (bit 2
// of the Frame_Header_Descriptor, the byte after the magic number) is set (RFC 8878 3.1.1.1.1).
constexpr uint64_t kContentChecksumBytes = 4;
constexpr size_t kFrameHeaderDescriptorOffset = 4;
constexpr uint8_t kContentChecksumFlag = 1u << 2;

class Fnv1a {
 public:
  void mix(uint64_t value) {
    for (int i = 0; i < 8; ++i) {
      hash_ = (hash_ ^ ((value >> (8 * i)) & 0xff)) * kFnvPrime;
    }
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = kFnvOffsetBasis;
};

// The frame's content checksum, or a CRC of its bytes when it has none.
uint64_t frame_digest(std::span<const uint8_t> file, uint64_t offset, uint64_t size) {
  const auto frame = file.subspan(offset, size);
  if (size > kFrameHeaderDescriptorOffset + kContentChecksumBytes &&
      load_le32(frame.data()) == kZstdFrameMagic &&
      (frame[kFrameHeaderDescriptorOffset] & kContentChecksumFlag) != 0) {
    return load_le32(frame.data() + size - kContentChecksumBytes);
  }
  return crc32(frame);
}

}  // namespace

std::string trace_content_hash(const TraceReader& reader) {
  const auto file = reader.bytes();
  Fnv1a hash;
  FrameSpan header;
  if (find_frame(file, 0, &header)) hash.mix(frame_digest(file, header.offset, header.size));
  const auto& chunks = reader.chunks();
  for (uint32_t stream = 0; stream < reader.meta().threads.size(); ++stream) {
    for (uint32_t id : reader.chunks_of_stream(stream)) {
      const ChunkRef& c = chunks[id];
      hash.mix(stream);
      hash.mix(c.seq);
      hash.mix(c.events);
      hash.mix(frame_digest(file, c.offset, c.size));
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash.value()));
  return text;
}

}  // namespace mmreplay::formats
