#include "formats/import/fd_table.h"

#include <array>
#include <filesystem>

#include <fmt/format.h>

#include "formats/import/text_scan.h"

namespace mmreplay::formats {
using detail::FdOp;
namespace {

bool starts_with_any(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (s.starts_with(p)) return true;
  }
  return false;
}

// The new fd of a call that returns one, or -1 on an error return.
int32_t returned_fd(int64_t ret) {
  return ret >= 0 && ret <= INT32_MAX ? static_cast<int32_t>(ret) : -1;
}

// A description made by a call whose kind is known from the call itself; -y may name it more
// precisely (a path is kept either way).
bool open_op(int32_t fd, FileKind kind, bool created, std::string path, FdOp* op) {
  if (fd < 0) return false;
  op->type = FdOp::Type::kOpen;
  op->fd = fd;
  op->created = created;
  const FileKind by_path = file_kind_of_path(path);
  op->kind = by_path != FileKind::kUnknown ? by_path : kind;
  op->path = std::move(path);
  return true;
}

}  // namespace

FileKind file_kind_of_path(std::string_view path) {
  if (path.empty()) return FileKind::kUnknown;
  if (path.starts_with("pipe:")) return FileKind::kPipe;
  // strace -y prints socket:[ino]; -yy prints the protocol and the addresses.
  if (starts_with_any(path, {"socket:", "TCP:", "TCPv6:", "UDP:", "UDPv6:", "UNIX:", "UNIX-",
                             "NETLINK:", "RAW:", "RAWv6:", "PACKET:"})) {
    return FileKind::kSocket;
  }
  if (starts_with_any(path, {"anon_inode:", "/memfd:"})) return FileKind::kAnon;
  if (starts_with_any(path, {"/dev/tty", "/dev/pts/", "/dev/console", "/dev/ptmx"})) {
    return FileKind::kTty;
  }
  // Disks, partitions and their mappers (drivers/block, drivers/nvme, drivers/md).
  if (starts_with_any(
          path, {"/dev/sd", "/dev/nvme", "/dev/vd", "/dev/xvd", "/dev/hd", "/dev/loop", "/dev/dm-",
                 "/dev/mapper/", "/dev/md", "/dev/zram", "/dev/ram", "/dev/mmcblk", "/dev/nbd"})) {
    return FileKind::kBlockDevice;
  }
  // Other device nodes are character devices: null, zero, full, random, urandom, kmsg, ...
  if (path.starts_with("/dev/") && !path.starts_with("/dev/shm/")) return FileKind::kCharDevice;
  if (path.starts_with('/')) return FileKind::kRegular;
  return FileKind::kUnknown;
}

size_t name_inherited_fds(uint64_t mm, const std::vector<std::pair<int32_t, std::string>>& fds,
                          std::vector<FileInfo>* files) {
  size_t named = 0;
  for (const auto& [fd, path] : fds) {
    const std::string unnamed = fmt::format("{}{} fd {}", kUnnamedFdPrefix, mm, fd);
    for (FileInfo& f : *files) {
      if (f.path != unnamed) continue;
      f.path = path;
      f.kind = file_kind_of_path(path);
      ++named;
    }
  }
  return named;
}

