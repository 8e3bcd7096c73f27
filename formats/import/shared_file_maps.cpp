#include "formats/import/shared_file_maps.h"

#include <iterator>

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
  std::vector<uint64_t> out;
  for (const auto& [file, ranges] : by_file_) {
    if (ranges.intersects(start, end)) out.push_back(file);
  }
  return out;
}

}  // namespace mmreplay::formats
