// A byKind chunk decoded in passes rather than with one switch on the kind per event
// (chunk_decode_in_order.cpp): a trace's kinds follow each other near at random (the mixed
// workload: 55% faults, 25% touches, 10% madvise...), and a switch on them mispredicted about
// every other event. (1) One pass over the op bytes groups the event numbers by kind and by chain,
// each group in event order. (2) One pass per kind reads all of the kind's columns (timestamp gap,
// duration, flags and its own fields) and writes its events whole, with timestamps, addresses and
// file offsets as the deltas they are stored as; its column readers are locals. (3) One pass in
// event order adds up the timestamps, and one per chain adds up its addresses or file offsets.
// Every column (one kind's field) is read in event order and every sum is taken in event order, so
// the values are those of a decode in event order.
//
// Measured on the mixed workload (BM_DecodeColumnsOnly; instructions by callgrind, decode_chunk
// alone): pass (1) once also read every event's timestamp, duration and flags, through the readers
// of its kind (in memory: the kind changes from one event to the next) into an event it had
// cleared, and pass (2) then read each kind's own fields into those events: 173 instructions per
// event. Reading them in pass (2), with the flags read as plain bytes, and pass (1) in quarters:
// 140, and 15.5 ms instead of 19.6 (minimum of 16 runs each, interleaved, load 10).

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "formats/chunk_decoders.h"

namespace mmreplay::formats::chunk {
namespace {

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

// The flags of one kind's events in pass (2) when every value is one byte (the column's tail is
// empty: every file this build writes, flags being below 0x80). The n-th event that has flags (its
// op byte says so) takes the column's n-th byte, read without a branch on whether the event has
// them: which events do is as random as the data (a fault is a write or not). A flagged byte with
// bit 7 set (a varint running past the empty tail) or more flagged events than bytes is corrupt,
// found by finish().
class OneByteFlags {
 public:
  explicit OneByteFlags(const SplitVarintReader& column)
      : bytes_(column.remaining() > 0 ? column.head() : &kNone),
        size_(column.remaining()),
        last_(column.remaining() > 0 ? column.remaining() - 1 : 0) {}

  [[gnu::always_inline]] uint8_t get_if(bool present) {
    const auto b = static_cast<uint8_t>(bytes_[std::min(read_, last_)] & (0u - present));
    high_bits_ |= b;
    read_ += present;
    return b;
  }
  // Advances `column` past the bytes read; false when they cannot be right.
  bool finish(SplitVarintReader* column) const {
    if (read_ > size_ || (high_bits_ & 0x80) != 0) return false;
    column->skip_head(read_);
    return true;
  }

 private:
  static constexpr uint8_t kNone = 0;
  const uint8_t* bytes_;
  size_t size_;
  size_t last_;
  size_t read_ = 0;
  uint8_t high_bits_ = 0;
};

// The flags of pass (2) as varints, for a column with a tail (flags of 0x80 and above).
class VarintFlags {
 public:
  explicit VarintFlags(const SplitVarintReader& column) : column_(column) {}
  [[gnu::always_inline]] uint8_t get_if(bool present) {
    return static_cast<uint8_t>(column_.get_if(present));
  }
  bool finish(SplitVarintReader* column) const {
    *column = column_;
    return true;  // a failed read is the column's own error, found when the columns are checked
  }

