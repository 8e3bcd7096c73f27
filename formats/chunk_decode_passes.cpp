// A byKind chunk decoded in passes rather than with one switch on the kind per event
// (chunk_decode_in_order.cpp): a trace's kinds follow each other near at random (the mixed
// workload: 55% faults, 25% touches, 10% madvise...), and a switch on them mispredicted about
// every other event. (1) One pass over the op bytes reads what every event has (kind, timestamp,
// duration, flags) and groups the event numbers by kind and by chain, each group in event order.
// (2) One pass per kind reads the kind's own columns into its events, addresses and file offsets
// as the deltas they are stored as; its column readers are locals, held in registers. (3) One pass
// per chain adds those deltas up in event order. Every column (one kind's field) is read in event
// order and every chain is added up in event order, so the values are those of a decode in event
// order.

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

}  // namespace

Status decode_in_kind_passes(ChunkReaders& r, const uint8_t* ops, uint64_t frame_offset,
                             DecodedChunk* out) {
  const uint32_t count = out->ref.events;
  std::array<uint32_t, kEventKindCount> kind_count;
  if (const uint32_t bad = count_kinds(ops, count, &kind_count); bad < count) {
    return unknown_kind(frame_offset, bad, ops[bad]);
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

  return check_columns_ended(r, count, now, frame_offset, *out);
}

}  // namespace mmreplay::formats::chunk
