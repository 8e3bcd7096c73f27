#include "formats/chunk_column_readers.h"

namespace mmreplay::formats::chunk {

Status corrupt(uint64_t frame_offset, const std::string& what) {
  return Status::corruption("corrupt chunk in frame at offset " + std::to_string(frame_offset) +
                            ": " + what);
}

Status unknown_kind(uint64_t frame_offset, uint32_t event, uint8_t op) {
  return corrupt(frame_offset, "event " + std::to_string(event) + " has unknown kind " +
                                   std::to_string(op & kOpKindMask) +
                                   " (written by a newer version?)");
}

Status read_column_index(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset,
                         ChunkReaders* r) {
  std::array<uint8_t, kEventKindCount> seen{};  // bit f: the kind's field f has a column
  const capnp::Data::Reader index_bytes = chunk.getColumnIndex();
  VarintReader index(index_bytes.begin(), index_bytes.size());
  const capnp::Data::Reader bytes = chunk.getColumnBytes();
  size_t used = 0;
  while (!index.at_end()) {
    const uint64_t kind = index.get();
    const uint64_t f = index.get();
    const uint64_t head = index.get();
    const uint64_t tail = index.get();
    if (index.failed()) return corrupt(frame_offset, "column index ends inside an entry");
    if (kind >= kEventKindCount || f >= kColumnFieldCount) {
      return corrupt(frame_offset, "column of unknown kind " + std::to_string(kind) + " or field " +
                                       std::to_string(f) + " (written by a newer version?)");
    }
    if (seen[kind] & (1u << f)) return corrupt(frame_offset, "two columns for one field");
    seen[kind] |= static_cast<uint8_t>(1u << f);
    if (head > bytes.size() - used || tail > bytes.size() - used - head) {
      return corrupt(frame_offset, "column past the end of the column bytes");
    }
    const uint8_t* p = bytes.begin() + used;
    (*r)[kind].f[f] = SplitVarintReader(p, head, p + head, tail);
    used += head + tail;
  }
  if (used != bytes.size()) return corrupt(frame_offset, "column bytes that no column holds");
  return Status::ok();
}

Status check_columns_ended(const ChunkReaders& r, uint32_t count, uint64_t now,
                           uint64_t frame_offset, const DecodedChunk& out) {
  for (const KindReaders& k : r) {
    for (const SplitVarintReader& reader : k.f) {
      if (reader.failed() || !reader.at_end()) {
        return corrupt(frame_offset, "column lengths do not match");
      }
    }
  }
  if (count > 0 && now != out.ref.last_ts) return corrupt(frame_offset, "last timestamp differs");
  return Status::ok();
}

}  // namespace mmreplay::formats::chunk
