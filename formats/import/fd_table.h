// Descriptors of a recording: which file each fd of each process points at, its kind, and the
// file offset that read/write advance.
//
// The kernel's model, as the importers follow it:
//   (1) a task has a descriptor table (struct files_struct); threads made with CLONE_FILES share
//       their parent's, fork and vfork give the child a copy (dup_fd()) whose fds point at the same
//       open files;
//   (2) an fd points at an open file description (struct file): dup, dup2, dup3, fcntl(F_DUPFD)
//       and fork share it, offset included; open/socket/pipe/accept/eventfd/memfd make a new one;
//   (3) a description points at a file of the trace's file table: opens of one path share the file
//       (one page cache), both ends of one pipe share theirs ("pipe:[ino]");
//   (4) close ends the fd; a later call on that number (reused) gets the next open;
//   (5) an fd used but never opened in the recording (inherited: 0, 1, 2, or opened before an
//       attach) gets a file "pid P fd N" of unknown kind that existed before the recording, unless
//       strace's -y or record's look at the inherited fds named it.
// Kinds come from the creating call (socket, accept: socket; pipe: pipe; eventfd, memfd: anon)
// and from paths (file_kind_of_path()). An open whose path is not known (perf prints filename as a
// pointer) stays unknown, which the replay treats as regular.

#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/import/syscall.h"
#include "formats/trace_meta.h"

namespace mmreplay::formats {

// The kind of a path as strace -y/-yy prints it or as open() names it: "/dev/null" char device,
// "/dev/pts/3" tty, "pipe:[123]" pipe, "socket:[9]" or "TCP:[..]" socket, "anon_inode:[eventfd]"
// and "/memfd:x" anon, "/dev/sda1" block device, another absolute path regular, "" unknown.
FileKind file_kind_of_path(std::string_view path);

// The file of an fd whose path is not known is called "pid MM fd N" (MM its process's mm id).
inline constexpr std::string_view kUnnamedFdPrefix = "pid ";
// True for the names FdTables gives files without a path: "pid MM fd N" (from before the
// recording) and "KIND pid MM fd N" (opened unseen, e.g. by the dynamic loader).
bool is_unnamed_fd_name(std::string_view path);

// Names the descriptors a recorder saw open in the traced process `mm` before it ran (record
// reads its own fds 0-2, which the command inherits; or /proc/PID/fd at attach): the file
// "pid MM fd N" of each becomes `path` with its kind (file_kind_of_path). Returns how many files
// were named.
size_t name_inherited_fds(uint64_t mm, const std::vector<std::pair<int32_t, std::string>>& fds,
                          std::vector<FileInfo>* files);

// Gives the files opened by a relative path ("data/in.txt", "../x") their kind: each path is
// resolved against `cwd`, the traced process's working directory when the recording began
// (record's own, which the command inherits, or /proc/PID/cwd at attach), and takes the kind and
// the absolute path file_kind_of_path gives it. Not followed: a chdir() during the recording, or
// an openat() relative to a directory fd; such a path is resolved against `cwd` all the same.
// Returns how many files got a kind.
size_t resolve_relative_paths(const std::string& cwd, std::vector<FileInfo>* files);

namespace detail {

// The name `c` (an openat or unlinkat) took, relative to its directory argument args[dfd_arg]:
// as given when absolute or relative to the working directory (AT_FDCWD); joined to the name
// strace -y gives that directory descriptor; else as given, with *dir_fd set to the descriptor
// for the resolver to join (FdTables::path_at()).
std::string name_at_dir_fd(const SyscallCall& c, size_t dfd_arg, std::string name, int32_t* dir_fd);

// One change to a descriptor table, in the order the calls happened.
struct FdOp {
  enum class Type : uint8_t {
    kOpen,        // fd = a new description of (path, kind, created)
    kOpenPair,    // fd and fd2 = two new descriptions of one pipe or socket pair
    kDup,         // fd2 = fd's description (fd2 closed first when open)
    kClose,       // fd ends
    kNote,        // what fd points at (strace -y on a read/write): names an fd never opened
    kCloneTable,  // the child `child_tid` shares (share) or copies the caller's table
    kConnect,     // fd connected (or is connecting) to a listener: no change to the table; the
                  // resolver may pair it with an accept (socket_pairs.h)
    kSetSndbuf,   // setsockopt(fd, SOL_SOCKET, SO_SNDBUF[FORCE], sndbuf): its send buffer
    kBind,        // fd bound to `address`: no change to the table but the socket's address
    kUnlink,      // `path` unlinked: no change to the tables (its file_truncate event finds it)
  };
  Type type = Type::kOpen;
  int32_t fd = -1;
  int32_t fd2 = -1;
  FileKind kind = FileKind::kUnknown;
  bool created = false;  // the call made the file (O_CREAT|O_EXCL, memfd, pipe; O_TRUNC, creat
                         // unless the recording saw them drop cached pages)
  std::string path;      // "" when unknown
  std::string path2;     // kOpenPair: the second fd's path
  // kOpen, kUnlink: `path` is relative to this directory descriptor (openat, unlinkat with a
  // dirfd); -1: to the working directory, or absolute.
  int32_t dir_fd = -1;
  uint64_t child_tid = 0;
  uint8_t sock_type = 0;      // socket, socketpair: SOCK_STREAM, SOCK_DGRAM, ... (0: not known)
  uint8_t family = 0;         // socket, socketpair: AF_UNIX, AF_INET, ... (0: not known)
  int32_t listen_fd = -1;     // accept: the listening socket, whose type the new one has
  uint64_t end_ns = 0;        // connect, accept: when the call returned (0: not known)
  uint64_t sndbuf = 0;        // kSetSndbuf: the value asked for (0: not known, behind a pointer)
  bool sndbuf_force = false;  // kSetSndbuf: SO_SNDBUFFORCE (no net.core.wmem_max cap)
  std::string address;        // connect, bind: an AF_UNIX sun_path ("@name": abstract), "" unknown
  bool share = false;
  bool share_known = true;  // false: clone flags not seen (clone3 under perf): the child shares
                            // the table when it shares the address space, as threads do
};

// The descriptor change a completed call makes, or false when it makes none (a failed dup, a
// pipe whose fds perf did not see).
bool fd_op_of_call(const SyscallCall& call, int64_t ret, FdOp* op);

// The resolver's descriptor tables. Table ids are chosen by the caller (the mm by default).
class FdTables {
 public:
  // File ids are 1 + the index in `files`, which the tables extend.
  explicit FdTables(std::vector<FileInfo>* files) : files_(*files) {}

