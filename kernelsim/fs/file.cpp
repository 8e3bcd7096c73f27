#include "kernelsim/fs/file.h"

#include <cassert>

namespace mmreplay::kernelsim {

void FileTable::set(uint32_t file, FileSpec spec) {
  assert(file != 0);
  if (file >= specs_.size()) specs_.resize(file + 1);
  specs_[file] = spec;
}

const FileSpec& FileTable::get(uint32_t file) const {
  static const FileSpec kUnlisted{};
  return file < specs_.size() ? specs_[file] : kUnlisted;
}

}  // namespace mmreplay::kernelsim
