// ChunkEncoder: one thread's events into the byKind columns of a chunk (format 1.6,
// formats/chunk_codec.h).

#include <cstring>

#include "formats/chunk_codec.h"
#include "formats/chunk_layout.h"

namespace mmreplay::formats {
namespace {

using chunk::Field;
using chunk::field_index;

capnp::Data::Reader as_data(const VarintWriter& w) {
  return capnp::Data::Reader(reinterpret_cast<const capnp::byte*>(w.bytes().data()), w.size());
}

}  // namespace

void ChunkEncoder::append(const Event& e, std::span<const Range> ranges) {
  if (count_ == 0) {
    first_ts_ = e.ts_ns;
    last_ts_ = e.ts_ns;
  }
  const uint8_t fields = fields_of(e.kind);
  uint8_t op = static_cast<uint8_t>(e.kind);
  if (e.flags != 0) op |= chunk::kOpHasFlags;
  if (e.has_duration()) op |= chunk::kOpHasDuration;
  ops_.put_byte(op);
  KindColumns& c = columns_[static_cast<size_t>(e.kind)];
  auto col = [&c](Field f) -> SplitVarintWriter& { return c[field_index(f)]; };
  size_t n = 1;
  // Unsigned: a stream's events come in timestamp order; an out-of-order one wraps and still
  // round-trips.
  n += col(Field::TS_DELTA).put(e.ts_ns - last_ts_);
  last_ts_ = e.ts_ns;
  if (op & chunk::kOpHasDuration) n += col(Field::DURATION).put(e.duration_ns);
  if (op & chunk::kOpHasFlags) n += col(Field::FLAGS).put(e.flags);
  uint64_t& prev_addr = prev_addr_[static_cast<size_t>(chunk::addr_class(e.kind))];
  if (fields & kFieldAddr) {
    n += col(Field::ADDR).put_paged_signed(static_cast<int64_t>(e.addr - prev_addr));
    prev_addr = e.addr;
  }
  if (fields & kFieldLen) n += col(Field::LEN).put_paged(e.len);
  if (fields & kFieldArg0) n += col(Field::ARG0).put(e.arg0);
  if (fields & kFieldArg1) {
    if (chunk::is_file_io(e.kind)) {
      n += col(Field::ARG1).put_paged_signed(static_cast<int64_t>(e.arg1 - file_end_));
      file_end_ = e.arg1 + e.len;
    } else {
      n += col(Field::ARG1).put(e.arg1);
    }
  }
  if (fields & kFieldArg2) n += col(Field::ARG2).put(e.arg2);
  if (fields & kFieldRanges) {
    n += col(Field::ARG2).put(ranges.size());
    for (const Range& r : ranges) {
      n += col(Field::ADDR).put_paged_signed(static_cast<int64_t>(r.addr - prev_addr));
      prev_addr = r.addr;
      n += col(Field::LEN).put_paged(r.len);
    }
  }
  bytes_ += n;
  ++count_;
}

void ChunkEncoder::build(capnp_schema::Chunk::Builder chunk, uint32_t stream, uint64_t seq,
                         std::vector<std::span<const uint8_t>>* regions) const {
  chunk.setStream(stream);
  chunk.setSeq(seq);
  chunk.setFirstTs(first_ts_);
  chunk.setLastTs(last_ts_);
  chunk.setCount(count_);
  chunk.setEncoding(capnp_schema::ChunkEncoding::BY_KIND);
  chunk.setOps(as_data(ops_));
  // Field-major: the columns of one field (all timestamp gaps, all addresses...) lie side by side,
  // so small ones that share a zstd block resemble each other.
  VarintWriter index;
  size_t total = 0;
  for (int f = 0; f < kColumnFieldCount; ++f) {
    for (size_t k = 0; k < columns_.size(); ++k) {
      const SplitVarintWriter& w = columns_[k][f];
      if (w.empty()) continue;
      index.put(k);
      index.put(static_cast<uint64_t>(f));
      index.put(w.head().size());
      index.put(w.tail().size());
      total += w.head().size() + w.tail().size();
    }
  }
  chunk.setColumnIndex(as_data(index));
  capnp::Data::Builder bytes = chunk.initColumnBytes(static_cast<unsigned>(total));
  uint8_t* p = bytes.begin();
  auto copy = [&p, regions](const std::string& s) {
    std::memcpy(p, s.data(), s.size());
    if (regions != nullptr && !s.empty()) regions->push_back({p, s.size()});
    p += s.size();
  };
  if (regions != nullptr) regions->push_back({chunk.getOps().begin(), chunk.getOps().size()});
  for (int f = 0; f < kColumnFieldCount; ++f) {
    for (const KindColumns& c : columns_) {
      copy(c[f].head());
      copy(c[f].tail());
    }
  }
}

void ChunkEncoder::reset() {
  ops_.clear();
  for (KindColumns& c : columns_) {
    for (SplitVarintWriter& w : c) w.clear();
  }
  bytes_ = 0;
  count_ = 0;
  first_ts_ = last_ts_ = file_end_ = 0;
  prev_addr_.fill(0);
}

}  // namespace mmreplay::formats
