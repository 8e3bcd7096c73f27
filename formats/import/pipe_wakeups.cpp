#include "formats/import/pipe_wakeups.h"

#include <algorithm>

namespace mmreplay::formats::detail {
namespace {

// The call of `calls` (in offset order) that moved byte `byte`, or nullptr.
const PipeCall* holding(const std::vector<PipeCall>& calls, uint64_t byte) {
  auto it = std::upper_bound(calls.begin(), calls.end(), byte,
                             [](uint64_t b, const PipeCall& c) { return b < c.offset; });
  if (it == calls.begin()) return nullptr;
  const PipeCall& c = *--it;
  return byte < c.offset + c.len ? &c : nullptr;
}

}  // namespace

void PipeWakeups::add(uint64_t file, const PipeCall& call) {
  if (call.slept) ++slept_;
  if (call.len == 0) return;  // end of file, or nothing moved: no order
  Pipe& p = pipes_[file];
  (call.write ? p.writes : p.reads).push_back(call);
}

std::vector<OrderEdge> PipeWakeups::edges() const {
  std::vector<OrderEdge> out;
  for (const auto& [file, p] : pipes_) {
    ChannelLimits limits{capacity_, false};
    if (auto it = limits_.find(file); it != limits_.end()) limits = it->second;
    // (3): `from` began before `to` returned.
    auto agrees = [&](const PipeCall& from, const PipeCall& to) {
      return !limits.recorded_order || from.start_ns <= to.end_ns;
    };
    // A read follows the write that put its first byte in (a write longer than the capacity
    // is read while it is still being written; with no capacity, none is).
    for (const PipeCall& r : p.reads) {
      const PipeCall* w = holding(p.writes, r.offset);
      if (w == nullptr || w->ref.thread == r.ref.thread || !agrees(*w, r)) continue;
      if (limits.capacity != 0 && w->len > limits.capacity) continue;
      out.push_back(OrderEdge{w->ref, r.ref});
    }
    // A write follows the read that made room for its last byte.
    if (limits.capacity == 0) continue;
    for (const PipeCall& w : p.writes) {
      const uint64_t end = w.offset + w.len;
      if (end <= limits.capacity) continue;
      const PipeCall* r = holding(p.reads, end - limits.capacity - 1);
      if (r == nullptr || r->ref.thread == w.ref.thread || !agrees(*r, w)) continue;
      out.push_back(OrderEdge{r->ref, w.ref});
    }
  }
  return out;
}

}  // namespace mmreplay::formats::detail
