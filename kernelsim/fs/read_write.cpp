#include "kernelsim/fs/read_write.h"

#include <algorithm>
#include <utility>

#include "kernelsim/constants.h"
#include "kernelsim/fs/buffer.h"
#include "kernelsim/fs/file.h"
#include "kernelsim/kernel/thread.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/filemap_read.h"
#include "kernelsim/mm/readahead.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/sim/task.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// The block loop shared by read and write: the page-cache page of each page touched
// (pagecache_get_page(): a miss allocates, and reads unless a write covers the whole page; a
// read's miss first reads ahead, mm/readahead.h), then
// per block one __find_get_block(), the copy of the bytes in it, and brelse() of the caller's
// reference. Returns len, or -ENOMEM when a page could not be allocated (the task was OOM-killed).
// `entry` is the syscall entry charged (zero for a later piece of one call); `copy`: the bytes
// are copied to or from user memory (not for a splice's source).
Co<int64_t> rw_blocks(Task& t, uint32_t file, uint64_t offset, uint64_t len, bool write,
                      SimTime entry, bool copy) {
  Simulation& sim = t.sim();
  // The bh_lru is per CPU and shared by the tasks of that CPU: order against them first.
  co_await sync_point(t);
  t.work(entry);
  BufferCache& cache = sim.buffers();
  const uint64_t bs = cache.block_size();
  BhCtx c{cache, t.cpu().id, sim.costs(), sim.vm(), SimTime::zero()};
  const uint64_t end = offset + len;
  const uint64_t last_page = (end + PAGE_SIZE - 1) / PAGE_SIZE;  // the page beyond the range
  // The open file's f_ra, for a read's readahead (mm/readahead.h).
  FileRaState* ra = write ? nullptr : &sim.page_cache().ra_state(t.id(), file);
  uint64_t page = ~uint64_t{0};
  for (uint64_t pos = offset; pos < end;) {
    if (pos / PAGE_SIZE != page) {
      page = pos / PAGE_SIZE;
      const bool whole = write && offset <= page * PAGE_SIZE && end >= (page + 1) * PAGE_SIZE;
      t.work(std::exchange(c.spent, SimTime::zero()));
      if (ra != nullptr) {  // the read's readahead, as filemap_get_pages() starts it
        co_await sync_point(t);
        if (!is_page_cached(sim, file, page)) {
          co_await page_cache_sync_ra(t, file, *ra, page, last_page - page);
        } else if (ra->marks(page)) {
          co_await page_cache_async_ra(t, file, *ra, page, last_page - page);
        }
      }
      // A write marks every page (FGP_ACCESSED); a read each but where the last read ended.
      const bool accessed = write || !ra->continues_in_page(pos);
      if (!co_await pagecache_get_page(t, file, page, write, whole, accessed)) {
        co_return -ERRNO_ENOMEM;
      }
      co_await sync_point(t);  // back to the shared bh_lru after the page lookup
    }
    const uint64_t block = pos / bs;
    const uint64_t chunk = std::min(end, (block + 1) * bs) - pos;
    sim.cma().ensure_file_page(file, block * bs >> PAGE_SHIFT);  // where its page sits (mm/cma.h)
    BufferHead& bh = __find_get_block(c, BhKey{file, block});
    // copy_to_user / copy_from_user of `chunk` bytes at the profile's per-page rate.
    if (copy) {
      c.spent += SimTime::ns(sim.costs().file_copy_page.count_ns() * static_cast<int64_t>(chunk) /
                             static_cast<int64_t>(PAGE_SIZE));
    }
    if (write) bh.dirty = true;  // mark_buffer_dirty()
    brelse(c, bh);
    pos += chunk;
  }
  t.work(c.spent);
  if (ra != nullptr && len != 0) ra->read_ended(end);  // ra->prev_pos
  if (write) {
    sim.files().write_ended_at(file, end);  // generic_write_end(): i_size_write() past it
    co_await balance_dirty_pages_ratelimited(t);
  }
  co_return static_cast<int64_t>(len);
}

