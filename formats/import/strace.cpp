#include "formats/import/strace.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>

#include "formats/import/socket_pairs.h"
#include "formats/import/strace_args.h"
#include "formats/import/text_scan.h"

namespace mmreplay::formats {
namespace {

constexpr std::string_view kAttached = "strace: Process ";
constexpr std::string_view kUnfinished = " <unfinished ...>";
constexpr std::string_view kResumedOpen = "<... ";
constexpr std::string_view kResumedClose = " resumed>";
// Thread id given to unprefixed lines until the first thread's real id is known (0 is no tid).
constexpr uint64_t kFirstThreadPlaceholder = 0;

// Arguments each call needs to make its event (strace prints them all).
size_t required_args(Syscall sc) {
  switch (sc) {
    case Syscall::kMmap:
      return 6;
    case Syscall::kMremap:
      return 4;
    case Syscall::kMprotect:
    case Syscall::kMadvise:
    case Syscall::kMsync:  // start, len, flags
    case Syscall::kRead:
    case Syscall::kWrite:
    case Syscall::kSendto:  // fd, buf, len (the rest is not needed)
    case Syscall::kRecvfrom:
    case Syscall::kSendmsg:  // fd, msg, flags
    case Syscall::kRecvmsg:
    case Syscall::kReadv:  // fd, iovec, vlen
    case Syscall::kWritev:
      return 3;
    case Syscall::kPread64:
    case Syscall::kPwrite64:
    case Syscall::kPreadv:  // fd, iovec, vlen, offset (strace prints the whole offset once)
    case Syscall::kPwritev:
    case Syscall::kPreadv2:
    case Syscall::kPwritev2:
    case Syscall::kSendfile64:  // out_fd, in_fd, offset, count
      return 4;
    case Syscall::kCopyFileRange:  // fd_in, off_in, fd_out, off_out, len
      return 5;
    case Syscall::kProcessMadvise:
      return 4;
    case Syscall::kMunmap:
    case Syscall::kFutex:  // uaddr, op: FUTEX_WAKE does not block
      return 2;
    case Syscall::kShmat:  // shmid, shmaddr, shmflg
      return 3;
    case Syscall::kShmget:  // key, size
      return 2;
    case Syscall::kBrk:
    case Syscall::kFsync:
    case Syscall::kFdatasync:
    case Syscall::kShmdt:
    case Syscall::kWait4:  // pid: the child, or any (-1, 0, -pgid)
      return 1;
    case Syscall::kFtruncate:  // fd, length
      return 2;
    default:
      return 0;
  }
}

bool is_socket_io(Syscall sc) {
  return sc == Syscall::kSendto || sc == Syscall::kRecvfrom || sc == Syscall::kSendmsg ||
         sc == Syscall::kRecvmsg;
}

// read, write and the other calls that move data through a buffer or an iovec.
bool is_buffered_io(Syscall sc) {
  FileDataCall io;
  return syscall_file_data(sc, &io) || is_socket_io(sc);
}

// Arguments that are buffers, not values (read/write data, the iovec). copy_file_range's and
// sendfile's offsets are printed as "[N]" or NULL: the importer takes the descriptors' positions.
bool is_buffer_arg(Syscall sc, size_t index) {
  const bool io = is_buffered_io(sc);
  if (sc == Syscall::kCopyFileRange) return index == 1 || index == 3;
  if (sc == Syscall::kSendfile64) return index == 2;
  // recvfrom/sendto: the buffer, and the address struct and its length (a pointer under -y).
  const bool address = (sc == Syscall::kSendto || sc == Syscall::kRecvfrom) && index >= 4;
  return (io && index == 1) || address || (sc == Syscall::kProcessMadvise && index == 1);
}

// Calls whose first argument (mmap: fifth) is a descriptor that -y may annotate.
bool uses_fd(Syscall sc) {
  // copy_file_range's first is its source, the descriptor of its first event; sendfile's first
  // is its destination, so it is left out.
  return is_buffered_io(sc) || sc == Syscall::kFsync || sc == Syscall::kFdatasync ||
         sc == Syscall::kFtruncate || sc == Syscall::kMmap || sc == Syscall::kCopyFileRange;
}

// "20:03:45" or "20:03:45.123456": the clock time of strace -t / -tt, which has no date.
bool is_clock_time(std::string_view tok) {
  const std::string_view hms = tok.substr(0, tok.find('.'));
  size_t colons = 0;
  for (char c : hms) {
    if (c == ':') {
      ++colons;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return colons == 2 && hms.size() >= 7 && hms.size() <= 8;
}

// "mmap(NULL," : a call with no timestamp in front (strace without -t).
bool is_call_start(std::string_view tok) {
  const size_t paren = tok.find('(');
  if (paren == std::string_view::npos || paren == 0) return false;
  for (char c : tok.substr(0, paren)) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

struct Unfinished {
  uint64_t ts = 0;
  std::string name;
  std::string head;  // "ARGS" up to " <unfinished ...>"
};

class StraceParser {
 public:
  StraceParser(LineReader* lines, ImportBuilder* b) : lines_(*lines), b_(*b) {}

  Status line(std::string_view text);
  // Calls still unfinished at the end go to the builder as enters (kept when they need no
  // return value).
  void flush_unfinished();

 private:
  Status malformed(std::string_view what) const {
    return Status::corruption(
        fmt::format("{}:{}: malformed strace line: {}", lines_.name(), lines_.line_number(), what));
  }
  // The log was made without -ttt: its calls cannot be placed in time (or across threads).
  Status no_absolute_time(std::string_view what) const {
    return Status::invalid_argument(fmt::format(
        "{}:{}: strace line {}, not the seconds since the epoch of -ttt: record with `strace -f "
        "-ttt -T -o LOG CMD` (-ttt is needed; -f follows threads and children, -T gives each "
        "call's duration)",
        lines_.name(), lines_.line_number(), what));
  }
  uint64_t thread_of(std::string_view* rest, bool* ok);
  Status body(uint64_t tid, uint64_t ts, std::string_view text, std::string_view whole);
  Status call(uint64_t tid, uint64_t ts, std::string_view name, std::string_view args,
              std::string_view result);
  bool read_args(Syscall sc, std::string_view args_text, SyscallCall* call);
  bool read_fd_args(Syscall sc, SyscallCall* call, uint64_t* unknown);

  LineReader& lines_;
  ImportBuilder& b_;
  std::string carry_;  // first half of a line cut by "strace: Process N attached"
  std::string joined_;
  std::set<uint64_t> attached_;  // threads strace announced as attached children
  bool first_bound_ = false;     // the placeholder got its real id
  uint64_t first_tid_ = kFirstThreadPlaceholder;
  std::map<uint64_t, Unfinished> unfinished_;
  std::vector<std::string_view> args_;
};

uint64_t StraceParser::thread_of(std::string_view* rest, bool* ok) {
  *ok = true;
  std::string_view s = *rest;
  uint64_t tid = 0;
  if (s.starts_with("[pid ")) {
    const size_t close = s.find(']');
    if (close == std::string_view::npos || !parse_dec(trim(s.substr(5, close - 5)), &tid)) {
      *ok = false;
      return 0;
    }
    *rest = s.substr(close + 1);
  } else {
    std::string_view probe = s;
    const std::string_view first = next_token(&probe);
    std::string_view probe2 = probe;
    const std::string_view second = next_token(&probe2);
    uint64_t ts = 0;
    if (!(parse_dec(first, &tid) && parse_seconds_ns(second, &ts))) return first_tid_;
    *rest = probe;
  }
  // The first prefixed id that no clone made is the thread the unprefixed lines stood for.
  if (!first_bound_ && !b_.knows_thread(tid) && attached_.count(tid) == 0) {
    first_bound_ = true;
    if (b_.knows_thread(kFirstThreadPlaceholder)) b_.rename_thread(kFirstThreadPlaceholder, tid);
    first_tid_ = tid;
  }
  return tid;
}

Status StraceParser::line(std::string_view text) {
  if (!carry_.empty()) {
    joined_ = carry_ + std::string(text);
    carry_.clear();
    text = joined_;
  }
  const size_t attached = text.find(kAttached);
  if (attached != std::string_view::npos) {
    uint64_t tid = 0;
    std::string_view tail = text.substr(attached + kAttached.size());
    if (parse_dec(next_token(&tail), &tid)) attached_.insert(tid);
    if (attached > 0) carry_.assign(text.substr(0, attached));  // joined with the next line
    return Status::ok();
  }
  if (text.starts_with("strace: ")) return Status::ok();  // strace's own messages
  std::string_view rest = text;
  bool ok = true;
  const uint64_t tid = thread_of(&rest, &ok);
  std::string_view ts_text = next_token(&rest);
  uint64_t ts = 0;
  // -ttt always prints a fraction; a bare integer here is the PID of -f -o LOG with no -ttt.
  const bool epoch = ts_text.find('.') != std::string_view::npos && parse_seconds_ns(ts_text, &ts);
  if (!ok || !epoch) {
    if (ok) {
      uint64_t pid = 0;
      if (parse_dec(ts_text, &pid)) ts_text = next_token(&rest);  // "PID TIME" of -f -o LOG
      if (is_clock_time(ts_text)) return no_absolute_time("with a clock time (-t or -tt)");
      if (is_call_start(ts_text)) return no_absolute_time("without a timestamp");
    }
    b_.unknown_line(lines_.line_number(), text);
    return Status::ok();
  }
  return body(tid, ts, trim(rest), text);
}

Status StraceParser::body(uint64_t tid, uint64_t ts, std::string_view text,
                          std::string_view whole) {
  if (text.starts_with("+++ ")) {  // exited / killed
    b_.thread_ended(tid, ts);
    return Status::ok();
  }
  if (text.starts_with("--- ")) {  // a signal: "--- SIGCHLD {si_signo=...} ---"
    std::string_view rest = text.substr(4);
    b_.ignored_event(fmt::format("signal {}", next_token(&rest)));
    return Status::ok();
  }
  if (text.starts_with(kResumedOpen)) {
    const size_t close = text.find(kResumedClose);
    if (close == std::string_view::npos)
      return malformed("'<... NAME resumed>' without 'resumed>'");
    const std::string_view name = text.substr(kResumedOpen.size(), close - kResumedOpen.size());
    auto it = unfinished_.find(tid);
    if (it == unfinished_.end() || it->second.name != name) {
      b_.unmatched_exit();
      return Status::ok();
    }
    Unfinished u = std::move(it->second);
    unfinished_.erase(it);
    const std::string full = u.head + std::string(text.substr(close + kResumedClose.size()));
    const size_t end = strace_args_end(full);
    if (end == std::string::npos) return malformed("resumed call's arguments do not close");
    return call(tid, u.ts, u.name, std::string_view(full).substr(0, end),
                std::string_view(full).substr(end + 1));
  }
  const size_t paren = text.find('(');
  if (paren == std::string_view::npos || paren == 0) {
    b_.unknown_line(lines_.line_number(), whole);
    return Status::ok();
  }
  const std::string_view name = text.substr(0, paren);
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      b_.unknown_line(lines_.line_number(), whole);
      return Status::ok();
    }
  }
  std::string_view after = text.substr(paren + 1);
  if (after.ends_with(kUnfinished)) {
    unfinished_[tid] = Unfinished{ts, std::string(name),
                                  std::string(after.substr(0, after.size() - kUnfinished.size()))};
    return Status::ok();
  }
  const size_t end = strace_args_end(after);
  if (end == std::string_view::npos) return malformed("arguments do not close with ')'");
  return call(tid, ts, name, after.substr(0, end), after.substr(end + 1));
}

bool StraceParser::read_args(Syscall sc, std::string_view args_text, SyscallCall* c) {
  if (!split_strace_args(args_text, &args_)) return false;
  uint64_t unknown = 0;
  if (sc == Syscall::kClone || sc == Syscall::kClone3) {
    // clone(child_stack=NULL, flags=CLONE_VM|...) or clone3({flags=..., ...}, 88)
    std::string_view flags;
    for (std::string_view a : args_) {
      a = a.substr(0, a.find(" => "));  // clone3's struct as it was returned follows " => "
      flags = sc == Syscall::kClone ? (a.starts_with("flags=") ? a.substr(6) : std::string_view())
                                    : strace_keyword(a, "flags");
      if (!flags.empty()) break;
    }
    c->clone_flags_known = !flags.empty() && strace_arg_value(flags, &c->args[0], &unknown);
  } else if ((sc >= Syscall::kOpen && sc <= Syscall::kMemfdCreate) || sc == Syscall::kConnect ||
             sc == Syscall::kSetsockopt || sc == Syscall::kBind || sc == Syscall::kUnlink ||
             sc == Syscall::kUnlinkat) {
    // A descriptor call strace could not decode (a bad pointer: "pipe2(0x1, 0) = -1 EFAULT")
    // is not a malformed line: it changes no table (fd_op_of_call) and is counted by name.
    c->fd_args_known = read_fd_args(sc, c, &unknown);
  } else {
    if (args_.size() < required_args(sc)) return false;
    for (size_t i = 0; i < args_.size() && i < kMaxSyscallArgs; ++i) {
      if (is_buffer_arg(sc, i)) continue;
      if (i < required_args(sc) && !strace_arg_value(args_[i], &c->args[i], &unknown)) {
        return false;
      }
    }
    if (sc == Syscall::kProcessMadvise && !strace_iovec(args_[1], &c->ranges)) c->ranges.clear();
    // -y: what the fd of read, write, pread64, fsync and mmap points at.
    const size_t fd_index = sc == Syscall::kMmap ? 4 : 0;
    if (uses_fd(sc) && fd_index < args_.size()) c->fd_path = strace_fd_path(args_[fd_index]);
  }
  for (uint64_t i = 0; i < unknown; ++i) b_.unknown_flag_name();
  return true;
}

// The arguments of the descriptor calls (fd_table.h): the path of open/openat/creat and the name
// of memfd_create, the fds of pipe and socketpair ("[3, 4]" or "[3<pipe:[9]>, 4<pipe:[9]>]"), the
// fd arguments of dup*, close, accept* and fcntl with their -y paths, and the flags that say
// whether an open made the file. Calls whose arguments say nothing (socket, eventfd) read none.
bool StraceParser::read_fd_args(Syscall sc, SyscallCall* c, uint64_t* unknown) {
  auto fd_arg = [&](size_t i) {
    if (i >= args_.size() || !strace_arg_value(args_[i], &c->args[i], unknown)) return false;
    if (i == 0) c->fd_path = strace_fd_path(args_[i]);
    return true;
  };
  // O_ flags by name: only the three that say "created" matter here.
  auto open_flags = [&](size_t i) {
    if (i >= args_.size()) return false;
    const std::string_view f = args_[i];
    uint64_t numeric = 0;
    if (parse_u64(trim(f), &numeric)) {
      c->args[i] = numeric;
      return true;
    }
    c->args[i] = (f.find("O_TRUNC") != std::string_view::npos ? kOTrunc : 0) |
                 (f.find("O_CREAT") != std::string_view::npos ? kOCreat : 0) |
                 (f.find("O_EXCL") != std::string_view::npos ? kOExcl : 0);
    return true;
  };
  auto fd_pair = [&](size_t i) {
    if (i >= args_.size() || args_[i].size() < 2 || args_[i].front() != '[') return false;
    std::vector<std::string_view> fds;
    if (!split_strace_args(args_[i].substr(1, args_[i].size() - 2), &fds)) return false;
    for (std::string_view fd : fds) {
      uint64_t v = 0;
      if (!strace_arg_value(fd, &v, unknown)) return false;
      c->fds_out.push_back(static_cast<int32_t>(v));
      c->fds_out_paths.emplace_back(strace_fd_path(fd));
    }
    return true;
  };
  // SOCK_STREAM, SOCK_DGRAM|SOCK_CLOEXEC, ... or a number; left 0 (not known) otherwise.
  auto sock_type = [&](size_t i) {
    if (i >= args_.size()) return;
    const std::string_view t = args_[i];
    uint64_t numeric = 0;
    if (parse_u64(trim(t), &numeric)) {
      c->args[i] = numeric;
    } else if (t.find("SOCK_STREAM") != std::string_view::npos) {
      c->args[i] = kSockStream;
    } else if (t.find("SOCK_DGRAM") != std::string_view::npos) {
      c->args[i] = kSockDgram;
    } else if (t.find("SOCK_SEQPACKET") != std::string_view::npos) {
      c->args[i] = kSockSeqpacket;
    }
  };
  // AF_UNIX (AF_LOCAL), AF_INET, AF_INET6 or a number; left 0 (not known) otherwise.
  auto family = [&](size_t i) {
    if (i >= args_.size()) return;
    const std::string_view f = trim(args_[i]);
    uint64_t numeric = 0;
    if (parse_u64(f, &numeric)) {
      c->args[i] = numeric;
    } else if (f == "AF_UNIX" || f == "AF_LOCAL") {
      c->args[i] = kAfUnix;
    } else if (f == "AF_INET") {
      c->args[i] = kAfInet;
    } else if (f == "AF_INET6") {
      c->args[i] = kAfInet6;
    }
  };
  // openat's and unlinkat's directory: AT_FDCWD, or a descriptor ("3", "3</tmp/d>" under -y,
  // whose name goes to fd_path).
  auto dir_fd = [&](size_t i) {
    std::string_view dfd = trim(args_[i]);
    c->fd_path = strace_fd_path(dfd);
    dfd = dfd.substr(0, dfd.find('<'));
    if (!parse_u64(dfd, &c->args[i])) c->args[i] = kAtFdcwd;  // "AT_FDCWD"
  };
  switch (sc) {
    case Syscall::kOpen:
      return strace_string(args_.empty() ? "" : args_[0], &c->path) && open_flags(1);
    case Syscall::kOpenat:
      if (args_.size() < 3 || !strace_string(args_[1], &c->path)) return false;
      dir_fd(0);
      return open_flags(2);
    case Syscall::kCreat:
    case Syscall::kMemfdCreate:
    case Syscall::kUnlink:
      return strace_string(args_.empty() ? "" : args_[0], &c->path);
    case Syscall::kUnlinkat: {
      // unlinkat(AT_FDCWD, "f", 0), or relative to a directory fd that -y names
      // ("unlinkat(3</tmp/d>, "f", 0)"): the path is joined to it. AT_REMOVEDIR: a directory.
      if (args_.size() < 3 || !strace_string(args_[1], &c->path)) return false;
      dir_fd(0);
      uint64_t flag = 0;
      if (args_[2].find("AT_REMOVEDIR") != std::string_view::npos ||
          (parse_u64(trim(args_[2]), &flag) && (flag & kAtRemovedir) != 0)) {
        c->args[2] = kAtRemovedir;
      }
      return true;
    }
    case Syscall::kPipe:
    case Syscall::kPipe2:
      return fd_pair(0);
    case Syscall::kSocketpair:
      sock_type(1);
      return fd_pair(3);
    case Syscall::kSocket:
      family(0);
      sock_type(1);
      return true;
    case Syscall::kDup2:
    case Syscall::kDup3:
      return fd_arg(0) && fd_arg(1);
    case Syscall::kFcntl:
      if (!fd_arg(0) || args_.size() < 2) return false;
      c->args[1] = trim(args_[1]) == "F_DUPFD"           ? kFDupfd
                   : trim(args_[1]) == "F_DUPFD_CLOEXEC" ? kFDupfdCloexec
                                                         : kFDupfd + 1;  // another command
      return true;
    case Syscall::kDup:
    case Syscall::kClose:
    case Syscall::kAccept:
    case Syscall::kAccept4:
      return fd_arg(0);
    case Syscall::kConnect:
    case Syscall::kBind: {
      // connect(5, {sa_family=AF_UNIX, sun_path="/tmp/a"}, 110): the address, for pairing
      // (an abstract name prints as sun_path=@"name"); for IP, connect(5, {sa_family=AF_INET,
      // sin_port=htons(5000), sin_addr=inet_addr("127.0.0.1")}, 16): the port (socket_pairs.h).
      if (!fd_arg(0)) return false;
      if (args_.size() < 2) return true;
      constexpr std::string_view kSunPath = "sun_path=";
      std::string_view a = args_[1];
      for (std::string_view key : {"sin_port=htons(", "sin6_port=htons("}) {
        const size_t p = a.find(key);
        if (p == std::string_view::npos) continue;
        const std::string_view digits = a.substr(p + key.size());
        uint64_t port = 0;
        if (parse_dec(digits.substr(0, digits.find(')')), &port) && port != 0 && port <= 0xffff) {
          c->path = detail::ip_port_address(static_cast<uint16_t>(port));
        }
        return true;
      }
      const size_t at = a.find(kSunPath);
      if (at == std::string_view::npos) return true;
      a = a.substr(at + kSunPath.size());
      const bool abstract = a.starts_with('@');
      if (abstract) a.remove_prefix(1);
      if (!a.starts_with('"')) return true;
      const size_t end = a.find('"', 1);
      if (end == std::string_view::npos) return true;
      c->path = (abstract ? "@" : "") + std::string(a.substr(1, end - 1));
      return true;
    }
    case Syscall::kSetsockopt: {
      // setsockopt(3<UNIX:[9]>, SOL_SOCKET, SO_SNDBUF, [65536], 4): the int behind optval.
      if (!fd_arg(0) || args_.size() < 4) return false;
      auto named = [&](size_t i, std::string_view name, uint64_t value) {
        const std::string_view a = trim(args_[i]);
        if (a == name) {
          c->args[i] = value;
          return true;
        }
        return parse_u64(a, &c->args[i]);
      };
      const std::string_view name = trim(args_[2]);
      if (!named(1, "SOL_SOCKET", kSolSocket) ||
          !named(2, name == "SO_SNDBUFFORCE" ? "SO_SNDBUFFORCE" : "SO_SNDBUF",
                 name == "SO_SNDBUFFORCE" ? kSoSndbufforce : kSoSndbuf)) {
        return true;  // another level or option: no descriptor change (counted as ignored)
      }
      std::string_view v = trim(args_[3]);
      if (v.starts_with('[') && v.ends_with(']')) v = v.substr(1, v.size() - 2);
      c->optval_known = parse_u64(trim(v), &c->args[3]);
      return true;
    }
    default:  // eventfd, eventfd2: the kind is the call's
      return true;
  }
}

Status StraceParser::call(uint64_t tid, uint64_t ts, std::string_view name,
                          std::string_view args_text, std::string_view result) {
  SyscallCall c;
  if (!syscall_from_name(name, &c.sc)) {
    b_.ignored_event(name);
    return Status::ok();
  }
  if (!read_args(c.sc, args_text, &c)) {
    return malformed(fmt::format("cannot read the arguments of {}()", name));
  }
  bool has_return = false;
  int64_t ret = 0;
  uint64_t duration = kNoDuration;
  std::string_view ret_path;
  if (!strace_result(result, &has_return, &ret, &duration, &ret_path)) {
    return malformed(fmt::format("{}() has no ' = RESULT'", name));
  }
  c.ret_path.assign(ret_path);
  if (c.sc == Syscall::kExit || c.sc == Syscall::kExitGroup) {
    b_.syscall_enter(tid, ts, std::move(c));  // the thread ends here
    return Status::ok();
  }
  BlockCall block;
  if (!has_return && duration != kNoDuration && syscall_block_call(c.sc, c.args, &block)) {
    // "= ? ERESTART_RESTARTBLOCK (Interrupted by signal) <0.1>": blocked that long, then a signal
    b_.syscall_complete(tid, ts, duration, std::move(c), -kEintr);
    return Status::ok();
  }
  if (!has_return) {  // killed inside the call
    b_.syscall_enter(tid, ts, std::move(c));
    return Status::ok();
  }
  b_.syscall_complete(tid, ts, duration, std::move(c), ret);
  return Status::ok();
}

void StraceParser::flush_unfinished() {
  for (auto& [tid, u] : unfinished_) {
    SyscallCall c;
    if (!syscall_from_name(u.name, &c.sc) || !read_args(c.sc, u.head, &c)) continue;
    b_.syscall_enter(tid, u.ts, std::move(c));
  }
  unfinished_.clear();
}

}  // namespace

Status parse_strace(LineReader* lines, ImportBuilder* builder, RecorderInfo* recorder) {
  recorder->tool = "strace";
  StraceParser parser(lines, builder);
  std::string_view text;
  while (lines->next(&text)) {
    builder->count_line();
    if (trim(text).empty()) continue;
    Status s = parser.line(text);
    if (!s) return s;
  }
  parser.flush_unfinished();
  return lines->status();
}

}  // namespace mmreplay::formats
