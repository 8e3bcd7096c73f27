#include "kernelsim/sim/trace_counters.h"

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
}

}  // namespace mmreplay::kernelsim
