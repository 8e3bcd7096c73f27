// Top-down first-fit placement; see address_space.h.

#include "tools/gen/address_space.h"

#include <cassert>
#include <iterator>

namespace mmreplay::gen {

AddressSpace::AddressSpace(uint64_t task) {
  uint64_t high = kMmapTop - task * kTaskSliceBytes;
  holes_.emplace(high - kTaskSliceBytes, high);
}

uint64_t AddressSpace::map(uint64_t len, uint64_t align) {
  assert(len > 0 && align != 0 && (align & (align - 1)) == 0);
  for (auto it = holes_.rbegin(); it != holes_.rend(); ++it) {
    uint64_t start = it->first;
    uint64_t end = it->second;
    if (end - start < len) continue;
    uint64_t addr = (end - len) & ~(align - 1);
    if (addr < start) continue;
    // Split the hole around [addr, addr + len).
    auto hole = std::next(it).base();
    holes_.erase(hole);
    if (start < addr) holes_.emplace(start, addr);
    if (addr + len < end) holes_.emplace(addr + len, end);
    return addr;
  }
  return 0;
}

void AddressSpace::unmap(uint64_t addr, uint64_t len) {
  uint64_t start = addr;
  uint64_t end = addr + len;
  auto next = holes_.lower_bound(start);
  if (next != holes_.end() && next->first == end) {
    end = next->second;
    next = holes_.erase(next);
  }
  if (next != holes_.begin()) {
    auto prev = std::prev(next);
    assert(prev->second <= start && "unmap of a range that is not mapped");
    if (prev->second == start) {
      start = prev->first;
      holes_.erase(prev);
    }
  }
  holes_.emplace(start, end);
}

}  // namespace mmreplay::gen
