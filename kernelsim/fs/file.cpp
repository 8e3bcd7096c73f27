#include "kernelsim/fs/file.h"

#include <cassert>

namespace mmreplay::kernelsim {

void FileTable::set(uint32_t file, FileSpec spec) {
  assert(file != 0);
  if (file >= specs_.size()) {
    specs_.resize(file + 1);
    inodes_.resize(file + 1);
  }
  specs_[file] = spec;
  inodes_[file] = Inode{.i_size = spec.created ? 0 : spec.size_bytes};
}

FileTable::Inode* FileTable::inode(uint32_t file) {
  if (file >= specs_.size()) return nullptr;  // unlisted: no size known
  const FileType t = specs_[file].type;
  if (t != FileType::kRegular && t != FileType::kUnknown) return nullptr;
  return &inodes_[file];
}

void FileTable::write_ended_at(uint32_t file, uint64_t end) {
  Inode* i = inode(file);
  if (i == nullptr || end <= i->i_size) return;
  i->i_size = end;
  i->size_changed = true;
}

void FileTable::truncated_to(uint32_t file, uint64_t size) {
  Inode* i = inode(file);
  if (i == nullptr || size == i->i_size) return;
  i->i_size = size;
  i->size_changed = true;
}

bool FileTable::take_size_change(uint32_t file) {
  Inode* i = inode(file);
  if (i == nullptr || !i->size_changed) return false;
  i->size_changed = false;
  return true;
}

const FileSpec& FileTable::get(uint32_t file) const {
  static const FileSpec kUnlisted{};
  return file < specs_.size() ? specs_[file] : kUnlisted;
}

}  // namespace mmreplay::kernelsim
