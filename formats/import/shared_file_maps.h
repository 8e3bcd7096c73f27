// Which file each shared file mapping of one mm maps, for the calls that name memory and act on
// the file behind it: msync(MS_SYNC) writes the dirty pages of the file of each shared mapping in
// its range (mm/msync.c: vfs_fsync_range() of vma->vm_file). Private mappings, whose writes go to
// anonymous copies, and anonymous memory are not kept.

#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "formats/import/address_ranges.h"

namespace mmreplay::formats {

class SharedFileMaps {
 public:
  // mmap(MAP_SHARED) of `file` over [start, end): it replaces whatever was mapped there.
  void map(uint64_t start, uint64_t end, uint64_t file);
  // munmap, or a new mapping of another kind over [start, end).
  void unmap(uint64_t start, uint64_t end);
  // mremap that moved [start, end) to [to, to + new_len): the file mapped at start goes along
  // (its old range unmapped unless `keep_old`, MREMAP_DONTUNMAP).
  void move(uint64_t start, uint64_t end, uint64_t to, uint64_t new_len, bool keep_old);
  // The files of the shared mappings that [start, end) meets, each once, by file id.
  std::vector<uint64_t> files_in(uint64_t start, uint64_t end) const;

 private:
  // Each file's shared ranges (a program maps few files shared; each range is in one file's set).
  std::map<uint64_t, AddressRanges> by_file_;
};

}  // namespace mmreplay::formats
