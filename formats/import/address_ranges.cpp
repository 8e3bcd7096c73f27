#include "formats/import/address_ranges.h"

#include <algorithm>

namespace mmreplay::formats {

void AddressRanges::add(uint64_t start, uint64_t end) {
  if (start >= end) return;
  auto it = ranges_.upper_bound(start);
  if (it != ranges_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= start) {  // overlaps or touches the range before
      start = prev->first;
      end = std::max(end, prev->second);
      it = ranges_.erase(prev);
    }
  }
  while (it != ranges_.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(start, end);
}

void AddressRanges::remove(uint64_t start, uint64_t end) {
  if (start >= end) return;
  auto it = ranges_.upper_bound(start);
  if (it != ranges_.begin()) --it;
  while (it != ranges_.end() && it->first < end) {
    const uint64_t s = it->first;
    const uint64_t e = it->second;
    if (e <= start) {
      ++it;
      continue;
    }
    it = ranges_.erase(it);
    if (s < start) ranges_.emplace(s, start);
    if (e > end) {
      ranges_.emplace(end, e);
      break;
    }
  }
}

bool AddressRanges::contains(uint64_t addr) const {
  auto it = ranges_.upper_bound(addr);
  if (it == ranges_.begin()) return false;
  --it;
  return addr < it->second;
}

bool AddressRanges::intersects(uint64_t start, uint64_t end) const {
  if (start >= end) return false;
  auto it = ranges_.lower_bound(start);
  if (it != ranges_.end() && it->first < end) return true;
  if (it == ranges_.begin()) return false;
  --it;
  return it->second > start;
}

std::vector<std::pair<uint64_t, uint64_t>> AddressRanges::gaps(uint64_t start, uint64_t end) const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  uint64_t at = start;
  auto it = ranges_.upper_bound(start);  // the first range that starts after `start`
  if (it != ranges_.begin()) at = std::max(at, std::prev(it)->second);
  while (at < end) {
    const uint64_t next = it == ranges_.end() ? end : std::min(end, it->first);
    if (at < next) out.emplace_back(at, next);
    if (it == ranges_.end()) break;
    at = std::max(at, it->second);
    ++it;
  }
  return out;
}

uint64_t AddressRanges::bytes() const {
  uint64_t n = 0;
  for (const auto& [s, e] : ranges_) n += e - s;
  return n;
}

}  // namespace mmreplay::formats