namespace {

bool is_number(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

bool is_unnamed_fd_name(std::string_view path) {
  std::vector<std::string_view> words;
  std::string_view rest = path;
  for (std::string_view w = next_token(&rest); !w.empty(); w = next_token(&rest))
    words.push_back(w);
  if (words.size() == 5) words.erase(words.begin());  // the kind
  return words.size() == 4 && words[0] == "pid" && is_number(words[1]) && words[2] == "fd" &&
         is_number(words[3]);
}

size_t resolve_relative_paths(const std::string& cwd, std::vector<FileInfo>* files) {
  if (cwd.empty() || cwd.front() != '/') return 0;
  size_t resolved = 0;
  for (FileInfo& f : *files) {
    // Kinds come from absolute paths and the names strace and perf give (file_kind_of_path);
    // what is left unknown with a name not starting at '/' was opened by a relative path. The
    // placeholders of files without a path ("pid MM fd N") are no path.
    if (f.kind != FileKind::kUnknown || f.path.empty() || f.path.front() == '/' ||
        is_unnamed_fd_name(f.path)) {
      continue;
    }
    const std::string absolute = (std::filesystem::path(cwd) / f.path).lexically_normal().string();
    const FileKind kind = file_kind_of_path(absolute);
    if (kind == FileKind::kUnknown) continue;
    f.path = absolute;
    f.kind = kind;
    ++resolved;
  }
  return resolved;
}

namespace detail {
namespace {

// A truncating open that the recording saw drop page-cache pages: the file existed, cached.
// Without the count (strace) such a file is taken as new: none of its pages cached at the start.
bool dropped_cached_pages(const SyscallCall& c) {
  return c.pages_dropped != kTruncatedPagesUnknown && c.pages_dropped > 0;
}

}  // namespace

std::string name_at_dir_fd(const SyscallCall& c, size_t dfd_arg, std::string name,
                           int32_t* dir_fd) {
  if (name.empty() || name.front() == '/' || c.args[dfd_arg] == kAtFdcwd) return name;
  if (!c.fd_path.empty()) return c.fd_path + "/" + name;
  *dir_fd = static_cast<int32_t>(c.args[dfd_arg]);
  return name;
}

bool fd_op_of_call(const SyscallCall& c, int64_t ret, FdOp* op) {
  if (!c.fd_args_known) return false;
  const auto& a = c.args;
  const int32_t fd = returned_fd(ret);
  std::string path = !c.ret_path.empty() ? c.ret_path : c.path;
  switch (c.sc) {
    case Syscall::kOpen:
    case Syscall::kOpenat: {
      // O_CREAT|O_EXCL made a new file; O_CREAT alone may have found it there: taken as existing.
      // O_TRUNC emptied it (a file_truncate event on the fd drops its pages): it held pages
      // before only if the recording saw the truncation drop some.
      const uint64_t flags = c.sc == Syscall::kOpen ? a[1] : a[2];
      const bool created = ((flags & kOTrunc) != 0 && !dropped_cached_pages(c)) ||
                           (flags & (kOCreat | kOExcl)) == (kOCreat | kOExcl);
      // A name relative to a directory descriptor (fts: rm -r, find). strace -y's returned
      // path is already whole.
      if (c.sc == Syscall::kOpenat && c.ret_path.empty()) {
        path = name_at_dir_fd(c, 0, std::move(path), &op->dir_fd);
      }
      return open_op(fd, FileKind::kUnknown, created, std::move(path), op);
    }
    case Syscall::kCreat:  // open(O_CREAT|O_WRONLY|O_TRUNC)
      return open_op(fd, FileKind::kUnknown, !dropped_cached_pages(c), std::move(path), op);
    case Syscall::kSocket:
      op->family = static_cast<uint8_t>(a[0]);
      op->sock_type = static_cast<uint8_t>(a[1] & kSockTypeMask);
      return open_op(fd, FileKind::kSocket, true, std::move(path), op);
    case Syscall::kAccept:
    case Syscall::kAccept4:
      op->listen_fd = static_cast<int32_t>(a[0]);
      return open_op(fd, FileKind::kSocket, true, std::move(path), op);
    case Syscall::kEventfd:
    case Syscall::kEventfd2:
      return open_op(fd, FileKind::kAnon, true, std::move(path), op);
    case Syscall::kMemfdCreate:
      return open_op(fd, FileKind::kAnon, true,
                     !c.ret_path.empty() ? c.ret_path : fmt::format("/memfd:{}", c.path), op);
    case Syscall::kPipe:
    case Syscall::kPipe2:
    case Syscall::kSocketpair: {
      if (ret != 0 || c.fds_out.size() != 2) return false;  // perf: the fds sit behind a pointer
      op->type = FdOp::Type::kOpenPair;
      op->fd = c.fds_out[0];
      op->fd2 = c.fds_out[1];
      op->kind = c.sc == Syscall::kSocketpair ? FileKind::kSocket : FileKind::kPipe;
      if (c.sc == Syscall::kSocketpair) {
        op->family = static_cast<uint8_t>(kAfUnix);  // the only family with socketpair()
        op->sock_type = static_cast<uint8_t>(a[1] & kSockTypeMask);
      }
      op->created = true;
      if (c.fds_out_paths.size() == 2) {
        op->path = c.fds_out_paths[0];
        op->path2 = c.fds_out_paths[1];
      }
      return true;
    }
    case Syscall::kDup:
    case Syscall::kDup2:
    case Syscall::kDup3:
    case Syscall::kFcntl: {
      if (c.sc == Syscall::kFcntl && a[1] != kFDupfd && a[1] != kFDupfdCloexec) return false;
      if (fd < 0 || static_cast<int64_t>(a[0]) == fd) return false;  // dup2(fd, fd) does nothing
      op->type = FdOp::Type::kDup;
      op->fd = static_cast<int32_t>(a[0]);
      op->fd2 = fd;
      return true;
    }
    case Syscall::kClose:
      op->type = FdOp::Type::kClose;
      op->fd = static_cast<int32_t>(a[0]);
      return true;
    case Syscall::kConnect:  // connected, or (non-blocking) under way
      if (ret != 0 && ret != -kEinprogress) return false;
      op->type = FdOp::Type::kConnect;
      op->fd = static_cast<int32_t>(a[0]);
      op->address = c.path;
      return true;
    case Syscall::kBind:
      if (ret != 0) return false;
      op->type = FdOp::Type::kBind;
      op->fd = static_cast<int32_t>(a[0]);
      op->address = c.path;
      return true;
    case Syscall::kSetsockopt:
      if (ret != 0 || a[1] != kSolSocket || (a[2] != kSoSndbuf && a[2] != kSoSndbufforce)) {
        return false;
      }
      op->type = FdOp::Type::kSetSndbuf;
      op->fd = static_cast<int32_t>(a[0]);
      op->sndbuf = c.optval_known ? a[3] : 0;
      op->sndbuf_force = a[2] == kSoSndbufforce;
      return true;
    default:
      return false;
  }
}

std::string FdTables::path_at(uint64_t table, int32_t dir_fd, const std::string& path) {
  if (dir_fd < 0 || path.empty() || path.front() == '/') return path;
  const Description* dir = find(table, dir_fd);
  if (dir == nullptr) return "";
  const std::string& at = files_[dir->file_id - 1].path;
  if (at.empty() || is_unnamed_fd_name(at)) return "";
  return at + "/" + path;
}

uint64_t FdTables::file_named(const std::string& path) const {
  const auto it = by_path_.find(path);
  return it == by_path_.end() ? 0 : it->second;
}

uint64_t FdTables::file_for_path(const std::string& path) {
  return file_of_path(path, file_kind_of_path(path), /*created=*/false);
}

bool FdTables::is_open(uint64_t id) const {
  for (const auto& [table, fds] : tables_) {
    for (const auto& [fd, d] : fds) {
      if (descriptions_[d].file_id == id) return true;
    }
  }
  return false;
}

uint64_t FdTables::file_of_path(const std::string& path, FileKind kind, bool created) {
  if (!path.empty()) {
    if (auto it = by_path_.find(path); it != by_path_.end()) {
      FileInfo& f = files_[it->second - 1];
      if (f.kind == FileKind::kUnknown) f.kind = kind;
      return it->second;
    }
  }
  FileInfo info;
  info.id = files_.size() + 1;
  info.path = path;
  info.kind = kind;
  info.created = created;
  files_.push_back(info);
  if (!path.empty()) by_path_.emplace(path, info.id);
  return info.id;
}

uint32_t FdTables::new_description(uint64_t mm, int32_t fd, FileKind kind, bool created,
                                   const std::string& path, bool opened) {
  const uint64_t id = file_of_path(path, kind, created);
  if (path.empty()) {
    // A description with no path gets its own file, named after the fd that made it; an fd
    // from before the recording is "pid P fd N" (name_inherited_fds() looks for that name).
    files_[id - 1].path = opened ? fmt::format("{} pid {} fd {}", file_kind_name(kind), mm, fd)
                                 : fmt::format("{}{} fd {}", kUnnamedFdPrefix, mm, fd);
  }
  return add_description(id);
}

uint32_t FdTables::add_description(uint64_t file_id) {
  Description d;
  d.file_id = file_id;
  d.index = static_cast<uint32_t>(descriptions_.size());
  if (auto it = preset_peers_.find(d.index); it != preset_peers_.end()) d.peer = it->second;
  descriptions_.push_back(d);
  return d.index;
}

FdTables::Description* FdTables::find(uint64_t table, int32_t fd) {
  auto t = tables_.find(table);
  if (t == tables_.end()) return nullptr;
  auto it = t->second.find(fd);
  return it == t->second.end() ? nullptr : &descriptions_[it->second];
}

FdTables::Description& FdTables::lookup(uint64_t table, uint64_t mm, int32_t fd) {
  auto& fds = tables_[table];
  auto it = fds.find(fd);
  if (it == fds.end()) {
    // (5): opened before the recording; it existed then.
    it = fds.emplace(fd, new_description(mm, fd, FileKind::kUnknown, false, "", false)).first;
  }
  return descriptions_[it->second];
}

void FdTables::apply(uint64_t table, uint64_t mm, const FdOp& op) {
  auto& fds = tables_[table];
  switch (op.type) {
    case FdOp::Type::kOpen: {
      // A name relative to an unnamed directory stays as it was given.
      const std::string joined = path_at(table, op.dir_fd, op.path);
      const std::string& path = joined.empty() ? op.path : joined;
      uint8_t sock_type = op.sock_type;
      uint8_t family = op.family;
      if (op.listen_fd >= 0) {  // accept: a socket of the listener's family and type
        if (const Description* l = find(table, op.listen_fd)) {
          sock_type = l->sock_type;
          family = l->family;
        }
      }
      const uint32_t d = new_description(mm, op.fd, op.kind, op.created, path);
      descriptions_[d].sock_type = sock_type;
      descriptions_[d].family = family;
      fds[op.fd] = d;
      break;
    }
    case FdOp::Type::kOpenPair: {
      const uint32_t first = new_description(mm, op.fd, op.kind, op.created, op.path);
      fds[op.fd] = first;
      // The two ends of one pipe are one inode: strace names both "pipe:[ino]"; without names
      // the write end shares the read end's file. A socketpair's ends are two sockets
      // (socket:[ino] each under strace), one file without names; each is the other's peer.
      uint32_t second = 0;
      if (op.path2.empty() || op.path2 == op.path) {
        second = add_description(descriptions_[first].file_id);
      } else {
        second = new_description(mm, op.fd2, op.kind, op.created, op.path2);
      }
      fds[op.fd2] = second;
      if (op.kind == FileKind::kSocket) {
        descriptions_[first].peer = second;
        descriptions_[second].peer = first;
        for (uint32_t end : {first, second}) {
          descriptions_[end].sock_type = op.sock_type;
          descriptions_[end].family = op.family;
        }
      }
      break;
    }
    case FdOp::Type::kDup: {
      lookup(table, mm, op.fd);  // an inherited fd duplicated: it exists from now on
      fds[op.fd2] = fds[op.fd];
      break;
    }
    case FdOp::Type::kClose:
      fds.erase(op.fd);
      break;
    case FdOp::Type::kNote: {
      const FileKind kind = file_kind_of_path(op.path);
      if (fds.count(op.fd) == 0) {
        fds[op.fd] = new_description(mm, op.fd, kind, false, op.path, false);
        break;
      }
      FileInfo& f = files_[descriptions_[fds[op.fd]].file_id - 1];
      if (f.kind == FileKind::kUnknown) f.kind = kind;
      break;
    }
    case FdOp::Type::kCloneTable:
      break;  // the resolver's (copy_table)
    case FdOp::Type::kUnlink:
      break;  // the name stays: a file made again there is the same file to the model
    case FdOp::Type::kConnect:
      lookup(table, mm, op.fd);  // an inherited fd connected: it exists from now on
      break;
    case FdOp::Type::kBind:
      lookup(table, mm, op.fd).address = op.address;
      break;
    case FdOp::Type::kSetSndbuf: {
      Description& d = lookup(table, mm, op.fd);
      if (op.sndbuf != 0) {
        d.sndbuf = op.sndbuf;
        d.sndbuf_force = op.sndbuf_force;
      }
      break;
    }
  }
}

}  // namespace detail
}  // namespace mmreplay::formats