// A read or write of a file with no page cache (fs/file.h): the syscall, the f_op's own work
// (pipe_read()/pipe_write(), sock_read_iter()/sock_write_iter()) and one copy of the bytes (with
// `copy`: a splice's source hands them on by reference);
// read_null()/write_null() of a char device move nothing. A pipe write also pays for a buffer
// page per whole 4 KiB it writes (its allocation and its release after the read: a pipe's pages
// are not modelled as memory, only as time). `remote`: the other side of the socket ran on
// another CPU (fs/stream_sides.h), and the copy moves its lines between the CPUs' caches.
// Private work: no shared state is touched, so no sync point. Returns len.
int64_t rw_stream(Task& t, FileType type, uint64_t len, bool write, SimTime entry, bool copy,
                  bool remote) {
  Simulation& sim = t.sim();
  const CostProfile& costs = sim.costs();
  SimTime cost = entry;
  if (type != FileType::kCharDevice && copy) {
    const int64_t per_page =
        costs.file_copy_page.count_ns() + (remote ? costs.stream_page_remote.count_ns() : 0);
    cost += SimTime::ns(per_page * static_cast<int64_t>(len) / static_cast<int64_t>(PAGE_SIZE));
  }
  if (type == FileType::kSocket) cost += costs.socket_rw;
  if (type == FileType::kPipe || type == FileType::kTty || type == FileType::kAnon) {
    cost += costs.pipe_rw;
  }
  if (type == FileType::kPipe && write) {
    cost += SimTime::ns(costs.pipe_buf_page.count_ns() * static_cast<int64_t>(len / PAGE_SIZE));
  }
  t.work(cost);
  return static_cast<int64_t>(len);
}

// The read/write path of `file` by its kind (the f_op the kernel's vfs_read()/vfs_write() call),
// counted by kind. `continued`: a later piece of the call before it (Op::continues_call), which
// neither enters the kernel again nor counts as a call of its own. `to`: a read's target.
Co<int64_t> rw_file(Task& t, uint32_t file, uint64_t offset, uint64_t len, bool write,
                    bool continued, ReadTarget to = ReadTarget::kUser) {
  Simulation& sim = t.sim();
  VmCounters& vm = sim.vm();
  const FileType type = sim.files().get(file).type;
  const SimTime entry = continued ? SimTime::zero() : sim.costs().syscall_entry;
  const uint64_t calls = continued ? 0 : 1;
  const bool copy = write || to == ReadTarget::kUser;
  switch (type) {
    case FileType::kRegular:
      vm.fd_io_regular += calls;
      if (!write) {  // generic_file_read_iter() -> filemap_read(): no buffer heads
        co_await sync_point(t);
        t.work(entry);
        if (!copy) co_return co_await filemap_splice_read(t, file, offset, len);
        co_return co_await filemap_read(t, file, offset, len);
      }
      co_return co_await rw_blocks(t, file, offset, len, write, entry, copy);
    case FileType::kUnknown:
    case FileType::kBlockDevice:
      vm.fd_io_regular += calls;
      co_return co_await rw_blocks(t, file, offset, len, write, entry, copy);
    case FileType::kSocket:
      vm.fd_io_socket += calls;
      break;
    case FileType::kPipe:
      vm.fd_io_pipe += calls;
      break;
    case FileType::kCharDevice:
      vm.fd_io_char += calls;
      break;
    case FileType::kTty:
      vm.fd_io_tty += calls;
      break;
    case FileType::kAnon:
      vm.fd_io_anon += calls;
      break;
  }
  bool remote = false;
  // Which CPU the other side ran on is shared state, looked at only when it costs something: the
  // profiles leave stream_page_remote at 0 until calibrate measures it. Sockets only: see
  // fs/stream_sides.h for why pipes are not charged.
  if (type == FileType::kSocket && copy && sim.costs().stream_page_remote != SimTime::zero()) {
    co_await sync_point(t);
    const int32_t cpu = static_cast<int32_t>(t.cpu().id);
    const int32_t other = sim.stream_sides().exchange(file, t.id(), cpu, write);
    remote = other != StreamSides::kNone && other != cpu;
    if (remote) vm.stream_pages_remote += (len + PAGE_SIZE - 1) / PAGE_SIZE;
  }
  co_return rw_stream(t, type, len, write, entry, copy, remote);
}

}  // namespace