 private:
  SplitVarintReader column_;
};

// Pass (2) for kind kKind: its events whole, with the timestamp, address and file offset as
// deltas. Returns what is wrong with its columns, or nullptr.
template <EventKind kKind, typename Flags>
const char* read_kind(KindReaders& columns, const uint8_t* ops, std::span<const uint32_t> ids,
                      Event* events, std::vector<Range>* ranges) {
  constexpr uint8_t kFields = detail::kFieldsOf[static_cast<size_t>(kKind)];
  SplitVarintReader ts = columns[Field::TS_DELTA], duration = columns[Field::DURATION],
                    addr = columns[Field::ADDR], len = columns[Field::LEN],
                    arg0 = columns[Field::ARG0], arg1 = columns[Field::ARG1],
                    arg2 = columns[Field::ARG2];
  Flags flags(columns[Field::FLAGS]);
  for (const uint32_t i : ids) {
    const uint8_t op = ops[i];
    Event e;
    e.kind = kKind;
    e.ts_ns = ts.get();
    if (op & kOpHasDuration) e.duration_ns = duration.get();
    e.flags = flags.get_if((op & kOpHasFlags) != 0);
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
      if (n > addr.remaining() || n > kMaxVectorRanges) return "range count past the addr column";
      e.range_begin = static_cast<uint32_t>(ranges->size());
      e.range_count = static_cast<uint16_t>(n);
      for (uint64_t r = 0; r < n; ++r) {
        const auto delta = static_cast<uint64_t>(addr.get_paged_signed());
        ranges->push_back(Range{delta, len.get_paged()});
      }
    }
    events[i] = e;
  }
  if (!flags.finish(&columns[Field::FLAGS])) return "column lengths do not match";
  columns[Field::TS_DELTA] = ts;
  columns[Field::DURATION] = duration;
  columns[Field::ADDR] = addr;
  columns[Field::LEN] = len;
  columns[Field::ARG0] = arg0;
  columns[Field::ARG1] = arg1;
  columns[Field::ARG2] = arg2;
  return nullptr;
}

template <EventKind kKind>
const char* read_kind(KindReaders& columns, const uint8_t* ops, std::span<const uint32_t> ids,
                      Event* events, std::vector<Range>* ranges) {
  if (columns[Field::FLAGS].tail_empty()) {
    return read_kind<kKind, OneByteFlags>(columns, ops, ids, events, ranges);
  }
  return read_kind<kKind, VarintFlags>(columns, ops, ids, events, ranges);
}

// Pass (3a): each timestamp is the one before plus its gap. Returns the last.
uint64_t add_up_timestamps(uint64_t first_ts, std::span<Event> events) {
  uint64_t now = first_ts;
  for (Event& e : events) {
    now += e.ts_ns;
    e.ts_ns = now;
  }
  return now;
}

// Pass (3b) of the advice class: each address is the class's previous one plus its delta; a vector
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

// Pass (3c) of file reads and writes: each offset is the previous one's end plus its delta.
void add_up_file_offsets(std::span<const uint32_t> ids, Event* events) {
  uint64_t file_end = 0;
  for (const uint32_t i : ids) {
    Event& e = events[i];
    e.arg1 += file_end;
    file_end = e.arg1 + e.len;
  }
}

// Pass (1) goes over the op bytes as four quarters side by side, each with its own next slot per
// kind and per chain, so that an event seldom waits for the slot the event before it stored (one
// table of slots made pass (1) a quarter of the decode on the mixed workload, where the events
// before a fault are faults half the time). The last quarter takes the events left over.
inline constexpr uint32_t kQuarters = 4;
inline constexpr uint32_t kOpKinds = kOpKindMask + 1;  // what an op byte's kind bits can say
using QuarterCounts = std::array<std::array<uint32_t, kOpKinds>, kQuarters>;

// How many events of each kind each quarter holds. Returns the number of the first event of an
// unknown kind, or `count` when there is none.
uint32_t count_kinds(const uint8_t* ops, uint32_t count, QuarterCounts* n) {
  for (auto& quarter : *n) quarter.fill(0);
  const uint32_t q = count / kQuarters;
  for (uint32_t j = 0; j < q; ++j) {
    for (uint32_t t = 0; t < kQuarters; ++t) ++(*n)[t][ops[t * q + j] & kOpKindMask];
  }
  for (uint32_t i = kQuarters * q; i < count; ++i) ++(*n)[kQuarters - 1][ops[i] & kOpKindMask];
  uint32_t unknown = 0;
  for (const auto& quarter : *n) {
    for (uint32_t k = kEventKindCount; k < kOpKinds; ++k) unknown += quarter[k];
  }
  if (unknown == 0) return count;
  uint32_t i = 0;
  while (is_known_kind(ops[i] & kOpKindMask)) ++i;
  return i;
}

// Pass (3b) of the chains without vector madvise: each address is the previous one plus its delta.
void add_up_plain_addresses(std::span<const uint32_t> ids, Event* events) {
  uint64_t prev = 0;
  for (const uint32_t i : ids) {
    prev += events[i].addr;
    events[i].addr = prev;
  }
}

}  // namespace

