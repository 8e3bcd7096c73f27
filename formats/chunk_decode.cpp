// decode_chunk: checks what every chunk holds and hands it to the decoder of its encoding
// (chunk_decoders.h); for a byKind chunk, the one that suits how its kinds follow each other.

#include <algorithm>
#include <string>

#include "formats/chunk_codec.h"
#include "formats/chunk_decoders.h"

namespace mmreplay::formats {
namespace {

// Whether the chunk's first events follow a short pattern, so that a switch on the kind predicts
// well: a run of one kind, or kinds taking turns (touch and madvise in tools/gen's tlb_flush1,
// where the passes were 60% slower than the switch). Fewer than 1/kPatternBreaks of the sampled
// events differ in kind from the event 1, 2, 3 or 4 before. The mixed workload's kinds, drawn at
// random, differ on about 62%, cma-bh's on about 47% (the passes 0.55-0.60 ms, the switch 0.72).
// jemalloc-purge's runs of touches with a madvise between them differ on 7-17%: at 1/8, a third
// of its chunks took the passes, whose bookkeeping costs more there than the switch's misses
// (BM_DecodeGenerated/0: 8.77 ms median with 1/8, 8.46 all by the switch, 8.72 all by the passes;
// interleaved, load 12); that is what made it slower after the passes came.
inline constexpr uint32_t kPatternSample = 512;
inline constexpr uint32_t kPatternPeriods = 4;
inline constexpr uint32_t kPatternBreaks = 4;
bool kinds_follow_a_pattern(const uint8_t* ops, uint32_t count) {
  const uint32_t n = std::min(count, kPatternSample);
  for (uint32_t p = 1; p <= kPatternPeriods; ++p) {
    uint32_t differ = 0;
    for (uint32_t i = p; i < n; ++i) {
      differ += (ops[i] & chunk::kOpKindMask) != (ops[i - p] & chunk::kOpKindMask);
    }
    if (differ * kPatternBreaks < n) return true;
  }
  return false;
}

Status decode_by_kind(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset, DecodedChunk* out) {
  const uint8_t* ops = chunk.getOps().begin();
  chunk::ChunkReaders r;
  if (Status s = chunk::read_column_index(chunk, frame_offset, &r); !s) return s;
  if (kinds_follow_a_pattern(ops, out->ref.events)) {
    return chunk::decode_in_event_order(r, ops, frame_offset, out);
  }
  return chunk::decode_in_kind_passes(r, ops, frame_offset, out);
}

}  // namespace

Status decode_chunk(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset, DecodedChunk* out) {
  const uint32_t count = chunk.getCount();
  if (chunk.getOps().size() != count) {
    return chunk::corrupt(frame_offset, "count " + std::to_string(count) + " but " +
                                            std::to_string(chunk.getOps().size()) + " op bytes");
  }
  out->ref.stream = chunk.getStream();
  out->ref.seq = chunk.getSeq();
  out->ref.first_ts = chunk.getFirstTs();
  out->ref.last_ts = chunk.getLastTs();
  out->ref.events = count;
  out->events.resize(count);
  out->ranges.clear();
  switch (chunk.getEncoding()) {
    case capnp_schema::ChunkEncoding::BY_FIELD:
      return chunk::decode_by_field(chunk, frame_offset, out);
    case capnp_schema::ChunkEncoding::BY_KIND:
      return decode_by_kind(chunk, frame_offset, out);
  }
  return chunk::corrupt(frame_offset,
                        "unknown column encoding " +
                            std::to_string(static_cast<unsigned>(chunk.getEncoding())) +
                            " (written by a newer version?)");
}

}  // namespace mmreplay::formats
