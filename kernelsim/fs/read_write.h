// read(2), write(2) and fsync(2) of a file range at the level of buffer heads (fs/read_write.c).
//
// A read of a regular file is filemap_read() (mm/filemap_read.h): page-cache batches, no buffer
// heads. Writes, and reads of block devices and of files of unknown kind (fs/file.h), walk the
// range block by block through __find_get_block() (as the buffer-head paths of block devices
// and ext4 metadata did in the seeds' kernels); each block touched costs a bh_lru lookup (and on a
// miss the page-cache slow path and an install) plus the user copy of its bytes. Each page touched
// is a page-cache page first (mm/filemap.h: allocated on a miss, read from the device unless a
// write covers it, dirtied by a write, written back by the flusher or kswapd); a write ends in
// balance_dirty_pages(). A write marks the block's buffer head dirty; fsync queues a write of
// every dirty page of the file on its device (CostProfile::writeback_page each), cleaning them
// and their buffers, and waits off CPU for them, the file's writes already in flight and the
// journal commit and cache flush after them (CostProfile::fsync_block is a one-page fsync). Files
// with no page cache (pipes, sockets, char devices, ttys, anon inodes: fs/file.h) cost a syscall
// and a copy of the bytes (CostProfile::pipe_rw / socket_rw on top; a pipe write also pipe_buf_page
// per 4 KiB), /dev/null a syscall.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Where a read's bytes go.
enum class ReadTarget : uint8_t {
  kUser,    // the caller's buffer: read(2) and its kin copy them
  kSplice,  // a pipe, by reference: the source half of an in-kernel copy (copy_file_range(),
            // sendfile(): do_splice_direct()); the destination's write makes the one copy
};

// Models fs/read_write.c: ksys_read(); with ReadTarget::kSplice, the source half of
// do_splice_direct() (splice_direct_to_actor() -> filemap_splice_read()), which copies nothing.
// Returns the bytes read (len).
Co<int64_t> ksys_read(Task& t, uint32_t file, uint64_t offset, uint64_t len,
                      ReadTarget to = ReadTarget::kUser);
// Models fs/read_write.c: ksys_write(). Returns the bytes written (len). `continued`: a later piece
// of the write before it (an AF_UNIX stream write queued skb by skb), already inside the syscall:
// no syscall entry, and not counted as a call of its own.
Co<int64_t> ksys_write(Task& t, uint32_t file, uint64_t offset, uint64_t len,
                       bool continued = false);
// Models fs/sync.c: do_fsync(). Returns 0.
Co<int64_t> do_fsync(Task& t, uint32_t file);

}  // namespace mmreplay::kernelsim
