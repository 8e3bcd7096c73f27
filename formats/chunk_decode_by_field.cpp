// Chunks of format 1.5 and older (Chunk.encoding = byField): one column per field, zigzag
// timestamp deltas, one address chain for every kind.

#include <string>

#include "formats/chunk_decoders.h"

namespace mmreplay::formats::chunk {
namespace {

VarintReader column(capnp::Data::Reader d) {
  return VarintReader(d.begin(), d.size());
}

// The column readers of one chunk while it is decoded.
struct Columns {
  VarintReader ts, duration, flags, addr, len, arg0, arg1, arg2;
  uint64_t prev_addr = 0;
};

// Reads the fields a kind stores. One instantiation per kind, chosen by one switch per event, so
// the decoder takes one (well-predicted) indirect branch per event instead of one per field.
template <uint8_t kFields>
inline void read_fields(Columns& c, Event& e) {
  if constexpr ((kFields & kFieldAddr) != 0) {
    c.prev_addr += static_cast<uint64_t>(c.addr.get_paged_signed());
    e.addr = c.prev_addr;
  }
  if constexpr ((kFields & kFieldLen) != 0) e.len = c.len.get_paged();
  if constexpr ((kFields & kFieldArg0) != 0) e.arg0 = c.arg0.get();
  if constexpr ((kFields & kFieldArg1) != 0) e.arg1 = c.arg1.get();
  if constexpr ((kFields & kFieldArg2) != 0) e.arg2 = c.arg2.get();
}

template <EventKind kKind>
inline void read_kind(Columns& c, Event& e) {
  read_fields<detail::kFieldsOf[static_cast<size_t>(kKind)]>(c, e);
}

// The ranges of a vector madvise: count in arg2, ranges in the addr and len columns.
bool read_ranges(Columns& c, Event& e, std::vector<Range>* ranges) {
  const uint64_t n = c.arg2.get();
  // Every range costs at least one byte in the addr column: a larger count is a lie.
  if (n > c.addr.remaining() || n > kMaxVectorRanges) return false;
  e.range_begin = static_cast<uint32_t>(ranges->size());
  e.range_count = static_cast<uint16_t>(n);
  for (uint64_t r = 0; r < n; ++r) {
    c.prev_addr += static_cast<uint64_t>(c.addr.get_paged_signed());
    ranges->push_back(Range{c.prev_addr, c.len.get_paged()});
  }
  return true;
}

}  // namespace

Status decode_by_field(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset,
                       DecodedChunk* out) {
  const capnp::Data::Reader ops = chunk.getOps();
  const uint32_t count = out->ref.events;

  Columns c{column(chunk.getTsDelta()), column(chunk.getDuration()), column(chunk.getFlags()),
            column(chunk.getAddr()),    column(chunk.getLen()),      column(chunk.getArg0()),
            column(chunk.getArg1()),    column(chunk.getArg2())};
  uint64_t now = out->ref.first_ts;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t op = ops[i];
    Event& e = out->events[i];
    e = Event();
    e.kind = static_cast<EventKind>(op & kOpKindMask);
    now += static_cast<uint64_t>(c.ts.get_signed());
    e.ts_ns = now;
    if (op & kOpHasDuration) e.duration_ns = c.duration.get();
    if (op & kOpHasFlags) e.flags = static_cast<uint8_t>(c.flags.get());
    using K = EventKind;
    switch (e.kind) {
      case K::kThreadStart:
        read_kind<K::kThreadStart>(c, e);
        break;
      case K::kThreadExit:
        read_kind<K::kThreadExit>(c, e);
        break;
      case K::kMmCreate:
        read_kind<K::kMmCreate>(c, e);
        break;
      case K::kMmExit:
        read_kind<K::kMmExit>(c, e);
        break;
      case K::kMmap:
        read_kind<K::kMmap>(c, e);
        break;
      case K::kMunmap:
        read_kind<K::kMunmap>(c, e);
        break;
      case K::kMprotect:
        read_kind<K::kMprotect>(c, e);
        break;
      case K::kMremap:
        read_kind<K::kMremap>(c, e);
        break;
      case K::kBrk:
        read_kind<K::kBrk>(c, e);
        break;
      case K::kMadvise:
        read_kind<K::kMadvise>(c, e);
        break;
      case K::kMadviseVector:
        read_kind<K::kMadviseVector>(c, e);
        if (!read_ranges(c, e, &out->ranges)) {
          return corrupt(frame_offset, "range count past the addr column");
        }
        break;
      case K::kPageFault:
        read_kind<K::kPageFault>(c, e);
        break;
      case K::kTouch:
        read_kind<K::kTouch>(c, e);
        break;
      case K::kFileRead:
        read_kind<K::kFileRead>(c, e);
        break;
      case K::kFileWrite:
        read_kind<K::kFileWrite>(c, e);
        break;
      case K::kFsync:
        read_kind<K::kFsync>(c, e);
        break;
      case K::kContigAlloc:
        read_kind<K::kContigAlloc>(c, e);
        break;
      case K::kContigFree:
        read_kind<K::kContigFree>(c, e);
        break;
      case K::kObservation:
        read_kind<K::kObservation>(c, e);
        break;
      case K::kBlock:
        read_kind<K::kBlock>(c, e);
        break;
      case K::kClone:
        read_kind<K::kClone>(c, e);
        break;
      case K::kWaitChild:
        read_kind<K::kWaitChild>(c, e);
        break;
      case K::kFutexWake:
        read_kind<K::kFutexWake>(c, e);
        break;
      case K::kFutexWait:
        read_kind<K::kFutexWait>(c, e);
        break;
      case K::kFileTruncate:
        read_kind<K::kFileTruncate>(c, e);
        break;
      default:
        return unknown_kind(frame_offset, i, op);
    }
  }
  for (const VarintReader* r :
       {&c.ts, &c.duration, &c.flags, &c.addr, &c.len, &c.arg0, &c.arg1, &c.arg2}) {
    if (r->failed() || !r->at_end()) return corrupt(frame_offset, "column lengths do not match");
  }
  if (count > 0 && now != out->ref.last_ts) return corrupt(frame_offset, "last timestamp differs");
  return Status::ok();
}

}  // namespace mmreplay::formats::chunk
