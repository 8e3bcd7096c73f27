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
    // A read follows the write that put its first byte in.
    for (const PipeCall& r : p.reads) {
      const PipeCall* w = holding(p.writes, r.offset);
      if (w == nullptr || w->len > capacity_ || w->ref.thread == r.ref.thread) continue;
      out.push_back(OrderEdge{w->ref, r.ref});
    }
    // A write follows the read that made room for its last byte.
    for (const PipeCall& w : p.writes) {
      const uint64_t end = w.offset + w.len;
      if (end <= capacity_) continue;
      const PipeCall* r = holding(p.reads, end - capacity_ - 1);
      if (r == nullptr || r->ref.thread == w.ref.thread) continue;
      out.push_back(OrderEdge{r->ref, w.ref});
    }
  }
  return out;
}

}  // namespace mmreplay::formats::detail
