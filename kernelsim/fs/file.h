// What each file id of a run points at, and whether its pages are in the page cache at the start.
//
// The replay fills the table from the trace's file table. A file's kind decides its read/write
// path (fs/read_write.h), as the file's f_op does in the kernel: regular files and block devices
// go through the page cache and buffer heads (generic_file_read_iter() / blkdev_read_iter());
// pipes (pipe_read()), sockets (sock_read_iter()), ttys and anon inodes move the bytes with one
// copy and no page cache; char devices such as /dev/null (read_null()/write_null()) move nothing.
// Reads of a regular file take filemap_read() (mm/filemap_read.h, no buffer heads); a file of
// unknown kind (generated traces, traces before kinds, a file id the table does not list: cold)
// and a block device keep the buffer-head walk that the seeds' workloads were validated with.

#pragma once

#include <cstdint>
#include <vector>

namespace mmreplay::kernelsim {

enum class FileType : uint8_t {
  kUnknown,  // no kind recorded: page cache and buffer heads, as before kinds
  kRegular,
  kBlockDevice,
  kSocket,
  kPipe,
  kCharDevice,
  kTty,
  kAnon,
};

struct FileSpec {
  FileType type = FileType::kUnknown;
  bool cached_at_start = false;  // its pages sit in the page cache when the run starts (warm)
  // i_size as the trace knows it (0: unknown): readahead stops at it (mm/readahead.h).
  uint64_t size_bytes = 0;
  // read_ahead_kb of the device behind the file (its bdi), as recorded; -1: not recorded, and
  // the read_ahead_kb knob stands for every device (mm/readahead.h bdi_ra_pages()).
  int32_t read_ahead_kb = -1;
  // The recording made the file (O_CREAT|O_EXCL, O_TRUNC, creat): its i_size starts at 0. Else
  // size_bytes, the furthest the trace reads or writes, stands for its size at the start, so
  // that only truncations change it.
  bool created = false;
};

class FileTable {
 public:
  // REQUIRES: file != 0 (0 is no file).
  void set(uint32_t file, FileSpec spec);
  const FileSpec& get(uint32_t file) const;
  // Regular files, block devices and files of unknown kind: reads and writes go through the
  // page cache.
  bool uses_page_cache(uint32_t file) const {
    const FileType t = get(file).type;
    return t == FileType::kRegular || t == FileType::kBlockDevice || t == FileType::kUnknown;
  }

  // The file's i_size as the run changes it (a listed regular or unknown file; a block device's
  // size is the device's): a write ending at `end` past it extends it (generic_write_end():
  // i_size_write()), a truncation sets it (truncate_setsize()).
  void write_ended_at(uint32_t file, uint64_t end);
  void truncated_to(uint32_t file, uint64_t size);
  // Whether i_size changed since the last call: an fdatasync() then commits the journal, the
  // new size being needed to read the data back (ext4_sync_file(): the inode's datasync
  // transaction); an overwrite in place commits nothing. Clears it.
  bool take_size_change(uint32_t file);

 private:
  struct Inode {
    uint64_t i_size = 0;
    bool size_changed = false;
  };
  Inode* inode(uint32_t file);

  std::vector<FileSpec> specs_;  // by file id
  std::vector<Inode> inodes_;    // by file id, with specs_
};

}  // namespace mmreplay::kernelsim
