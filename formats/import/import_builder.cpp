#include "formats/import/import_builder.h"

#include <optional>

#include <fmt/format.h>

#include "formats/import/import_builder_impl.h"
#include "formats/import/text_scan.h"

namespace mmreplay::formats {

using detail::FdOp;
using detail::Item;
using detail::Origin;
using detail::ThreadState;

struct ImportBuilder::Impl {
  detail::BuilderState state;
};

namespace detail {

ThreadState& BuilderState::thread(uint64_t tid) {
  auto [it, added] = index_of.emplace(tid, static_cast<uint32_t>(threads.size()));
  if (added) {
    threads.emplace_back();
    threads.back().tid = tid;
  }
  return threads[it->second];
}

}  // namespace detail

namespace {

// The event a completed call stands for, or nothing (clone, failed calls). `fd` and
// `offset_from_fd` are filled for file events.
bool make_item(const SyscallCall& c, uint64_t ts, int64_t ret, detail::BuilderState* state,
               Item* item, ImportReport* report) {
  const auto& a = c.args;
  const auto uret = static_cast<uint64_t>(ret);
  Event& e = item->event;
  if (FileDataCall io; syscall_file_data(c.sc, &io)) {
    const bool at_position = io.offset_arg == FileDataCall::kNoOffsetArg ||
                             (io.minus_one_is_position && a[io.offset_arg] == ~uint64_t{0});
    const uint64_t offset = at_position ? 0 : a[io.offset_arg];
    e = io.write ? ev::file_write(ts, 0, offset, uret) : ev::file_read(ts, 0, offset, uret);
    item->fd = static_cast<int32_t>(a[0]);
    item->offset_from_fd = at_position;
    return true;
  }
  switch (c.sc) {
    case Syscall::kMmap: {
      const auto flags = static_cast<uint32_t>(a[3]);
      const auto fd = static_cast<int32_t>(a[4]);
      e = ev::mmap(ts, uret, a[1], static_cast<uint32_t>(a[2]), flags, 0, a[5]);
      if ((flags & kMapAnonymous) == 0 && fd >= 0) item->fd = fd;
      return true;
    }
    case Syscall::kMunmap:
      e = ev::munmap(ts, a[0], a[1]);
      return true;
    case Syscall::kMprotect:
      e = ev::mprotect(ts, a[0], a[1], static_cast<uint32_t>(a[2]));
      return true;
    case Syscall::kMremap:
      e = ev::mremap(ts, a[0], a[1], uret, a[2], a[3]);
      return true;
    case Syscall::kBrk:
      e = ev::brk(ts, uret);
      return true;
    case Syscall::kMadvise:
      e = ev::madvise(ts, a[0], a[1], a[2]);
      return true;
    case Syscall::kProcessMadvise: {
      e = ev::madvise_vector(ts, a[3]);
      const size_t n = std::min(c.ranges.size(), kMaxVectorRanges);
      if (n == 0) ++report->vector_madvise_without_ranges;
      e.range_begin = static_cast<uint32_t>(state->ranges.size());
      e.range_count = static_cast<uint16_t>(n);
      state->ranges.insert(state->ranges.end(), c.ranges.begin(),
                           c.ranges.begin() + static_cast<std::ptrdiff_t>(n));
      return true;
    }
    case Syscall::kCopyFileRange:
    case Syscall::kSendfile64:
      // The source's read; copy_destination() makes the destination's write. Offsets given
      // through a pointer are not in the trace (perf prints the pointer): both sides take
      // their descriptors' positions, as with NULL (cp's calls).
      e = ev::file_read(ts, 0, 0, uret);
      e.flags |= kFlagKernel;  // into the kernel, not to user memory
      item->fd = static_cast<int32_t>(c.sc == Syscall::kCopyFileRange ? a[0] : a[1]);
      item->offset_from_fd = true;
      return true;
    case Syscall::kSendto:
    case Syscall::kSendmsg:
    case Syscall::kRecvfrom:
    case Syscall::kRecvmsg: {
      // A socket's read or write by another name (send(), recv() and their msghdr forms): the
      // bytes moved are the return value, whatever the buffers. A sendto with an address on an
      // unconnected datagram socket names its peer behind a pointer: its socket stays unpaired.
      const bool is_write = c.sc == Syscall::kSendto || c.sc == Syscall::kSendmsg;
      e = is_write ? ev::file_write(ts, 0, 0, uret) : ev::file_read(ts, 0, 0, uret);
      item->fd = static_cast<int32_t>(a[0]);
      item->offset_from_fd = true;
      return true;
    }
    case Syscall::kFsync:
    case Syscall::kFdatasync:
      e = ev::fsync(ts, 0);
      item->fd = static_cast<int32_t>(a[0]);
      return true;
    case Syscall::kMsync:
      // mm/msync.c: MS_SYNC fsyncs the file of each shared mapping in the range
      // (vfs_fsync_range(file, ..., 1): an fdatasync); MS_ASYNC has done nothing since 2.6.19.
      // Which file that is, the resolver knows once it has followed the mappings.
      if ((a[2] & kMsSync) == 0) return false;
      e = ev::fsync(ts, 0);
      e.addr = a[0];
      e.len = a[1];
      item->file_by_address = true;
      return true;
    case Syscall::kFtruncate:
      e = ev::file_truncate(ts, 0, a[1], c.pages_dropped);
      item->fd = static_cast<int32_t>(a[0]);
      return true;
    case Syscall::kUnlink:
    case Syscall::kUnlinkat:
      // The file's pages go with its last name (the resolver finds the file by the path, and
      // keeps the event only when they went now: evict() once no descriptor holds it).
      if (c.sc == Syscall::kUnlinkat && (a[2] & kAtRemovedir) != 0) return false;  // rmdir
      e = ev::file_truncate(ts, 0, 0, c.pages_dropped);
      return true;
    case Syscall::kClone:
    case Syscall::kClone3:
    case Syscall::kFork:
    case Syscall::kVfork: {
      if (ret <= 0) return false;  // the child's own return (0): its stream starts at the clone
      const uint64_t flags = c.sc == Syscall::kFork    ? 0
                             : c.sc == Syscall::kVfork ? kCloneVm | kCloneVfork
                             : c.clone_flags_known     ? a[0]
                                                       : kCloneFlagsUnknown;
      e = ev::clone(ts, uret, flags);
      return true;
    }
    case Syscall::kExecve:
    case Syscall::kExecveat:
      // A new mm for the thread (exec_mmap()); finish() gives it its id.
      if (ret != 0) return false;
      e = ev::mm_create(ts, 0, 0);
      return true;
    case Syscall::kFutex: {
      switch (a[1] & kFutexCmdMask) {
        case kFutexWakeOp:
        case kFutexRequeue:
        case kFutexCmpRequeue:
        case kFutexCmpRequeuePi:
          item->uaddr2 = a[4];
          [[fallthrough]];
        case kFutexWake:
        case kFutexWakeBitset:
        case kFutexUnlockPi:
          // Woke n > 0 waiters: finish() pairs it with the waits it ended.
          if (ret <= 0) return false;
          e = ev::futex_wake(ts, 0, a[0]);
          return true;
        case kFutexWait:
        case kFutexWaitBitset:
          // Woken (0): finish() looks for its waker. A timeout or EAGAIN stays a plain block.
          if (ret == 0) {
            e = ev::futex_wait(ts, 0, a[0], kNoDuration);  // the caller sets the duration
            return true;
          }
          break;
        default:
          break;
      }
      BlockCall call;
      if (!syscall_block_call(c.sc, a, &call)) return false;
      e = ev::block(ts, call, kNoDuration);
      return true;
    }
    case Syscall::kShmget:
      state->shm_size[uret] = a[1];
      return false;  // no event of its own: the attach is the mapping
    case Syscall::kShmat: {
      // A shared mapping of the segment's size at the address the kernel chose (do_shmat()).
      auto it = state->shm_size.find(a[0]);
      if (it == state->shm_size.end()) {
        ++report->shm_attach_without_size;
        return false;
      }
      const uint32_t prot = (a[2] & kShmRdonly) ? kProtRead : kProtRead | kProtWrite;
      e = ev::mmap(ts, uret, it->second, prot, kMapShared | kMapAnonymous);
      state->shm_attached[uret] = it->second;
      return true;
    }
    case Syscall::kShmdt: {
      auto it = state->shm_attached.find(a[0]);
      if (it == state->shm_attached.end()) return false;
      e = ev::munmap(ts, a[0], it->second);
      state->shm_attached.erase(it);
      return true;
    }
    case Syscall::kWait4:
      // A reaped child (the pid returned): its exit is the recorded wake-up (wait_child), that
      // child's or, when the call named none (pid -1, 0 or -pgid: pid_t is 32 bits, which perf
      // prints as 0xffffffff), the first of its siblings to exit. Else (WNOHANG's 0, an error)
      // a plain block.
      if (ret > 0) {
        e = ev::wait_child(ts, uret, BlockCall::kWait4, kNoDuration);  // the caller sets it
        if (static_cast<int32_t>(a[0]) <= 0) e.flags |= kFlagAnyChild;
        return true;
      }
      e = ev::block(ts, BlockCall::kWait4, kNoDuration);
      return true;
    default: {
      BlockCall call;
      if (!syscall_block_call(c.sc, a, &call)) return false;
      e = ev::block(ts, call, kNoDuration);  // the caller sets the duration
      item->ready = ret > 0;                 // poll/select/epoll: descriptors ready
      item->interrupted = is_interrupted_return(ret);
      return true;
    }
  }
}

// copy_file_range() and sendfile(): the destination's write, inside the call whose source read
// `read` is (same start and duration, kFlagContinued: no second entry into the kernel).
std::optional<Item> copy_destination(const SyscallCall& c, const Item& read) {
  if (c.sc != Syscall::kCopyFileRange && c.sc != Syscall::kSendfile64) return std::nullopt;
  Item write;
  write.event = ev::file_write(read.event.ts_ns, 0, 0, read.event.len);
  write.event.duration_ns = read.event.duration_ns;
  write.event.flags |= kFlagContinued;
  write.fd = static_cast<int32_t>(c.sc == Syscall::kCopyFileRange ? c.args[2] : c.args[0]);
  write.offset_from_fd = true;
  return write;
}

bool is_fd_call(Syscall sc) {
  return (sc >= Syscall::kOpen && sc <= Syscall::kMemfdCreate) || sc == Syscall::kConnect ||
         sc == Syscall::kSetsockopt || sc == Syscall::kBind;
}

// Queues a descriptor change of `tid` at `ts`: on `item` (an event that uses the fd) or, with
// item == nullptr, as an item of its own that makes no event.
void push_fd_op(detail::BuilderState* state, uint64_t tid, uint64_t ts, FdOp op, Item* item) {
  Item own;
  if (item == nullptr) {
    own.event.ts_ns = ts;
    own.emit = false;
    item = &own;
  }
  item->fd_op = static_cast<uint32_t>(state->fd_ops.size());
  state->fd_ops.push_back(std::move(op));
  item->seq = state->next_seq++;
  state->thread(tid).items.push_back(*item);
}

// A file_truncate of descriptor `fd`'s file by a descriptor call (a truncating open, a last close).
Item truncate_item(const SyscallCall& c, uint64_t ts, uint64_t duration_ns, int32_t fd) {
  Item item;
  item.event = ev::file_truncate(ts, 0, 0, c.pages_dropped);
  item.event.duration_ns = duration_ns;
  item.fd = fd;
  return item;
}

// open/openat with O_TRUNC, and creat (open with O_CREAT|O_WRONLY|O_TRUNC).
bool truncates_at_open(const SyscallCall& c) {
  if (c.sc == Syscall::kCreat) return true;
  if (c.sc == Syscall::kOpen) return (c.args[1] & kOTrunc) != 0;
  return c.sc == Syscall::kOpenat && (c.args[2] & kOTrunc) != 0;
}

bool creates_task(Syscall sc) {
  return sc == Syscall::kClone || sc == Syscall::kClone3 || sc == Syscall::kFork ||
         sc == Syscall::kVfork;
}

// Notes the thread a clone/fork created; its mm is resolved at finish().
// The child exists from then (`ts`): its stream starts there even if it has no event of its own.
void note_child(detail::BuilderState* state, uint64_t parent, const SyscallCall& c, int64_t ret,
                uint64_t ts) {
  if (!creates_task(c.sc) || ret <= 0)
    return;  // not a clone, the child's own return (0), or an error
  ThreadState& child = state->thread(static_cast<uint64_t>(ret));
  child.parent_tid = parent;
  child.clone_ts = ts;
  switch (c.sc) {
    case Syscall::kClone:
      child.origin = (c.args[0] & kCloneVm) ? Origin::kSharedVm : Origin::kNewMm;
      if (!c.clone_flags_known) child.origin = Origin::kUnknown;
      break;
    case Syscall::kClone3:
      child.origin = !c.clone_flags_known     ? Origin::kUnknown
                     : (c.args[0] & kCloneVm) ? Origin::kSharedVm
                                              : Origin::kNewMm;
      break;
    case Syscall::kVfork:
      child.origin = Origin::kSharedVm;
      break;
    default:
      child.origin = Origin::kNewMm;
      break;
  }
}

}  // namespace

void ImportBuilder::set_wmem_default(uint64_t bytes) {
  impl_->state.wmem_default = bytes;
}

void ImportBuilder::set_wmem_max(uint64_t bytes) {
  impl_->state.wmem_max = bytes;
}

ImportBuilder::ImportBuilder(std::string source, uint32_t page_size)
    : impl_(std::make_unique<Impl>()) {
  impl_->state.source = std::move(source);
  impl_->state.page_size = page_size == 0 ? 4096 : page_size;
}

ImportBuilder::~ImportBuilder() = default;

void ImportBuilder::set_process(uint64_t tid, uint64_t pid) {
  impl_->state.thread(tid).pid = pid;
}

void ImportBuilder::set_cpu(uint64_t tid, int32_t cpu, uint64_t ts) {
  ThreadState& t = impl_->state.thread(tid);
  // Lines come in time order per thread; an out-of-order one (bad input) is not a change.
  if (t.cpu_changes.empty() ||
      (t.cpu_changes.back().second != cpu && t.cpu_changes.back().first <= ts)) {
    t.cpu_changes.emplace_back(ts, cpu);
  }
}

void ImportBuilder::set_name(uint64_t tid, std::string_view name) {
  ThreadState& t = impl_->state.thread(tid);
  if (t.name != name) t.name.assign(name);
}

bool ImportBuilder::knows_thread(uint64_t tid) const {
  return impl_->state.index_of.count(tid) != 0;
}

bool ImportBuilder::rename_thread(uint64_t from, uint64_t to) {
  auto& s = impl_->state;
  if (s.index_of.count(to) != 0) return false;
  auto it = s.index_of.find(from);
  if (it == s.index_of.end()) return false;
  const uint32_t index = it->second;
  s.index_of.erase(it);
  s.index_of.emplace(to, index);
  s.threads[index].tid = to;
  for (ThreadState& t : s.threads) {
    if (t.parent_tid == from) t.parent_tid = to;
  }
  return true;
}

void ImportBuilder::mapping_path(uint64_t tid, uint64_t ts, uint64_t addr, std::string_view path) {
  impl_->state.mapping_paths.push_back({tid, ts, addr, std::string(path)});
}

void ImportBuilder::open_path(uint64_t tid, std::string_view path) {
  impl_->state.thread(tid).open_path.assign(path);
}

void ImportBuilder::vector_ranges(uint64_t tid, std::vector<Range> ranges, uint64_t vlen) {
  if (ranges.size() < vlen) ++report_.vector_madvise_ranges_truncated;
  impl_->state.thread(tid).vector_ranges = std::move(ranges);
}

void ImportBuilder::sockopt_value(uint64_t tid, uint64_t value) {
  impl_->state.thread(tid).sockopt_value = value;
}

void ImportBuilder::sockaddr_path(uint64_t tid, std::string_view path) {
  impl_->state.thread(tid).sockaddr_path = std::string(path);
}

void ImportBuilder::page_cache_deletes_traced() {
  impl_->state.page_cache_deletes_traced = true;
}

void ImportBuilder::page_cache_deleted(uint64_t tid, uint64_t pages) {
  detail::PendingCall& p = impl_->state.thread(tid).pending;
  if (p.active && p.call.pages_dropped != kTruncatedPagesUnknown) p.call.pages_dropped += pages;
}

void ImportBuilder::syscall_enter(uint64_t tid, uint64_t ts, SyscallCall call) {
  ThreadState& t = impl_->state.thread(tid);
  if (impl_->state.page_cache_deletes_traced) call.pages_dropped = 0;
  if ((call.sc == Syscall::kConnect || call.sc == Syscall::kBind) && call.path.empty() &&
      t.sockaddr_path) {
    call.path = std::move(*t.sockaddr_path);
  }
  t.sockaddr_path.reset();
  if (call.sc == Syscall::kSetsockopt && !call.optval_known && t.sockopt_value) {
    call.args[3] = *t.sockopt_value;
    call.optval_known = true;
  }
  t.sockopt_value.reset();
  if (call.sc == Syscall::kProcessMadvise && call.ranges.empty() && t.vector_ranges) {
    call.ranges = std::move(*t.vector_ranges);
  }
  t.vector_ranges.reset();
  if (t.unseen_pipe) {  // its fds never came: the pipe stays unknown
    t.unseen_pipe.reset();
    ignored_event(syscall_name(t.unseen_pipe_call));
  }
  // record's probes on glibc's open and unlink functions name the path the call takes.
  const bool opens = call.sc == Syscall::kOpen || call.sc == Syscall::kOpenat ||
                     call.sc == Syscall::kCreat || call.sc == Syscall::kUnlink ||
                     call.sc == Syscall::kUnlinkat;
  if (opens && call.path.empty()) call.path = std::move(t.open_path);
  t.open_path.clear();
  if (call.sc == Syscall::kExit || call.sc == Syscall::kExitGroup) {
    thread_ended(tid, ts);
    return;
  }
  if (t.pending.active) ++report_.unfinished_calls;
  t.pending.active = true;
  t.pending.ts = ts;
  t.pending.call = std::move(call);
}

void ImportBuilder::syscall_exit(uint64_t tid, uint64_t ts, Syscall sc, int64_t ret) {
  ThreadState& t = impl_->state.thread(tid);
  if (!t.pending.active || t.pending.call.sc != sc) {
    ++report_.unmatched_exits;
    return;
  }
  t.pending.active = false;
  const uint64_t start = t.pending.ts;
  syscall_complete(tid, start, ts >= start ? ts - start : kNoDuration, std::move(t.pending.call),
                   ret);
}

namespace {

// ImportBuilder::task_woken(): a blocking call's event ends at the thread's last wake-up inside
// it, when perf saw one.
void cut_block_at_wakeup(const detail::ThreadState& t, Event* e, ImportReport* report) {
  const bool blocks = e->kind == EventKind::kBlock || e->kind == EventKind::kFutexWait ||
                      e->kind == EventKind::kWaitChild;
  if (!blocks || !e->has_duration() || !t.woken_at) return;
  const uint64_t woken = *t.woken_at;
  if (woken <= e->ts_ns || woken >= e->ts_ns + e->duration_ns) return;  // not in this call
  report->blocks_runnable_ns += e->ts_ns + e->duration_ns - woken;
  ++report->blocks_cut_at_wakeup;
  e->duration_ns = woken - e->ts_ns;
}

}  // namespace

void ImportBuilder::syscall_complete(uint64_t tid, uint64_t ts, uint64_t duration_ns,
                                     SyscallCall call, int64_t ret) {
  auto& s = impl_->state;
  BlockCall block;
  // A blocking call that failed (EINTR, ETIMEDOUT, EAGAIN) still spent its time off the CPU.
  if (is_error_return(ret) && !syscall_block_call(call.sc, call.args, &block)) {
    // Refused: nothing to replay but its time, which was the kernel's, not think time (a
    // MAP_FIXED_NOREPLACE probe that hit a mapping cost mremap_grow ~1.7 us each, 3,840 times).
    // It stays as a failed_call observation the replay runs as a syscall that fails.
    ++report_.failed_calls;
    Item item;
    item.event = ev::observation(ts, ObservationKind::kFailedCall, static_cast<uint64_t>(-ret));
    item.event.duration_ns = duration_ns;
    item.seq = s.next_seq++;
    s.thread(tid).items.push_back(item);
    // A non-blocking connect under way (EINPROGRESS) still connects its socket to a listener.
    FdOp op;
    if (call.sc == Syscall::kConnect && fd_op_of_call(call, ret, &op)) {
      op.end_ns = duration_ns == kNoDuration ? 0 : ts + duration_ns;
      push_fd_op(&s, tid, ts, std::move(op), nullptr);
    }
    return;
  }
  note_child(&s, tid, call, ret, duration_ns == kNoDuration ? ts : ts + duration_ns);
  if (creates_task(call.sc) && ret > 0) {
    // The child's descriptor table, from the clone's start: the child may run before the
    // parent's clone returns.
    FdOp op;
    op.type = FdOp::Type::kCloneTable;
    op.child_tid = static_cast<uint64_t>(ret);
    const bool flags_known =
        (call.sc == Syscall::kClone || call.sc == Syscall::kClone3) && call.clone_flags_known;
    const bool forks = call.sc == Syscall::kFork || call.sc == Syscall::kVfork;
    op.share = flags_known && (call.args[0] & kCloneFiles) != 0;
    op.share_known = flags_known || forks;  // else decided by the child's mm (resolver)
    push_fd_op(&s, tid, ts, std::move(op), /*item=*/nullptr);
  }
  if (is_fd_call(call.sc)) {
    FdOp op;
    ++report_.fd_calls;
    if (fd_op_of_call(call, ret, &op)) {
      op.end_ns = duration_ns == kNoDuration ? 0 : ts + duration_ns;
      if (truncates_at_open(call)) {
        // The open emptied the file (do_open() -> handle_truncate()): an event on the new fd.
        Item item = truncate_item(call, ts, duration_ns, op.fd);
        push_fd_op(&s, tid, ts, std::move(op), &item);
      } else {
        if (call.sc == Syscall::kClose && call.pages_dropped != kTruncatedPagesUnknown &&
            call.pages_dropped > 0) {
          // The last descriptor of a file unlinked while open: its pages go now (iput()).
          // The event comes first, while the fd still names the file.
          Item item = truncate_item(call, ts, duration_ns, op.fd);
          item.seq = s.next_seq++;
          s.thread(tid).items.push_back(item);
        }
        push_fd_op(&s, tid, ts, std::move(op), nullptr);
      }
    } else if ((call.sc == Syscall::kPipe || call.sc == Syscall::kPipe2 ||
                call.sc == Syscall::kSocketpair) &&
               ret == 0 && call.fds_out.empty()) {
      s.thread(tid).unseen_pipe = ts;  // perf: the fds may follow (pipe_fds())
      s.thread(tid).unseen_pipe_call = call.sc;
      s.thread(tid).unseen_pipe_sock_type = static_cast<uint8_t>(call.args[1] & kSockTypeMask);
    } else {
      // fcntl other than F_DUPFD; pipe or socketpair whose fds perf did not see
      ignored_event(syscall_name(call.sc));
    }
    return;
  }
  Item item;
  if (!make_item(call, ts, ret, &s, &item, &report_)) {
    // A known call with no event of its own (a futex wake): counted by name, never silently
    // dropped (issue 19). A clone's return in the child (0) is where the child's stream starts.
    // shmget only gives its segment's size to the attaches.
    if (!creates_task(call.sc) && call.sc != Syscall::kShmget) {
      ignored_event(syscall_name(call.sc));
    }
    return;
  }
  item.event.duration_ns = duration_ns;
  cut_block_at_wakeup(s.thread(tid), &item.event, &report_);
  std::optional<Item> destination = copy_destination(call, item);
  if (call.sc == Syscall::kUnlink || call.sc == Syscall::kUnlinkat) {
    FdOp unlinked;
    unlinked.type = FdOp::Type::kUnlink;
    // unlink's name is relative to the working directory, unlinkat's to its dirfd.
    unlinked.path = call.sc == Syscall::kUnlink
                        ? call.path
                        : detail::name_at_dir_fd(call, 0, call.path, &unlinked.dir_fd);
    push_fd_op(&s, tid, ts, std::move(unlinked), &item);
  } else if (item.fd != detail::kNoFd && !call.fd_path.empty()) {
    // strace -y named what the fd points at: an fd opened before the recording gets its kind.
    FdOp note;
    note.type = FdOp::Type::kNote;
    note.fd = item.fd;
    note.path = std::move(call.fd_path);
    push_fd_op(&s, tid, ts, std::move(note), &item);
  } else {
    item.seq = s.next_seq++;
    s.thread(tid).items.push_back(item);
  }
  if (destination) {
    destination->seq = s.next_seq++;
    s.thread(tid).items.push_back(*destination);
  }
}

void ImportBuilder::pipe_fds(uint64_t tid, uint64_t ts, int32_t fd0, int32_t fd1, FileKind kind) {
  auto& s = impl_->state;
  ThreadState& t = s.thread(tid);
  FdOp op;
  op.type = FdOp::Type::kOpenPair;
  op.fd = fd0;
  op.fd2 = fd1;
  op.kind = kind;
  op.created = true;
  if (kind == FileKind::kSocket) {
    op.family = static_cast<uint8_t>(kAfUnix);  // the only family with socketpair()
    if (t.unseen_pipe) op.sock_type = t.unseen_pipe_sock_type;
  }
  // At the call, else (its syscall not recorded) where the probe saw it return.
  const uint64_t at = t.unseen_pipe.value_or(ts);
  t.unseen_pipe.reset();
  push_fd_op(&s, tid, at, std::move(op), nullptr);
}

void ImportBuilder::thread_ended(uint64_t tid, uint64_t ts) {
  auto& s = impl_->state;
  ThreadState& t = s.thread(tid);
  if (t.has_exit) return;
  t.has_exit = true;
  Item item;
  item.event = ev::thread_exit(ts);
  item.seq = s.next_seq++;
  t.items.push_back(item);
}

void ImportBuilder::page_fault(uint64_t tid, uint64_t ts, uint64_t addr, bool write, bool major) {
  auto& s = impl_->state;
  Item item;
  item.event = ev::page_fault(ts, addr, write, major);
  item.seq = s.next_seq++;
  s.thread(tid).items.push_back(item);
}

namespace {

// x86-64 gives user space the lower half of the canonical address space and the kernel the upper
// half (arch/x86/include/asm/page_64_types.h: TASK_SIZE_MAX below, __PAGE_OFFSET above, with 4-
// or 5-level paging alike), so the top bit tells a kernel address.
constexpr uint64_t kKernelHalfBit = 1ull << 63;

bool is_user_address(uint64_t addr) {
  return (addr & kKernelHalfBit) == 0;
}

}  // namespace

void ImportBuilder::kernel_page_fault(uint64_t tid, uint64_t ts, uint64_t addr, bool write) {
  if (!is_user_address(addr)) {
    ignored_event(kKernelAddressFault);
    return;
  }
  auto& s = impl_->state;
  Item item;
  item.event = ev::page_fault(ts, addr, write, /*major=*/false, /*kernel=*/true);
  item.seq = s.next_seq++;
  s.thread(tid).items.push_back(item);
}

void ImportBuilder::task_woken(uint64_t tid, uint64_t ts) {
  auto& s = impl_->state;
  if (!s.index_of.contains(tid)) return;  // another program's task, or a kernel thread
  s.thread(tid).woken_at = ts;
}

void ImportBuilder::switch_out(uint64_t tid, uint64_t ts, bool preempted) {
  ThreadState& t = impl_->state.thread(tid);
  t.switched_out = ts;
  t.preempted = preempted;
}

void ImportBuilder::switch_in(uint64_t tid, uint64_t ts) {
  auto& s = impl_->state;
  ThreadState& t = s.thread(tid);
  if (!t.switched_out || ts < *t.switched_out) return;
  Item item;
  item.event = ev::off_cpu(*t.switched_out, ts - *t.switched_out, t.preempted);
  item.seq = s.next_seq++;
  t.items.push_back(item);
  ++report_.off_cpu_intervals;
  report_.off_cpu_ns += ts - *t.switched_out;
  if (t.preempted) report_.preempted_ns += ts - *t.switched_out;
  t.switched_out.reset();
}

namespace {

// The value a ground-truth tracepoint's text carries (print formats from
// /sys/kernel/tracing/events/*/*/format): pages of a tlb_flush ("pages:%ld", -1 = full),
// the lock address of a contention event ("%p (flags=...)"), write=true of mmap_lock events.
uint64_t value_from_payload(ObservationKind kind, std::string_view payload) {
  switch (kind) {
    case ObservationKind::kTlbFlush: {
      const size_t at = payload.find("pages:");
      if (at == std::string_view::npos) return 0;
      std::string_view num = payload.substr(at + 6);
      num = num.substr(0, num.find(' '));
      uint64_t pages = 0;
      if (num.starts_with('-')) return ~uint64_t{0};  // TLB_FLUSH_ALL
      return parse_dec(num, &pages) ? pages : 0;
    }
    case ObservationKind::kLockContentionBegin:
    case ObservationKind::kLockContentionEnd: {
      uint64_t addr = 0;
      return parse_u64(payload.substr(0, payload.find(' ')), &addr) ? addr : 0;
    }
    default:
      return payload.find("write=true") != std::string_view::npos ? 1 : 0;
  }
}

}  // namespace

void ImportBuilder::observation(uint64_t tid, uint64_t ts, std::string_view tracepoint,
                                std::string_view payload) {
  ObservationKind kind;
  const uint64_t value =
      observation_from_tracepoint(tracepoint, &kind) ? value_from_payload(kind, payload) : 0;
  observation_value(tid, ts, tracepoint, value);
}

void ImportBuilder::observation_value(uint64_t tid, uint64_t ts, std::string_view tracepoint,
                                      uint64_t value) {
  ++report_.observations[std::string(tracepoint)];
  ObservationKind kind;
  if (!observation_from_tracepoint(tracepoint, &kind)) return;
  auto& s = impl_->state;
  Item item;
  item.event = ev::observation(ts, kind, value);
  item.seq = s.next_seq++;
  s.thread(tid).items.push_back(item);
}

void ImportBuilder::unknown_line(uint64_t line_number, std::string_view text) {
  ++report_.unknown_lines;
  if (report_.unknown_examples.size() < kUnknownLineExamples) {
    constexpr size_t kExampleChars = 120;
    report_.unknown_examples.push_back(
        fmt::format("line {}: {}", line_number, text.substr(0, kExampleChars)));
  }
}

ImportedTrace ImportBuilder::finish(RecorderInfo recorder, ImportReport* report) {
  auto& s = impl_->state;
  // Calls still pending: keep those whose event needs no return value, without a duration.
  for (ThreadState& t : s.threads) {
    if (t.unseen_pipe) {
      t.unseen_pipe.reset();
      ignored_event(syscall_name(t.unseen_pipe_call));
    }
  }
  for (ThreadState& t : s.threads) {
    if (!t.pending.active) continue;
    t.pending.active = false;
    ++report_.unfinished_calls;
    if (syscall_needs_return(t.pending.call.sc)) {
      ++report_.dropped_unfinished;
      continue;
    }
    syscall_complete(t.tid, t.pending.ts, kNoDuration, std::move(t.pending.call), 0);
  }
  *report = report_;
  return detail::resolve_trace(&s, std::move(recorder), report);
}

Status write_imported_trace(const ImportedTrace& trace, const std::string& path,
                            const WriterOptions& options) {
  Status status;
  auto writer = TraceWriter::create(path, trace.meta, options, &status);
  if (!writer) return status;
  const std::span<const Range> all(trace.ranges);
  for (size_t stream = 0; stream < trace.streams.size(); ++stream) {
    for (const Event& e : trace.streams[stream]) {
      std::span<const Range> ranges;
      if (e.kind == EventKind::kMadviseVector) ranges = all.subspan(e.range_begin, e.range_count);
      status = writer->append(static_cast<uint32_t>(stream), e, ranges);
      if (!status) return status;
    }
  }
  return writer->close();
}

}  // namespace mmreplay::formats
