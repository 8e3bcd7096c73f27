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

 private:
  std::vector<FileSpec> specs_;  // by file id
};

}  // namespace mmreplay::kernelsim
