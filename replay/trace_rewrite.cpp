// Trace rewrites applied per thread as events are read; see trace_rewrite.h.

#include "replay/trace_rewrite.h"

#include <utility>

namespace mmreplay::replay {

using formats::Event;
using formats::EventKind;

namespace {

bool is_purge_advice(uint64_t advice) {
  return advice == formats::kMadvDontNeed || advice == formats::kMadvFree;
}

bool is_madvise_call(const Event& e) {
  return e.kind == EventKind::kMadvise || e.kind == EventKind::kMadviseVector;
}

}  // namespace

RewrittenStream::RewrittenStream(EventStream stream, const TraceRewrites& rewrites,
                                 std::optional<formats::GapCosts> think_costs,
                                 formats::GapTally* gaps, RewriteTally* tally)
    : stream_(std::move(stream)), rewrites_(rewrites), gaps_(gaps), tally_(tally) {
  if (think_costs) think_.emplace(*think_costs);
}

bool RewrittenStream::read(Item* item) {
  if (!stream_.next()) return false;
  item->event = stream_.event();
  // The clock reads the event as recorded: rewriting moves user time, never changes it (2).
  item->think_ns = think_ ? think_->gap_before(item->event, gaps_) : 0;
  item->ranges.clear();
  if (item->event.kind == EventKind::kMadviseVector) {
    const auto ranges = stream_.ranges();
    item->ranges.assign(ranges.begin(), ranges.end());
  }
  Event& e = item->event;
  if (rewrites_.purge_advice != PurgeAdvice::kAsRecorded && is_madvise_call(e) &&
      is_purge_advice(e.arg0)) {
    const uint64_t advice =
        rewrites_.purge_advice == PurgeAdvice::kFree ? formats::kMadvFree : formats::kMadvDontNeed;
    if (e.arg0 != advice) {
      e.arg0 = advice;
      ++tally_->advice_rewritten;
    }
  }
  return true;
}

bool RewrittenStream::take(Item* item) {
  if (lookahead_) {
    *item = std::move(*lookahead_);
    lookahead_.reset();
    return true;
  }
  return read(item);
}

bool RewrittenStream::next() {
  // Without madvise_batch every event is one event: no queue, no lookahead.
  if (rewrites_.madvise_batch == MadviseBatch::kOff) return read(&cur_);
  if (out_.empty()) {
    Item item;
    if (!take(&item)) return false;
    if (rewrites_.madvise_batch == MadviseBatch::kBatch && item.event.kind == EventKind::kMadvise) {
      batch(std::move(item));
    } else if (rewrites_.madvise_batch == MadviseBatch::kSplit &&
               item.event.kind == EventKind::kMadviseVector && !item.ranges.empty()) {
      split(item);
    } else {
      out_.push_back(std::move(item));
    }
  }
  cur_ = std::move(out_.front());
  out_.pop_front();
  return true;
}

void RewrittenStream::batch(Item first) {
  const uint64_t advice = first.event.arg0;
  Item vec;
  vec.think_ns = first.think_ns;
  vec.ranges.push_back({first.event.addr, first.event.len});
  uint64_t last_ts = first.event.ts_ns;
  // Observations are no program action (what the real kernel did, time off the CPU): they do
  // not end a batch, and follow the vector call. Their think time moves before the vector call
  // only when a later call joins, i.e. when it lay between two merged calls.
  std::vector<Item> held;
  while (vec.ranges.size() < rewrites_.batch_ranges) {
    Item next;
    if (!read(&next)) break;
    // A failed call is the program's (formats/event.h kFailedCall): it ends the batch.
    if (next.event.kind == EventKind::kObservation &&
        next.event.arg0 != static_cast<uint64_t>(formats::ObservationKind::kFailedCall)) {
      held.push_back(std::move(next));
      continue;
    }
    if (next.event.kind != EventKind::kMadvise || next.event.arg0 != advice) {
      lookahead_ = std::move(next);  // any other syscall or fault ends the batch (3)
      break;
    }
    for (Item& h : held) vec.think_ns += std::exchange(h.think_ns, 0);
    vec.think_ns += next.think_ns;
    vec.ranges.push_back({next.event.addr, next.event.len});
    last_ts = next.event.ts_ns;
  }
  vec.event = formats::ev::madvise_vector(last_ts, advice);
  vec.event.range_count = static_cast<uint16_t>(vec.ranges.size());
  tally_->calls_batched += vec.ranges.size();
  ++tally_->vector_calls_made;
  out_.push_back(std::move(vec));
  for (Item& h : held) out_.push_back(std::move(h));
}

void RewrittenStream::split(const Item& vector) {
  const Event& v = vector.event;
  bool first = true;
  for (const formats::Range& r : vector.ranges) {
    Item call;
    call.event = formats::ev::madvise(v.ts_ns, r.addr, r.len, v.arg0);
    call.think_ns = first ? vector.think_ns : 0;
    first = false;
    out_.push_back(std::move(call));
  }
  ++tally_->vector_calls_split;
}

}  // namespace mmreplay::replay
