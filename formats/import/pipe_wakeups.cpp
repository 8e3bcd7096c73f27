#include "formats/import/pipe_wakeups.h"

#include <algorithm>

namespace mmreplay::formats::detail {

void PipeWakeups::add(uint64_t file, const PipeCall& call) {
  Pipe& p = pipes_[file];
  (call.write ? p.writes : p.reads).push_back(call);
  if (call.slept_from) ++slept_;
}

std::vector<OrderEdge> PipeWakeups::edges() const {
  std::vector<OrderEdge> out;
  for (const auto& [file, p] : pipes_) {
    for (const std::vector<PipeCall>* sleepers : {&p.reads, &p.writes}) {
      const std::vector<PipeCall>& wakers = sleepers == &p.reads ? p.writes : p.reads;
      for (const PipeCall& c : *sleepers) {
        if (!c.slept_from) continue;
        // The last call of the other direction that began before the sleeper was back (1).
        auto it = std::upper_bound(wakers.begin(), wakers.end(), c.slept_until,
                                   [](uint64_t t, const PipeCall& w) { return t < w.ts; });
        while (it != wakers.begin()) {
          const PipeCall& w = *--it;
          if (w.end < *c.slept_from) break;            // over before the sleep began: not it
          if (w.ref.thread == c.ref.thread) continue;  // (2)
          // A waker that slept too woke `c` before its own sleep if `c` was back on its CPU
          // before the waker was: pipe_write() wakes the reader before it waits for room.
          const bool early = w.slept_from && c.slept_until < w.slept_until;
          out.push_back(OrderEdge{w.ref, c.ref, early});
          break;
        }
      }
    }
  }
  return out;
}

}  // namespace mmreplay::formats::detail