// Models fs/read_write.c: ksys_read(), or the source half of do_splice_direct()
Co<int64_t> ksys_read(Task& t, uint32_t file, uint64_t offset, uint64_t len, ReadTarget to) {
  co_return co_await rw_file(t, file, offset, len, /*write=*/false, /*continued=*/false, to);
}

// Models fs/read_write.c: ksys_write(); with `continued`, the rest of a write the kernel queues in
// pieces (unix_stream_sendmsg()'s loop over skbs, waiting for room between them).
Co<int64_t> ksys_write(Task& t, uint32_t file, uint64_t offset, uint64_t len, bool continued) {
  co_return co_await rw_file(t, file, offset, len, /*write=*/true, continued);
}

// Models fs/sync.c: do_fsync() -> vfs_fsync_range(), as ext4_sync_file() runs it:
// file_write_and_wait_range() queues a write of each dirty page of the file on its device
// (__filemap_fdatawrite_range(), WB_SYNC_ALL, as the flusher would: writeback_page each, one
// behind the other) and waits for every write of the file in flight, the flusher's too
// (filemap_fdatawait_range()); then the journal commits and the device's cache is flushed
// (jbd2_complete_transaction(), blkdev_issue_flush()). One call's wait is therefore one flush
// plus the pages at the device's bandwidth, not a flush a page: an fdatasync() of 8,192 dirty
// pages took 24.8 ms, 3 us a page, where one of a single page took 130 us (2026-12-07, the
// development guest's virtio disk, ext4). fsync_block is a one-page fsync as a whole (calibrate's
// pwrite() + fdatasync() of a page in place), so what follows the writes is fsync_block less one
// page's write; when the file's size changed since its last sync (an append, a truncation), the
// journal commits the inode first (fsync_commit: 193 against 108 us for a one-page append's
// fdatasync there). The model counts every fsync as fdatasync(), which commits nothing for an
// overwrite in place (fsync() would, for the mtime).
// The dirty buffer heads are cleaned with their pages and referenced while their I/O is in
// flight (end_buffer_write_sync() drops it), which keeps them from migration meanwhile.
Co<int64_t> do_fsync(Task& t, uint32_t file) {
  Simulation& sim = t.sim();
  co_await sync_point(t);
  t.work(sim.costs().syscall_entry);
  if (!sim.files().uses_page_cache(file)) co_return 0;  // no buffers to write (pipe, socket)
  const std::vector<BufferHead*> dirty = sim.buffers().dirty_buffers(file);
  BhCtx c{sim.buffers(), t.cpu().id, sim.costs(), sim.vm(), SimTime::zero()};
  for (BufferHead* bh : dirty) {
    bh->dirty = false;  // clear_buffer_dirty() at submit
    get_bh(c, *bh);     // the I/O in flight holds a reference until end_buffer_write_sync()
  }
  t.work(c.spent);
  PageCache& pc = sim.page_cache();
  const SimTime submitted = t.clock();
  SimTime written = pc.writes_done(file, submitted);
  const std::vector<uint32_t> pages = pc.oldest_dirty(pc.nr_dirty(), file);
  for (uint32_t f : pages) written = max(written, pc.start_page_writeback(f, submitted));
  t.work(sim.costs().writeback_submit * static_cast<int64_t>(pages.size()));
  // A new size is metadata the data needs: the journal commits it before the flush.
  const bool commit = sim.files().take_size_change(file);
  // Nothing dirty, nothing in flight and no new size: no transaction to commit, no flush.
  if (dirty.empty() && pages.empty() && written <= submitted && !commit) co_return 0;
  const SimTime flush = max(sim.costs().fsync_block - sim.costs().writeback_page, SimTime::zero()) +
                        (commit ? sim.costs().fsync_commit : SimTime::zero());
  // The writes and the flush, waited for off CPU (wait_on_page_writeback(), submit_bio_wait()).
  co_await do_sleep(t, max(written, t.clock()) - t.clock() + flush);
  co_await sync_point(t);
  c.spent = SimTime::zero();
  for (BufferHead* bh : dirty) brelse(c, *bh);
  t.work(c.spent);
  co_return 0;
}

}  // namespace mmreplay::kernelsim
