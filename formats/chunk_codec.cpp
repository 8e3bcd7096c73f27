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

VarintReader column(capnp::Data::Reader d) { return VarintReader(d.begin(), d.size()); }

Status corrupt(uint64_t offset, const std::string& what) {
  return Status::error("corrupt chunk in frame at offset " + std::to_string(offset) + ": " + what);
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
    addr_.put_signed(static_cast<int64_t>(e.addr - prev_addr_));
    prev_addr_ = e.addr;
  }
  if (fields & kFieldLen) len_.put(e.len);
  if (fields & kFieldArg0) arg0_.put(e.arg0);
  if (fields & kFieldArg1) arg1_.put(e.arg1);
  if (fields & kFieldArg2) arg2_.put(e.arg2);
  if (fields & kFieldRanges) {
    arg2_.put(ranges.size());
    for (const Range& r : ranges) {
      addr_.put_signed(static_cast<int64_t>(r.addr - prev_addr_));
      prev_addr_ = r.addr;
      len_.put(r.len);
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

  VarintReader ts = column(chunk.getTsDelta()), duration = column(chunk.getDuration()),
               flags = column(chunk.getFlags()), addr = column(chunk.getAddr()),
               len = column(chunk.getLen()), arg0 = column(chunk.getArg0()),
               arg1 = column(chunk.getArg1()), arg2 = column(chunk.getArg2());
  uint64_t now = out->ref.first_ts;
  uint64_t prev_addr = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t op = ops[i];
    const uint8_t raw_kind = op & kOpKindMask;
    if (!is_known_kind(raw_kind)) {
      return corrupt(frame_offset, "event " + std::to_string(i) + " has unknown kind " +
                                       std::to_string(raw_kind) + " (written by a newer version?)");
    }
    Event& e = out->events[i];
    e = Event();
    e.kind = static_cast<EventKind>(raw_kind);
    now += static_cast<uint64_t>(ts.get_signed());
    e.ts_ns = now;
    if (op & kOpHasDuration) e.duration_ns = duration.get();
    if (op & kOpHasFlags) e.flags = static_cast<uint8_t>(flags.get());
    const uint8_t fields = fields_of(e.kind);
    if (fields & kFieldAddr) {
      prev_addr += static_cast<uint64_t>(addr.get_signed());
      e.addr = prev_addr;
    }
    if (fields & kFieldLen) e.len = len.get();
    if (fields & kFieldArg0) e.arg0 = arg0.get();
    if (fields & kFieldArg1) e.arg1 = arg1.get();
    if (fields & kFieldArg2) e.arg2 = arg2.get();
    if (fields & kFieldRanges) {
      const uint64_t n = arg2.get();
      // Every range costs at least one byte in the addr column: a larger count is a lie.
      if (n > addr.remaining() || n > kMaxVectorRanges) {
        return corrupt(frame_offset, "range count past the addr column");
      }
      e.range_begin = static_cast<uint32_t>(out->ranges.size());
      e.range_count = static_cast<uint16_t>(n);
      for (uint64_t r = 0; r < n; ++r) {
        prev_addr += static_cast<uint64_t>(addr.get_signed());
        out->ranges.push_back(Range{prev_addr, len.get()});
      }
    }
  }
  for (const VarintReader* c : {&ts, &duration, &flags, &addr, &len, &arg0, &arg1, &arg2}) {
    if (c->failed() || !c->at_end()) return corrupt(frame_offset, "column lengths do not match");
  }
  if (count > 0 && now != out->ref.last_ts) return corrupt(frame_offset, "last timestamp differs");
  return Status::ok();
}

}  // namespace mmreplay::formats
