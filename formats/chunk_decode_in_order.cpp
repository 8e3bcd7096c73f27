// A byKind chunk decoded in event order, one switch on the kind per event: faster than the passes
// (chunk_decode_passes.cpp) when the kinds follow a short pattern (runs of one kind, kinds taking
// turns, as tools/gen's workloads write them), since the switch then predicts well and the
// passes' bookkeeping is all cost.

#include "formats/chunk_decoders.h"

namespace mmreplay::formats::chunk {
namespace {

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

}  // namespace

Status decode_in_event_order(ChunkReaders& r, const uint8_t* ops, uint64_t frame_offset,
                             DecodedChunk* out) {
  const uint32_t count = out->ref.events;
  InOrderState s{r};
  uint64_t now = out->ref.first_ts;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t op = ops[i];
    const uint8_t kind = op & kOpKindMask;
    if (!is_known_kind(kind)) return unknown_kind(frame_offset, i, op);
    Event& e = out->events[i];
    e = Event();
    e.kind = static_cast<EventKind>(kind);
    KindReaders& c = r[kind];
    now += c[Field::TS_DELTA].get();
    e.ts_ns = now;
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
    if (!ok) return corrupt(frame_offset, "range count past the addr column");
  }
  return check_columns_ended(r, count, now, frame_offset, *out);
}

}  // namespace mmreplay::formats::chunk
