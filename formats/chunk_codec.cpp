#include "formats/chunk_codec.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

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

namespace {

using Field = capnp_schema::ColumnField;
constexpr int field_index(Field f) {
  return static_cast<int>(f);
}

// Which earlier address predicts an address of `kind`: accesses (a fault, or a touch of the page
// the fault before it took) follow each other, and so do madvise calls and mapping calls.
constexpr AddrClass addr_class(EventKind kind) {
  switch (kind) {
    case EventKind::kPageFault:
    case EventKind::kTouch:
      return AddrClass::kAccess;
    case EventKind::kMadvise:
    case EventKind::kMadviseVector:
      return AddrClass::kAdvice;
    default:
      return AddrClass::kMapping;
  }
}

constexpr bool is_file_io(EventKind kind) {
  return kind == EventKind::kFileRead || kind == EventKind::kFileWrite;
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
  KindColumns& c = columns_[static_cast<size_t>(e.kind)];
  auto col = [&c](Field f) -> SplitVarintWriter& { return c[field_index(f)]; };
  size_t n = 1;
  // Unsigned: a stream's events come in timestamp order; an out-of-order one wraps and still
  // round-trips.
  n += col(Field::TS_DELTA).put(e.ts_ns - last_ts_);
  last_ts_ = e.ts_ns;
  if (op & kOpHasDuration) n += col(Field::DURATION).put(e.duration_ns);
  if (op & kOpHasFlags) n += col(Field::FLAGS).put(e.flags);
  uint64_t& prev_addr = prev_addr_[static_cast<size_t>(addr_class(e.kind))];
  if (fields & kFieldAddr) {
    n += col(Field::ADDR).put_paged_signed(static_cast<int64_t>(e.addr - prev_addr));
    prev_addr = e.addr;
  }
  if (fields & kFieldLen) n += col(Field::LEN).put_paged(e.len);
  if (fields & kFieldArg0) n += col(Field::ARG0).put(e.arg0);
  if (fields & kFieldArg1) {
    if (is_file_io(e.kind)) {
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

// Format 1.5 and older: one column per field.
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

// The readers of a byKind chunk while it is decoded.
struct KindReaders {
  std::array<SplitVarintReader, kColumnFieldCount> f;
  SplitVarintReader& operator[](Field field) { return f[field_index(field)]; }
};
using ChunkReaders = std::array<KindReaders, kEventKindCount>;

// A byKind chunk decodes in passes rather than with one switch on the kind per event: a trace's
// kinds follow each other near at random (the mixed workload: 55% faults, 25% touches, 10%
// madvise...), and a switch on them mispredicted about every other event. (1) One pass over the op
// bytes reads what every event has (kind, timestamp, duration, flags) and groups the event numbers
// by kind and by chain, each group in event order. (2) One pass per kind reads the kind's own
// columns into its events, addresses and file offsets as the deltas they are stored as; its
// column readers are locals, held in registers. (3) One pass per chain adds those deltas up in
// event order. Every column (one kind's field) is read in event order and every chain is added up
// in event order, so the values are those of a decode in event order.
//
// The chains: one per address class (a kind's addresses are deltas from the class's previous
// address, vector madvise ranges included), and one for file reads and writes (offsets are deltas
// from the end of the previous one). Kinds on none decode alone.
enum class Chain : uint8_t { kAccess, kAdvice, kMapping, kFile, kNone };
inline constexpr int kChainCount = 5;

constexpr Chain chain_of(EventKind kind) {
  if (is_file_io(kind)) return Chain::kFile;
  if ((detail::kFieldsOf[static_cast<size_t>(kind)] & (kFieldAddr | kFieldRanges)) == 0) {
    return Chain::kNone;
  }
  switch (addr_class(kind)) {
    case AddrClass::kAccess:
      return Chain::kAccess;
    case AddrClass::kAdvice:
      return Chain::kAdvice;
    case AddrClass::kMapping:
      return Chain::kMapping;
  }
  return Chain::kNone;
}

constexpr std::array<uint8_t, kEventKindCount> make_chain_table() {
  std::array<uint8_t, kEventKindCount> t{};
  for (int k = 0; k < kEventKindCount; ++k) {
    t[k] = static_cast<uint8_t>(chain_of(static_cast<EventKind>(k)));
  }
  return t;
}
constexpr auto kChainOf = make_chain_table();

// What the chain passes assume of the kinds on each chain.
constexpr bool chains_hold() {
  for (int k = 0; k < kEventKindCount; ++k) {
    const uint8_t fields = detail::kFieldsOf[k];
    switch (static_cast<Chain>(kChainOf[k])) {
      case Chain::kAccess:
      case Chain::kMapping:
        if ((fields & kFieldAddr) == 0 || (fields & kFieldRanges) != 0) return false;
        break;
      case Chain::kAdvice:
        if (((fields & kFieldAddr) != 0) == ((fields & kFieldRanges) != 0)) return false;
        break;
      case Chain::kFile:
        if (fields != (kFieldLen | kFieldArg0 | kFieldArg1)) return false;
        break;
      case Chain::kNone:
        break;
    }
  }
  return true;
}
static_assert(chains_hold(), "a chain pass would skip or misread a field");

// Event numbers grouped by kind, then grouped by chain: scratch of one host thread, reused.
std::vector<uint32_t>& scratch_ids() {
  thread_local std::vector<uint32_t> ids;
  return ids;
}

// Pass (2) for kind kKind. False when a vector madvise's range count cannot be right.
template <EventKind kKind>
bool read_kind(KindReaders& columns, std::span<const uint32_t> ids, Event* events,
               std::vector<Range>* ranges) {
  constexpr uint8_t kFields = detail::kFieldsOf[static_cast<size_t>(kKind)];
  if constexpr (kFields != 0) {
    SplitVarintReader addr = columns[Field::ADDR], len = columns[Field::LEN],
                      arg0 = columns[Field::ARG0], arg1 = columns[Field::ARG1],
                      arg2 = columns[Field::ARG2];
    for (const uint32_t i : ids) {
      Event& e = events[i];
      if constexpr ((kFields & kFieldAddr) != 0) {
        e.addr = static_cast<uint64_t>(addr.get_paged_signed());
      }
      if constexpr ((kFields & kFieldLen) != 0) e.len = len.get_paged();
      if constexpr ((kFields & kFieldArg0) != 0) e.arg0 = arg0.get();
      if constexpr ((kFields & kFieldArg1) != 0) {
        if constexpr (is_file_io(kKind)) {
          e.arg1 = static_cast<uint64_t>(arg1.get_paged_signed());
        } else {
          e.arg1 = arg1.get();
        }
      }
      if constexpr ((kFields & kFieldArg2) != 0) e.arg2 = arg2.get();
      if constexpr ((kFields & kFieldRanges) != 0) {
        const uint64_t n = arg2.get();
        // Every range costs at least one head byte in the addr column: a larger count is a lie.
        if (n > addr.remaining() || n > kMaxVectorRanges) return false;
        e.range_begin = static_cast<uint32_t>(ranges->size());
        e.range_count = static_cast<uint16_t>(n);
        for (uint64_t r = 0; r < n; ++r) {
          const auto delta = static_cast<uint64_t>(addr.get_paged_signed());
          ranges->push_back(Range{delta, len.get_paged()});
        }
      }
    }
    columns[Field::ADDR] = addr;
    columns[Field::LEN] = len;
    columns[Field::ARG0] = arg0;
    columns[Field::ARG1] = arg1;
    columns[Field::ARG2] = arg2;
  }
  return true;
}

// Pass (3) of an address class: each address is the class's previous one plus its delta; a vector
// madvise's ranges follow each other in the advice class.
void add_up_addresses(std::span<const uint32_t> ids, Event* events, std::vector<Range>* ranges) {
  uint64_t prev = 0;
  for (const uint32_t i : ids) {
    Event& e = events[i];
    if ((fields_of(e.kind) & kFieldRanges) == 0) {
      prev += e.addr;
      e.addr = prev;
      continue;
    }
    for (uint32_t r = e.range_begin; r < e.range_begin + e.range_count; ++r) {
      prev += (*ranges)[r].addr;
      (*ranges)[r].addr = prev;
    }
  }
}

// Pass (3) of file reads and writes: each offset is the previous one's end plus its delta.
void add_up_file_offsets(std::span<const uint32_t> ids, Event* events) {
  uint64_t file_end = 0;
  for (const uint32_t i : ids) {
    Event& e = events[i];
    e.arg1 += file_end;
    file_end = e.arg1 + e.len;
  }
}

// Reads the column index into one reader per (kind, field).
Status read_column_index(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset,
                         ChunkReaders* r) {
  std::array<uint8_t, kEventKindCount> seen{};  // bit f: the kind's field f has a column
  VarintReader index = column(chunk.getColumnIndex());
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

// How many events of each kind the op bytes hold. Four tables, so that a run of one kind does not
// make every count wait for the one before it (a load and a store each). Returns the number of
// the first event of an unknown kind, or `count` when there is none.
uint32_t count_kinds(const uint8_t* ops, uint32_t count,
                     std::array<uint32_t, kEventKindCount>* kinds) {
  constexpr int kTables = 4;
  std::array<std::array<uint32_t, kEventKindCount>, kTables> n{};
  uint32_t i = 0;
  bool known = true;
  for (; i + kTables <= count; i += kTables) {
    for (int t = 0; t < kTables; ++t) {
      const uint8_t kind = ops[i + t] & kOpKindMask;
      known &= is_known_kind(kind);
      ++n[t][is_known_kind(kind) ? kind : 0];
    }
    if (!known) break;
  }
  for (; i < count; ++i) {
    const uint8_t kind = ops[i] & kOpKindMask;
    if (!is_known_kind(kind)) break;
    ++n[0][kind];
  }
  if (!known) {  // the block of four that held it
    while (is_known_kind(ops[i] & kOpKindMask)) ++i;
  }
  for (int k = 0; k < kEventKindCount; ++k) (*kinds)[k] = n[0][k] + n[1][k] + n[2][k] + n[3][k];
  return i;
}

// Every column read to its end, none past it, and the timestamps summing to the last one.
Status check_columns_ended(const ChunkReaders& r, uint32_t count, uint64_t now,
                           uint64_t frame_offset, const DecodedChunk* out) {
  for (const KindReaders& k : r) {
    for (const SplitVarintReader& reader : k.f) {
      if (reader.failed() || !reader.at_end()) {
        return corrupt(frame_offset, "column lengths do not match");
      }
    }
  }
  if (count > 0 && now != out->ref.last_ts) return corrupt(frame_offset, "last timestamp differs");
  return Status::ok();
}

// The decode in event order, one switch on the kind per event: faster than the passes when the
// kinds follow a short pattern (runs of one kind, kinds taking turns, as tools/gen's workloads
// write them), since the switch then predicts well and the passes' bookkeeping is all cost.
struct InOrderState {
  ChunkReaders& r;
  std::array<uint64_t, kAddrClassCount> prev_addr{};
  uint64_t file_end = 0;
};

// Reads the fields kind kKind stores. False when a vector madvise's range count cannot be right.
template <EventKind kKind>
inline bool read_in_order(InOrderState& s, Event& e, std::vector<Range>* ranges) {
  constexpr uint8_t kFields = detail::kFieldsOf[static_cast<size_t>(kKind)];
  KindReaders& c = s.r[static_cast<size_t>(kKind)];
  uint64_t& prev_addr = s.prev_addr[static_cast<size_t>(addr_class(kKind))];
  if constexpr ((kFields & kFieldAddr) != 0) {
    prev_addr += static_cast<uint64_t>(c[Field::ADDR].get_paged_signed());
    e.addr = prev_addr;
  }
  if constexpr ((kFields & kFieldLen) != 0) e.len = c[Field::LEN].get_paged();
  if constexpr ((kFields & kFieldArg0) != 0) e.arg0 = c[Field::ARG0].get();
  if constexpr ((kFields & kFieldArg1) != 0) {
    if constexpr (is_file_io(kKind)) {
      e.arg1 = s.file_end + static_cast<uint64_t>(c[Field::ARG1].get_paged_signed());
      s.file_end = e.arg1 + e.len;
    } else {
      e.arg1 = c[Field::ARG1].get();
    }
  }
  if constexpr ((kFields & kFieldArg2) != 0) e.arg2 = c[Field::ARG2].get();
  if constexpr ((kFields & kFieldRanges) != 0) {
    const uint64_t n = c[Field::ARG2].get();
    // Every range costs at least one head byte in the addr column: a larger count is a lie.
    if (n > c[Field::ADDR].remaining() || n > kMaxVectorRanges) return false;
    e.range_begin = static_cast<uint32_t>(ranges->size());
    e.range_count = static_cast<uint16_t>(n);
    for (uint64_t r = 0; r < n; ++r) {
      prev_addr += static_cast<uint64_t>(c[Field::ADDR].get_paged_signed());
      ranges->push_back(Range{prev_addr, c[Field::LEN].get_paged()});
    }
  }
  return true;
}

// False at an event of unknown kind (its number in `*bad`) or a range count that cannot be
// right; `*now` ends at the last timestamp.
bool decode_in_event_order(ChunkReaders& r, const uint8_t* ops, uint32_t count, uint64_t* now,
                           DecodedChunk* out, uint32_t* bad) {
  InOrderState s{r};
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t op = ops[i];
    const uint8_t kind = op & kOpKindMask;
    if (!is_known_kind(kind)) {
      *bad = i;
      return false;
    }
    Event& e = out->events[i];
    e = Event();
    e.kind = static_cast<EventKind>(kind);
    KindReaders& c = r[kind];
    *now += c[Field::TS_DELTA].get();
    e.ts_ns = *now;
    if (op & kOpHasDuration) e.duration_ns = c[Field::DURATION].get();
    if (op & kOpHasFlags) e.flags = static_cast<uint8_t>(c[Field::FLAGS].get());
    bool ok = true;
    switch (e.kind) {
#define MMREPLAY_READ_IN_ORDER(Kind, in, ...)                                             \
  MMREPLAY_OP_IF_TRACE_##in(case EventKind::k##Kind                                       \
                            : ok = read_in_order<EventKind::k##Kind>(s, e, &out->ranges); \
                            break;)
      MMREPLAY_OPS(MMREPLAY_READ_IN_ORDER)
#undef MMREPLAY_READ_IN_ORDER
    }
    if (!ok) return false;
  }
  return true;
}

// Whether the chunk's first events follow a short pattern, so that a switch on the kind predicts
// well: a run of one kind, or kinds taking turns (touch and madvise in tools/gen's tlb_flush1,
// where the passes were 60% slower than the switch). Fewer than 1/kPatternBreaks of the sampled
// events differ in kind from the event 1, 2, 3 or 4 before. The mixed workload's kinds, drawn at
// random, differ on about 62%.
inline constexpr uint32_t kPatternSample = 512;
inline constexpr uint32_t kPatternPeriods = 4;
inline constexpr uint32_t kPatternBreaks = 8;
bool kinds_follow_a_pattern(const uint8_t* ops, uint32_t count) {
  const uint32_t n = std::min(count, kPatternSample);
  for (uint32_t p = 1; p <= kPatternPeriods; ++p) {
    uint32_t differ = 0;
    for (uint32_t i = p; i < n; ++i) differ += (ops[i] & kOpKindMask) != (ops[i - p] & kOpKindMask);
    if (differ * kPatternBreaks < n) return true;
  }
  return false;
}

Status decode_by_kind(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset, DecodedChunk* out) {
  const uint8_t* ops = chunk.getOps().begin();
  const uint32_t count = out->ref.events;
  ChunkReaders r;
  if (Status s = read_column_index(chunk, frame_offset, &r); !s) return s;

  if (kinds_follow_a_pattern(ops, count)) {
    uint64_t now = out->ref.first_ts;
    uint32_t bad = count;
    if (!decode_in_event_order(r, ops, count, &now, out, &bad)) {
      if (bad < count) {
        return corrupt(frame_offset, "event " + std::to_string(bad) + " has unknown kind " +
                                         std::to_string(ops[bad] & kOpKindMask) +
                                         " (written by a newer version?)");
      }
      return corrupt(frame_offset, "range count past the addr column");
    }
    return check_columns_ended(r, count, now, frame_offset, out);
  }
  std::array<uint32_t, kEventKindCount> kind_count;
  if (const uint32_t bad = count_kinds(ops, count, &kind_count); bad < count) {
    return corrupt(frame_offset, "event " + std::to_string(bad) + " has unknown kind " +
                                     std::to_string(ops[bad] & kOpKindMask) +
                                     " (written by a newer version?)");
  }
  // Where each kind's and each chain's event numbers start in the scratch.
  std::array<uint32_t, kEventKindCount> kind_next{};
  std::array<uint32_t, kChainCount> chain_next{};
  uint32_t at = 0;
  for (int k = 0; k < kEventKindCount; ++k) {
    kind_next[k] = at;
    at += kind_count[k];
  }
  for (int k = 0; k < kEventKindCount; ++k) chain_next[kChainOf[k]] += kind_count[k];
  for (uint32_t& next : chain_next) at += std::exchange(next, at);
  const std::array<uint32_t, kChainCount> chain_begin = chain_next;
  std::vector<uint32_t>& scratch = scratch_ids();
  scratch.resize(2 * size_t{count});
  uint32_t* const ids = scratch.data();

  // Pass (1).
  Event* const events = out->events.data();
  uint64_t now = out->ref.first_ts;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t op = ops[i];
    const uint8_t kind = op & kOpKindMask;
    KindReaders& c = r[kind];
    Event& e = events[i];
    e = Event();
    e.kind = static_cast<EventKind>(kind);
    now += c[Field::TS_DELTA].get();
    e.ts_ns = now;
    if (op & kOpHasDuration) e.duration_ns = c[Field::DURATION].get();
    e.flags = static_cast<uint8_t>(c[Field::FLAGS].get_if((op & kOpHasFlags) != 0));
    ids[kind_next[kind]++] = i;
    ids[chain_next[kChainOf[kind]]++] = i;
  }

  // Pass (2).
  for (int k = 0; k < kEventKindCount; ++k) {
    if (kind_count[k] == 0) continue;
    const std::span<const uint32_t> of_kind(ids + kind_next[k] - kind_count[k], kind_count[k]);
    bool ok = true;
    switch (static_cast<EventKind>(k)) {
#define MMREPLAY_READ_KIND(Kind, in, ...)                                        \
  MMREPLAY_OP_IF_TRACE_##in(                                                     \
      case EventKind::k##Kind                                                    \
      : ok = read_kind<EventKind::k##Kind>(r[k], of_kind, events, &out->ranges); \
      break;)
      MMREPLAY_OPS(MMREPLAY_READ_KIND)
#undef MMREPLAY_READ_KIND
    }
    if (!ok) return corrupt(frame_offset, "range count past the addr column");
  }

  // Pass (3).
  auto chain_ids = [&](Chain chain) {
    const auto c = static_cast<size_t>(chain);
    return std::span<const uint32_t>(ids + chain_begin[c], chain_next[c] - chain_begin[c]);
  };
  add_up_addresses(chain_ids(Chain::kAccess), events, &out->ranges);
  add_up_addresses(chain_ids(Chain::kAdvice), events, &out->ranges);
  add_up_addresses(chain_ids(Chain::kMapping), events, &out->ranges);
  add_up_file_offsets(chain_ids(Chain::kFile), events);

  return check_columns_ended(r, count, now, frame_offset, out);
}

}  // namespace

Status decode_chunk(capnp_schema::Chunk::Reader chunk, uint64_t frame_offset, DecodedChunk* out) {
  const uint32_t count = chunk.getCount();
  if (chunk.getOps().size() != count) {
    return corrupt(frame_offset, "count " + std::to_string(count) + " but " +
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
      return decode_by_field(chunk, frame_offset, out);
    case capnp_schema::ChunkEncoding::BY_KIND:
      return decode_by_kind(chunk, frame_offset, out);
  }
  return corrupt(frame_offset, "unknown column encoding " +
                                   std::to_string(static_cast<unsigned>(chunk.getEncoding())) +
                                   " (written by a newer version?)");
}

}  // namespace mmreplay::formats
