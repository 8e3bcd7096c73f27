#include "kernelsim/trace_counters.h"

#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

int64_t as_value(uint64_t v) {
  return static_cast<int64_t>(v);
}

}  // namespace

void trace_vm_counters(const Simulation& sim, TraceSink& sink) {
  const SimTime at = sim.now();
  const PageAllocator& pa = sim.page_alloc();
  const Zone& z = pa.zone();
  sink.counter("free pages", at,
               {{"free", as_value(pa.nr_free_pages())},
                {"wmark_min", as_value(z.wmark_min)},
                {"wmark_low", as_value(z.wmark_low)},
                {"wmark_high", as_value(z.wmark_high)}});
  const Lruvec& lru = sim.lruvec();
  sink.counter("LRU pages", at,
               {{"inactive_anon", as_value(lru.size(LruList::kInactiveAnon))},
                {"active_anon", as_value(lru.size(LruList::kActiveAnon))},
                {"inactive_file", as_value(lru.size(LruList::kInactiveFile))},
                {"active_file", as_value(lru.size(LruList::kActiveFile))}});
  sink.counter("swap pages", at, {{"used", as_value(sim.swap().inuse())}});
  // The event counters of common/counters.h, one track each under its results key, from the
  // first sample where it is not zero (a counter the run never moves gets no track).
  auto track = [&sink, at](const common::CounterInfo& c, uint64_t v) {
    if (v != 0) sink.counter(c.key, at, {{"count", as_value(v)}});
  };
  for_each_counter(sim.stats().vm, track);
  for_each_counter(sim.cpu_totals(), track);
}

}  // namespace mmreplay::kernelsim
