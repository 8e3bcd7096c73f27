#include "formats/import/address_order.h"

#include <algorithm>
#include <iterator>

namespace mmreplay::formats::detail {

void AddressOrder::use(uint64_t mm, uint64_t start, uint64_t end, ItemRef by) {
  if (start >= end) return;
  auto found = mms_.find(mm);
  if (found == mms_.end()) return;
  Spans& spans = found->second;
  // The first span that may overlap: the one starting at or before `start`, else the next.
  auto it = spans.upper_bound(start);
  if (it != spans.begin() && std::prev(it)->second.end > start) --it;
  for (; it != spans.end() && it->first < end; ++it) {
    Change& c = changes_[it->second.change];
    if (c.by.thread == by.thread) continue;
    if (std::find(c.ordered.begin(), c.ordered.end(), by.thread) != c.ordered.end()) continue;
    c.ordered.push_back(by.thread);  // (3), also when the clone order already implies it
    if (implied_ && implied_(c.by, by.thread)) continue;
    edges_.push_back(OrderEdge{c.by, by});  // (2): the resolver feeds calls in time order
  }
}

void AddressOrder::change(uint64_t mm, uint64_t start, uint64_t end, ItemRef by) {
  if (start >= end) return;
  use(mm, start, end, by);
  Spans& spans = mms_[mm];
  // Cut [start, end) out of the spans there, keeping the pieces outside it (1).
  auto it = spans.upper_bound(start);
  if (it != spans.begin() && std::prev(it)->second.end > start) --it;
  while (it != spans.end() && it->first < end) {
    const uint64_t s = it->first;
    const Span span = it->second;
    it = spans.erase(it);
    if (s < start) spans.emplace(s, Span{start, span.change});
    if (span.end > end) spans.emplace(end, Span{span.end, span.change});
  }
  changes_.push_back(Change{by, {}});
  spans.emplace(start, Span{end, static_cast<uint32_t>(changes_.size() - 1)});
}

}  // namespace mmreplay::formats::detail
