#include "formats/chunk_codec.h"

#include <string>

namespace mmreplay::formats {
namespace {

constexpr uint8_t kOpKindMask = 0x3f;
constexpr uint8_t kOpHasFlags = 1u << 6;
constexpr uint8_t kOpHasDuration = 1u << 7;

capnp::Data::Reader as_data(const VarintWriter& w) {
  return capnp::Data::Reader(reinterpret_cast<const capnp::byte*>(w.bytes().data()), w.size());
}

VarintReader column(capnp::Data::Reader d) {
  return VarintReader(d.begin(), d.size());
}

Status corrupt(uint64_t offset, const std::string& what) {
  return Status::corruption("corrupt chunk in frame at offset " + std::to_string(offset) + ": " +
                            what);
}

}  // namespace

void ChunkEncoder::append(const Event& e, std::span<const Range> ranges) {
  if (count_ == 0) {
    first_ts_ = e.ts_ns;
    last_ts_ = e.ts_ns;
  }
  const uint8_t fields = fields_of(e.kind);
  uint8_t op = static_cast<uint8_t>(e.kind);
  if (e.flags != 0) op |= kOpHasFlags;
  if (e.has_duration()) op |= kOpHasDuration;
  ops_.put_byte(op);
  ts_.put_signed(static_cast<int64_t>(e.ts_ns - last_ts_));
  last_ts_ = e.ts_ns;
  if (op & kOpHasDuration) duration_.put(e.duration_ns);
  if (op & kOpHasFlags) flags_.put(e.flags);
  if (fields & kFieldAddr) {
    addr_.put_paged_signed(static_cast<int64_t>(e.addr - prev_addr_));
    prev_addr_ = e.addr;
  }
  if (fields & kFieldLen) len_.put_paged(e.len);
  if (fields & kFieldArg0) arg0_.put(e.arg0);
  if (fields & kFieldArg1) arg1_.put(e.arg1);
  if (fields & kFieldArg2) arg2_.put(e.arg2);
  if (fields & kFieldRanges) {
    arg2_.put(ranges.size());
    for (const Range& r : ranges) {
      addr_.put_paged_signed(static_cast<int64_t>(r.addr - prev_addr_));
      prev_addr_ = r.addr;
      len_.put_paged(r.len);
    }
  }
  ++count_;
}

size_t ChunkEncoder::encoded_bytes() const {
  return ops_.size() + ts_.size() + duration_.size() + flags_.size() + addr_.size() + len_.size() +
         arg0_.size() + arg1_.size() + arg2_.size();
}

void ChunkEncoder::build(capnp_schema::Chunk::Builder chunk, uint32_t stream, uint64_t seq) const {
  chunk.setStream(stream);
  chunk.setSeq(seq);
  chunk.setFirstTs(first_ts_);
  chunk.setLastTs(last_ts_);
  chunk.setCount(count_);
  chunk.setOps(as_data(ops_));
  chunk.setTsDelta(as_data(ts_));
  chunk.setDuration(as_data(duration_));
  chunk.setFlags(as_data(flags_));
  chunk.setAddr(as_data(addr_));
  chunk.setLen(as_data(len_));
  chunk.setArg0(as_data(arg0_));
  chunk.setArg1(as_data(arg1_));
  chunk.setArg2(as_data(arg2_));
}

void ChunkEncoder::reset() {
  for (VarintWriter* w : {&ops_, &ts_, &duration_, &flags_, &addr_, &len_, &arg0_, &arg1_, &arg2_})
    w->clear();
  count_ = 0;
  first_ts_ = last_ts_ = prev_addr_ = 0;
}

namespace {

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

Status decode_chunk(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset, DecodedChunk* out) {
  const capnp::Data::Reader ops = chunk.getOps();
  const uint32_t count = chunk.getCount();
  if (ops.size() != count) {
    return corrupt(frame_offset, "count " + std::to_string(count) + " but " +
                                     std::to_string(ops.size()) + " op bytes");
  }
  out->ref.stream = chunk.getStream();
  out->ref.seq = chunk.getSeq();
  out->ref.first_ts = chunk.getFirstTs();
  out->ref.last_ts = chunk.getLastTs();
  out->ref.events = count;
  out->events.resize(count);
  out->ranges.clear();

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
      default:
        return corrupt(frame_offset, "event " + std::to_string(i) + " has unknown kind " +
                                         std::to_string(op & kOpKindMask) +
                                         " (written by a newer version?)");
    }
  }
  for (const VarintReader* r :
       {&c.ts, &c.duration, &c.flags, &c.addr, &c.len, &c.arg0, &c.arg1, &c.arg2}) {
    if (r->failed() || !r->at_end()) return corrupt(frame_offset, "column lengths do not match");
  }
  if (count > 0 && now != out->ref.last_ts) return corrupt(frame_offset, "last timestamp differs");
  return Status::ok();
}

}  // namespace mmreplay::formats
