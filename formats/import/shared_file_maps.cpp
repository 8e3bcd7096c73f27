#include "formats/import/shared_file_maps.h"

#include <algorithm>

namespace mmreplay::formats {

void SharedFileMaps::map(uint64_t start, uint64_t end, uint64_t file) {
  if (start >= end) return;
  unmap(start, end);
  by_start_[start] = Mapping{end, file};
}

void SharedFileMaps::unmap(uint64_t start, uint64_t end) {
  if (start >= end) return;
  auto it = by_start_.upper_bound(start);
  if (it != by_start_.begin()) --it;
  while (it != by_start_.end() && it->first < end) {
    const uint64_t s = it->first;
    const Mapping m = it->second;
    if (m.end <= start) {
      ++it;
      continue;
    }
    it = by_start_.erase(it);
    // What lies outside [start, end) stays mapped (a split: __split_vma()).
    if (s < start) by_start_[s] = Mapping{start, m.file};
    if (m.end > end) {
      by_start_[end] = Mapping{m.end, m.file};
      break;
    }
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
  std::vector<uint64_t> out;
  auto it = by_start_.upper_bound(start);
  if (it != by_start_.begin()) --it;
  for (; it != by_start_.end() && it->first < end; ++it) {
    if (it->second.end <= start) continue;
    if (std::find(out.begin(), out.end(), it->second.file) == out.end()) {
      out.push_back(it->second.file);
    }
  }
  return out;
}

}  // namespace mmreplay::formats