  static constexpr uint32_t kNoPeer = UINT32_MAX;
  struct Description {
    uint64_t file_id = 0;
    uint64_t position = 0;  // the offset read/write advance
    uint32_t index = 0;     // this description's number (a socket end's identity)
    // A socket whose other end is in the recording (socketpair's two ends; a connect paired
    // with its accept, socket_pairs.h): that end's description, else kNoPeer.
    uint32_t peer = kNoPeer;
    uint8_t sock_type = 0;  // sockets: SOCK_STREAM, SOCK_DGRAM, ... (0: not known)
    uint8_t family = 0;     // sockets: AF_UNIX, AF_INET, ... (0: not known)
    // Sockets: what was written into this end (it goes to the peer's receive queue) and what
    // was read from it (it came from the peer's writes), in bytes or, for datagrams, messages.
    uint64_t sent = 0;
    uint64_t received = 0;
    // Sockets: the value a setsockopt(SO_SNDBUF) asked for (0: none, net.core.wmem_default),
    // and whether it was SO_SNDBUFFORCE (socket_wakeups.h sk_sndbuf_of()).
    uint64_t sndbuf = 0;
    bool sndbuf_force = false;
    std::string address;  // sockets: the address bind() gave it ("": none known)
  };
  // What `fd` of `table` points at; an fd never opened gets "pid `mm` fd N" (5).
  Description& lookup(uint64_t table, uint64_t mm, int32_t fd);
  // Applies op (not kCloneTable) to `table`.
  void apply(uint64_t table, uint64_t mm, const FdOp& op);
  // `child` becomes a copy of `parent` (dup_fd()): same fds, same descriptions.
  void copy_table(uint64_t parent, uint64_t child) { tables_[child] = tables_[parent]; }
  // Peers of descriptions not made yet, by index (description index -> its peer's): each takes
  // its peer when it is made. Descriptions are numbered in the order the ops make them, so a
  // scratch walk of the same ops in the same order (the resolver's socket pairing) numbers them
  // as this one will.
  void preset_peers(std::map<uint32_t, uint32_t> peers) { preset_peers_ = std::move(peers); }
  // The description `fd` of `table` points at, when it is open; nullptr otherwise.
  Description* find(uint64_t table, int32_t fd);
  Description& description(uint32_t index) { return descriptions_[index]; }
  // `path` as a call with `dir_fd` (FdOp::dir_fd) of `table` named it: joined to the path of the
  // directory that descriptor was opened at; `path` itself for -1 or an absolute path; "" when the
  // directory has no name (opened before the recording, or by a name the capture did not see).
  std::string path_at(uint64_t table, int32_t dir_fd, const std::string& path);
  // The file a call named `path` (an open of it), or 0.
  uint64_t file_named(const std::string& path) const;
  // The file named `path`, added (as a file from before the recording) when no call named it.
  uint64_t file_for_path(const std::string& path);
  // Whether a descriptor of some table points at file `id` now.
  bool is_open(uint64_t id) const;

 private:
  // `opened`: made by a call of the trace (else an fd inherited from before it, (5)).
  uint32_t new_description(uint64_t mm, int32_t fd, FileKind kind, bool created,
                           const std::string& path, bool opened = true);
  uint64_t file_of_path(const std::string& path, FileKind kind, bool created);
  uint32_t add_description(uint64_t file_id);

  std::vector<FileInfo>& files_;
  std::vector<Description> descriptions_;
  std::map<uint64_t, std::map<int32_t, uint32_t>> tables_;  // table -> fd -> description
  std::map<std::string, uint64_t, std::less<>> by_path_;    // path -> file id
  std::map<uint32_t, uint32_t> preset_peers_;
};

}  // namespace detail
}  // namespace mmreplay::formats
