// RewrittenStream: one trace thread's events as the model sees them after the policy's trace
// rewrites (trace_rewrite_knobs.h), each with the closed-loop think time before it. It sits between
// the thread's EventStream and its TraceOpSource; with no rewrite it passes every event through
// unchanged.
//
// Think time is read from the recorded events (formats::ThinkClock) before they are rewritten, so
// the recorder's per-event cost comes out of the recorded gaps exactly as without rewrites, and a
// rewrite only moves user time, never makes or loses it:
//   - batched calls: the think times of every merged call (and of observations between them) sum
//     before the vector call; observations met inside a batch follow the vector call;
//   - split calls: the vector call's think time goes before the first madvise, none between.
// Open-loop timing reads timestamps instead: a vector call made of a batch carries its last call's
// timestamp (all the user time between the calls has passed by then); a split call's madvises
// carry the vector call's.
//
// Invariants: (1) the output depends only on this thread's events and the rewrites, so a run is
// identical on any --threads; (2) the sum of think_ns() over the output equals the ThinkClock's
// sum over the recorded events; (3) a batched vector call holds 1..N ranges of consecutive
// same-advice madvise calls, in trace order, with no other program event between them.

#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "formats/event.h"
#include "formats/think_time.h"
#include "replay/event_stream.h"
#include "replay/trace_rewrite_knobs.h"

namespace mmreplay::replay {

// What the rewrites did to one thread, for the run's counters.
struct RewriteTally {
  uint64_t advice_rewritten = 0;    // purging calls whose advice purge_advice changed
  uint64_t calls_batched = 0;       // madvise calls merged into vector calls by madvise_batch=N
  uint64_t vector_calls_made = 0;   // vector calls those made
  uint64_t vector_calls_split = 0;  // vector calls madvise_batch=split replayed per range
};

class RewrittenStream {
 public:
  // `think_costs`: closed-loop timing's costs (GapCosts::from(header)); nullopt under open-loop
  // timing, where think_ns() is always 0 and nothing is tallied in *gaps. `gaps` and `tally` are
  // not owned and must outlive the stream.
  RewrittenStream(EventStream stream, const TraceRewrites& rewrites,
                  std::optional<formats::GapCosts> think_costs, formats::GapTally* gaps,
                  RewriteTally* tally);

  // Advances to the next rewritten event; false at the end or on a decode error (status()).
  bool next();
  const formats::Event& event() const { return cur_.event; }
  std::span<const formats::Range> ranges() const { return cur_.ranges; }
  // The user time before event() under closed-loop timing.
  uint64_t think_ns() const { return cur_.think_ns; }
  const Status& status() const { return stream_.status(); }

 private:
  struct Item {
    formats::Event event;
    std::vector<formats::Range> ranges;  // kMadviseVector only; event.range_begin unused
    uint64_t think_ns = 0;
  };
  // The next recorded event with its think time and purge_advice applied.
  bool read(Item* item);
  // The next event to rewrite: the one a batch stopped at, else read().
  bool take(Item* item);
  // madvise_batch=N: `first` and the calls that join it become one vector call in out_.
  void batch(Item first);
  // madvise_batch=split: one madvise per range of `vector` in out_.
  void split(const Item& vector);

  EventStream stream_;
  TraceRewrites rewrites_;
  std::optional<formats::ThinkClock> think_;
  formats::GapTally* gaps_;
  RewriteTally* tally_;
  std::optional<Item> lookahead_;  // read by a batch that ended before it
  std::deque<Item> out_;           // rewritten events not yet returned
  Item cur_;
};

}  // namespace mmreplay::replay
