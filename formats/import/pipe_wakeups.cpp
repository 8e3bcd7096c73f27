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

// The edge from `from` to `to`, whole calls until the caller cuts it to pieces.
ChannelEdge edge_between(const PipeCall& from, const PipeCall& to) {
  ChannelEdge edge;
  edge.from = from.ref;
  edge.to = to.ref;
  edge.to_slept = to.slept;
  edge.from_cpu = from.end_cpu;
  edge.to_cpu = to.end_cpu;
  return edge;
}

}  // namespace

void PipeWakeups::add(uint64_t file, const PipeCall& call) {
  if (call.slept) ++slept_;
  if (call.len == 0) return;  // end of file, or nothing moved: no order
  Pipe& p = pipes_[file];
  (call.write ? p.writes : p.reads).push_back(call);
}

std::vector<ChannelEdge> PipeWakeups::edges() const {
  std::vector<ChannelEdge> out;
  for (const auto& [file, p] : pipes_) {
    ChannelLimits limits{capacity_, false, 0};
    if (auto it = limits_.find(file); it != limits_.end()) limits = it->second;
    // (3): `from` began before `to` returned.
    auto agrees = [&](const PipeCall& from, const PipeCall& to) {
      return !limits.recorded_order || from.start_ns <= to.end_ns;
    };
    // A read follows the write that put its first byte in (a write longer than the capacity
    // is read while it is still being written; with no capacity, none is), or with pieces the
    // piece of it that holds that byte (4).
    for (const PipeCall& r : p.reads) {
      const PipeCall* w = holding(p.writes, r.offset);
      if (w == nullptr || w->ref.thread == r.ref.thread || !agrees(*w, r)) continue;
      ChannelEdge edge = edge_between(*w, r);
      if (limits.piece != 0) {
        const uint64_t upto = (r.offset - w->offset) / limits.piece * limits.piece + limits.piece;
        if (upto < w->len) edge.from_bytes = upto;
      } else if (limits.capacity != 0 && w->len > limits.capacity) {
        continue;
      }
      out.push_back(edge);
    }
    // A write follows the read that made room for its last byte; with pieces, each piece the
    // read that made room for its own last byte (a piece whose room the previous piece already
    // waited for needs no edge).
    if (limits.capacity == 0) continue;
    for (const PipeCall& w : p.writes) {
      const uint64_t step = limits.piece != 0 ? limits.piece : w.len;
      const PipeCall* last = nullptr;
      for (uint64_t at = 0; at < w.len; at += step) {
        const uint64_t end = w.offset + std::min(at + step, w.len);
        if (end <= limits.capacity) continue;
        const PipeCall* r = holding(p.reads, end - limits.capacity - 1);
        if (r == nullptr || r == last || r->ref.thread == w.ref.thread || !agrees(*r, w)) continue;
        // (4): a read that starts in this piece or later waits for it; it cannot make its room.
        if (limits.piece != 0 && r->offset >= w.offset + at) continue;
        last = r;
        ChannelEdge edge = edge_between(*r, w);
        edge.to_bytes = at;
        out.push_back(edge);
      }
    }
  }
  return out;
}

}  // namespace mmreplay::formats::detail
