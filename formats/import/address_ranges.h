// AddressRanges: a set of disjoint half-open address ranges [start, end), as an importer keeps
// the mappings of one address space while it replays the calls of a trace. Adding merges with
// neighbours; removing splits. Each operation is O(log n + ranges touched).

#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace mmreplay::formats {

class AddressRanges {
 public:
  // REQUIRES: start <= end (an empty range is ignored).
  void add(uint64_t start, uint64_t end);
  void remove(uint64_t start, uint64_t end);
  bool contains(uint64_t addr) const;
  // True when any address of [start, end) is in the set.
  bool intersects(uint64_t start, uint64_t end) const;
  // The parts of [start, end) outside the set, in address order, as [start, end) pairs.
  std::vector<std::pair<uint64_t, uint64_t>> gaps(uint64_t start, uint64_t end) const;
  size_t size() const { return ranges_.size(); }
  uint64_t bytes() const;
  const std::map<uint64_t, uint64_t>& ranges() const { return ranges_; }  // start -> end

 private:
  std::map<uint64_t, uint64_t> ranges_;
};

}  // namespace mmreplay::formats
