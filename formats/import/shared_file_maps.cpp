#include "formats/import/shared_file_maps.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace mmreplay::formats {

void SharedFileMaps::map(uint64_t start, uint64_t end, uint64_t file) {
  if (start >= end) return;
  unmap(start, end);
  by_file_[file].add(start, end);
}

void SharedFileMaps::unmap(uint64_t start, uint64_t end) {
  if (start >= end) return;
  for (auto it = by_file_.begin(); it != by_file_.end();) {
    it->second.remove(start, end);
    it = it->second.size() == 0 ? by_file_.erase(it) : std::next(it);
  }
}

void SharedFileMaps::move(uint64_t start, uint64_t end, uint64_t to, uint64_t new_len,
                          bool keep_old) {
  const std::vector<uint64_t> files = files_in(start, end);
  if (!keep_old) unmap(start, end);
  if (files.empty()) {
    unmap(to, to + new_len);  // an anonymous or private range moved over it
    return;
  }
  map(to, to + new_len, files.front());  // mremap moves one vma
}

std::vector<uint64_t> SharedFileMaps::files_in(uint64_t start, uint64_t end) const {
  // (first address met, file), sorted: address order.
  std::vector<std::pair<uint64_t, uint64_t>> met;
  for (const auto& [file, ranges] : by_file_) {
    if (!ranges.intersects(start, end)) continue;
    const std::vector<std::pair<uint64_t, uint64_t>> gaps = ranges.gaps(start, end);
    // The first address of [start, end) in the set: start, or the end of the first gap there.
    const uint64_t first =
        gaps.empty() || gaps.front().first != start ? start : gaps.front().second;
    met.emplace_back(first, file);
  }
  std::sort(met.begin(), met.end());
  std::vector<uint64_t> out;
  for (const auto& m : met) out.push_back(m.second);
  return out;
}

}  // namespace mmreplay::formats