Status decode_in_kind_passes(ChunkReaders& r, const uint8_t* ops, uint64_t frame_offset,
                             DecodedChunk* out) {
  const uint32_t count = out->ref.events;
  QuarterCounts quarter_count;
  if (const uint32_t bad = count_kinds(ops, count, &quarter_count); bad < count) {
    return unknown_kind(frame_offset, bad, ops[bad]);
  }
  // Where each quarter's events of each kind, and of each chain, go in the scratch: kind by kind,
  // then chain by chain, each in quarter order.
  using KindSlots = std::array<uint32_t, kEventKindCount>;
  using ChainSlots = std::array<uint32_t, kChainCount>;
  std::array<KindSlots, kQuarters> kind_next;
  std::array<ChainSlots, kQuarters> chain_next;
  KindSlots kind_begin;
  ChainSlots chain_begin;
  std::array<ChainSlots, kQuarters> chain_count{};
  for (uint32_t q = 0; q < kQuarters; ++q) {
    for (int k = 0; k < kEventKindCount; ++k) chain_count[q][kChainOf[k]] += quarter_count[q][k];
  }
  uint32_t at = 0;
  for (int k = 0; k < kEventKindCount; ++k) {
    kind_begin[k] = at;
    for (uint32_t q = 0; q < kQuarters; ++q) {
      kind_next[q][k] = at;
      at += quarter_count[q][k];
    }
  }
  for (int c = 0; c < kChainCount; ++c) {
    chain_begin[c] = at;
    for (uint32_t q = 0; q < kQuarters; ++q) {
      chain_next[q][c] = at;
      at += chain_count[q][c];
    }
  }
  std::vector<uint32_t>& scratch = scratch_ids();
  scratch.resize(2 * size_t{count});
  uint32_t* const ids = scratch.data();

  // Pass (1).
  auto place = [&](uint32_t q, uint32_t i) {
    const uint8_t kind = ops[i] & kOpKindMask;
    ids[kind_next[q][kind]++] = i;
    ids[chain_next[q][kChainOf[kind]]++] = i;
  };
  const uint32_t quarter = count / kQuarters;
  for (uint32_t j = 0; j < quarter; ++j) {
    for (uint32_t q = 0; q < kQuarters; ++q) place(q, q * quarter + j);
  }
  for (uint32_t i = kQuarters * quarter; i < count; ++i) place(kQuarters - 1, i);

  // Pass (2).
  Event* const events = out->events.data();
  for (int k = 0; k < kEventKindCount; ++k) {
    // After pass (1), the last quarter's next slot of a kind is where its events end.
    const uint32_t end = kind_next[kQuarters - 1][k];
    if (end == kind_begin[k]) continue;
    const std::span<const uint32_t> of_kind(ids + kind_begin[k], end - kind_begin[k]);
    const char* error = nullptr;
    switch (static_cast<EventKind>(k)) {
#define MMREPLAY_READ_KIND(Kind, in, ...)                                                \
  MMREPLAY_OP_IF_TRACE_##in(                                                             \
      case EventKind::k##Kind                                                            \
      : error = read_kind<EventKind::k##Kind>(r[k], ops, of_kind, events, &out->ranges); \
      break;)
      MMREPLAY_OPS(MMREPLAY_READ_KIND)
#undef MMREPLAY_READ_KIND
    }
    if (error != nullptr) return corrupt(frame_offset, error);
  }

  // Pass (3).
  const uint64_t now = add_up_timestamps(out->ref.first_ts, std::span<Event>(events, count));
  auto chain_ids = [&](Chain chain) {
    const auto c = static_cast<size_t>(chain);
    return std::span<const uint32_t>(ids + chain_begin[c],
                                     chain_next[kQuarters - 1][c] - chain_begin[c]);
  };
  add_up_plain_addresses(chain_ids(Chain::kAccess), events);
  add_up_addresses(chain_ids(Chain::kAdvice), events, &out->ranges);
  add_up_plain_addresses(chain_ids(Chain::kMapping), events);
  add_up_file_offsets(chain_ids(Chain::kFile), events);

  return check_columns_ended(r, count, now, frame_offset, *out);
}

}  // namespace mmreplay::formats::chunk
