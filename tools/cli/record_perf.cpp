#include "tools/cli/record_perf.h"

#include <fmt/format.h>

#include <netinet/in.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <signal.h>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "formats/import/perf_script.h"
#include "formats/import/text_scan.h"

extern char** environ;

namespace mmreplay::tools {
namespace {

constexpr const char* kPageCacheDeleteEvent = "filemap/mm_filemap_delete_from_page_cache";
constexpr const char* kPageCacheDeleteTracepoint = "filemap:mm_filemap_delete_from_page_cache";
// Where record mounts tracefs when it is missing (the kernel's own mount point since 4.1).
constexpr const char* kTracefsMountPoint = "/sys/kernel/tracing";
constexpr const char* kParanoidPath = "/proc/sys/kernel/perf_event_paranoid";
// Tracepoints need perf_event_paranoid <= -1 without CAP_PERFMON/CAP_SYS_ADMIN.
constexpr int kParanoidForTracepoints = -1;
constexpr int kSignalExitBase = 128;

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

}  // namespace

std::vector<std::string> default_record_syscalls() {
  return {"mmap", "munmap", "mremap", "mprotect", "brk", "madvise", "process_madvise", "read",
          "pread64", "write", "fsync", "clone", "clone3", "exit", "exit_group",
          // file data by the other calls that move it, and copies inside the kernel (cp's
          // copy_file_range, shutil's sendfile)
          "pwrite64", "readv", "writev", "preadv", "pwritev", "preadv2", "pwritev2",
          "copy_file_range", "sendfile64",
          // fsync without the metadata: sqlite's commits; truncation of a file's page cache
          "fdatasync", "ftruncate",
          // the last name of a file going, and its pages with it (or at its last close)
          "unlink", "unlinkat",
          // descriptors: which file each fd is, of which kind (formats/import/fd_table.h)
          "open", "openat", "creat", "socket", "socketpair", "pipe", "pipe2", "dup", "dup2", "dup3",
          "fcntl", "close", "accept", "accept4", "eventfd", "eventfd2", "memfd_create",
          // sockets: their data by the socket calls' names, and connects for pairing the ends
          // (formats/import/socket_wakeups.h, socket_pairs.h)
          "sendto", "recvfrom", "sendmsg", "recvmsg", "connect",
          // a socket's send buffer (SO_SNDBUF), whose value record's probe fetches
          "setsockopt",
          // the addresses listeners are bound to (their sun_path by record's probe)
          "bind",
          // blocking calls: their durations are the threads' off-CPU time (block events)
          "futex", "nanosleep", "clock_nanosleep", "poll", "ppoll", "epoll_wait", "epoll_pwait",
          "select", "pselect6", "wait4", "waitid",
          // process lifecycle: forks start children, execs give a process a new mm
          "fork", "vfork", "execve", "execveat",
          // System V shared memory: attaches are mappings
          "shmget", "shmat", "shmdt",
          // a shared file mapping's dirty pages written and waited for (MS_SYNC)
          "msync"};
}

std::string perf_event_list(const std::vector<std::string>& syscalls, bool faults,
                            bool ground_truth) {
  std::string list;
  auto add = [&list](const std::string& e) { list += (list.empty() ? "" : ",") + e; };
  for (const std::string& s : syscalls) {
    add("syscalls:sys_enter_" + s);
    if (s != "exit" && s != "exit_group") add("syscalls:sys_exit_" + s);
  }
  // When a blocked thread was woken: its blocking call ends there, and the wait for a CPU
  // between the wake-up and the call's return is left to the replay's scheduler
  // (formats/import/perf_script.h). perf sees the wake-ups its traced threads do and those that
  // land while one of them runs, which covers a wake-up onto a CPU busy with the program, the
  // case with such a wait; one from the idle task is not seen, and its call keeps its length.
  add("sched:sched_wakeup");
  if (faults) {
    add("exceptions:page_fault_user");
    // Faults the kernel takes on user memory (copy_to_user into a fresh buffer): dd's 64 MiB
    // read from /dev/zero faults here, not in user mode.
    add("exceptions:page_fault_kernel");
    // Each page a truncation drops (open O_TRUNC, ftruncate): how much of the file was cached,
    // which no syscall argument tells. Only where this kernel has it (4.14+ names it so).
    for (const char* events : kTracefsEvents) {
      if (exists(std::string(events) + "/" + kPageCacheDeleteEvent)) {
        add(kPageCacheDeleteTracepoint);
        break;
      }
    }
  }
  if (ground_truth) {
    add("mmap_lock:*");
    add("lock:contention_begin");
    add("lock:contention_end");
    add("tlb:tlb_flush");
  }
  return list;
}

namespace {

// The first executable `name` in the folders of PATH, or "".
std::string search_path(const std::string& name) {
  const char* env = std::getenv("PATH");
  const std::string dirs = env ? env : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t colon = dirs.find(':', start);
    const std::string dir = dirs.substr(start, colon - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

}  // namespace

std::string record_buffer_size(bool root, uint64_t memory_bytes, uint32_t cpus) {
  if (!root || cpus == 0) return "";
  uint64_t per_cpu = kRecordBufferPerCpu;
  while (per_cpu > kPerfDefaultBufferPerCpu && per_cpu * cpus > memory_bytes / 64) per_cpu /= 2;
  if (per_cpu <= kPerfDefaultBufferPerCpu) return "";
  return per_cpu >= (uint64_t{1} << 20) ? fmt::format("{}M", per_cpu >> 20)
                                        : fmt::format("{}K", per_cpu >> 10);
}

bool valid_mmap_size(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9) return false;
  const std::string_view unit = text.substr(digits);
  return unit.empty() || unit == "B" || unit == "K" || unit == "M" || unit == "G";
}

Status find_perf(std::string* path) {
  *path = search_path("perf");
  if (!path->empty()) return Status::ok();
  // What the machine lacks or forbids is the environment's failure (exit 1), not bad input.
  return Status::io_error(
      "perf: not found on PATH; install it (Debian: apt-get install linux-perf)");
}

Status resolve_command(const std::string& name, std::string* path) {
  if (name.find('/') == std::string::npos) {
    *path = search_path(name);
    if (path->empty()) return Status::not_found(name + ": command not found on PATH");
    return Status::ok();
  }
  struct stat st;
  if (::stat(name.c_str(), &st) != 0) {
    return Status::not_found(name + ": cannot run: " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode) || ::access(name.c_str(), X_OK) != 0) {
    return Status::not_found(name + ": cannot run: not an executable file");
  }
  *path = name;
  return Status::ok();
}

std::vector<std::string> perf_script_argv(const std::string& perf, const std::string& data) {
  // Switch events: the threads' off-CPU time; lost events: what perf dropped, said in the report;
  // mmap events: the paths of the libraries the dynamic loader opened (perf_script.cpp).
  std::vector<std::string> argv = {perf, "script", "-i", data, "--header", "-F"};
  argv.insert(argv.end(), {"comm,pid,tid,cpu,time,event,trace", "--ns", "--show-switch-events",
                           "--show-lost-events", "--show-mmap-events"});
  return argv;
}

Status check_perf_permitted() {
  bool tracefs = false;
  for (const char* p : kTracefsEvents) tracefs = tracefs || exists(std::string(p) + "/syscalls");
  if (!tracefs && ::geteuid() == 0 &&
      ::mount("nodev", kTracefsMountPoint, "tracefs", 0, nullptr) == 0) {
    tracefs = exists(std::string(kTracefsEvents[0]) + "/syscalls");
  }
  if (!tracefs && ::geteuid() != 0 && ::access(kTracefsMountPoint, R_OK | X_OK) != 0 &&
      errno == EACCES) {
    return Status::io_error(
        "perf is not permitted to read tracefs (/sys/kernel/tracing is root's only): run as root, "
        "or make it readable (`chmod -R o+rx /sys/kernel/tracing` as root)");
  }
  if (!tracefs) {
    return Status::io_error(
        "tracefs is not mounted (no /sys/kernel/tracing/events/syscalls): run `mount -t tracefs "
        "nodev /sys/kernel/tracing` as root");
  }
  if (::geteuid() == 0) return Status::ok();
  std::ifstream in(kParanoidPath);
  int paranoid = 2;
  in >> paranoid;
  if (paranoid > kParanoidForTracepoints) {
    return Status::io_error(
        "perf is not permitted to record tracepoints (kernel.perf_event_paranoid = " +
        std::to_string(paranoid) +
        "): run as root, or `sysctl -w kernel.perf_event_paranoid=-1` and make tracefs readable");
  }
  return Status::ok();
}

Status run_program(const std::vector<std::string>& argv, const std::string& stdout_path,
                   bool quiet_stderr, uint64_t* wall_ns, int* exit_status) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!stdout_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  if (quiet_stderr) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  // As system() does: Ctrl-C and Ctrl-\ go to the program (perf stops recording and writes its
  // data) while record waits for it and goes on to convert what was recorded.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  struct sigaction ignore = {}, old_int = {}, old_quit = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  int status = 0;
  bool waited = rc == 0;
  while (waited && ::waitpid(pid, &status, 0) < 0) waited = errno == EINTR;
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (rc != 0) {
    return Status::from_errno(rc, argv[0] + ": cannot run: " + std::strerror(rc));
  }
  if (!waited) return Status::io_error(argv[0] + ": waitpid failed");
  *wall_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : kSignalExitBase + WTERMSIG(status);
  return Status::ok();
}

namespace {

// Where Debian, Fedora and most distributions keep glibc.
constexpr const char* kLibcPaths[] = {"/lib/x86_64-linux-gnu/libc.so.6",
                                      "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6",
                                      "/usr/lib64/libc.so.6"};

// Runs `perf args...` with its stdout to `stdout_path` and its stderr dropped; true when it ran
// and exited 0 (perf probe's adds, deletes and lists).
bool run_perf(const std::string& perf, std::vector<std::string> args,
              const std::string& stdout_path = "/dev/null") {
  args.insert(args.begin(), perf);
  uint64_t wall = 0;
  int status = 0;
  return run_program(args, stdout_path, /*quiet_stderr=*/true, &wall, &status) && status == 0;
}

}  // namespace

int probe_owner(std::string_view event) {
  const std::string prefix = fmt::format("{}:mmreplay_", formats::kOpenProbeGroup);
  if (!event.starts_with(prefix)) return 0;
  constexpr std::string_view kReturn = "__return";
  if (event.ends_with(kReturn)) event.remove_suffix(kReturn.size());
  uint64_t pid = 0;
  if (!formats::parse_dec(event.substr(event.rfind('_') + 1), &pid) || pid > INT32_MAX) return 0;
  return static_cast<int>(pid);
}

int remove_orphaned_probes(const std::string& perf) {
  char list[] = "/tmp/trace-replay-probes.XXXXXX";
  const int fd = ::mkstemp(list);
  if (fd < 0) return 0;
  ::close(fd);
  int removed = 0;
  if (run_perf(perf, {"probe", "-l"}, list)) {
    std::ifstream in(list);
    std::string line;
    while (std::getline(in, line)) {
      const size_t start = line.find_first_not_of(' ');
      if (start == std::string::npos) continue;
      const std::string event = line.substr(start, line.find(' ', start) - start);
      const int pid = probe_owner(event);
      if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
      if (run_perf(perf, {"probe", "-q", "-d", event})) ++removed;
    }
  }
  ::unlink(list);
  return removed;
}

void OpenProbes::want(const std::string& event, const std::string& spec, const char* without) {
  wanted_.push_back(Wanted{event, spec, without});
}

bool OpenProbes::place_one(const std::string& libc, const Wanted& w) {
  if (!run_perf(perf_, {"probe", "-q", "-x", libc, "-a", w.spec})) {
    if (w.without != nullptr) {
      // The function: between "NAME=" and the first blank or "%return".
      const size_t from = w.spec.find('=') + 1;
      const std::string function = w.spec.substr(from, w.spec.find_first_of(" %", from) - from);
      std::fprintf(stderr,
                   "trace-replay record: warning: perf probe could not place a probe on %s in %s: "
                   "%s\n",
                   function.c_str(), libc.c_str(), w.without);
    }
    return false;
  }
  return true;
}

void OpenProbes::place(const std::string& libc) {
  // One perf probe run for all of them: each run reads glibc's symbols again (about 0.2 s here,
  // 2 s for the 13 probes one by one). perf adds none when it refuses one, so then each goes
  // alone, and a refused one is warned of by name.
  std::vector<std::string> argv = {"probe", "-q", "-x", libc};
  for (const Wanted& w : wanted_) argv.insert(argv.end(), {"-a", w.spec});
  const bool all = run_perf(perf_, argv);
  for (const Wanted& w : wanted_) {
    if (!all && !place_one(libc, w)) continue;
    added_.push_back(fmt::format("{}:{}", formats::kOpenProbeGroup, w.event));
    events_ += (events_.empty() ? "" : ",") + added_.back();
  }
  wanted_.clear();
}

OpenProbes::OpenProbes(const std::string& perf) : perf_(perf) {
#if defined(__x86_64__)
  remove_orphaned_probes(perf);
  std::string libc;
  for (const char* p : kLibcPaths) {
    if (exists(p)) {
      libc = p;
      break;
    }
  }
  if (libc.empty()) return;
  // The path is the first argument of open64 (%di) and the second of openat64 (%si) in the
  // x86-64 calling convention; glibc's internal __open calls are the same function as open64,
  // and its _nocancel variants open locale, gconv and nss files. A function this glibc does not
  // have (the _nocancel ones are internal symbols) is skipped.
  struct Probe {
    const char* suffix;
    const char* function;
    const char* fetch;
    const char* without;  // what the recording lacks without it (null: nothing to say)
  };
  constexpr const char* kNoPaths = "files the program opens this way stay unnamed";
  constexpr const char* kNoUnlinks = "files the program removes this way keep their pages";
  // unlink() and unlinkat() name the file they remove the same way (its pages go with the name).
  constexpr Probe kProbes[] = {{"", "open64", "+0(%di):string", kNoPaths},
                               {"at", "openat64", "+0(%si):string", kNoPaths},
                               {"_nc", "__open64_nocancel", "+0(%di):string", nullptr},
                               {"at_nc", "__openat64_nocancel", "+0(%si):string", nullptr},
                               {"_unlink", "unlink", "+0(%di):string", kNoUnlinks},
                               {"_unlinkat", "unlinkat", "+0(%si):string", kNoUnlinks}};
  for (const auto& [suffix, function, fetch, without] : kProbes) {
    const std::string name = fmt::format("{}{}_{}", formats::kOpenProbePrefix, suffix, ::getpid());
    want(name, fmt::format("{}={} path={}", name, function, fetch), without);
  }
  // The descriptors pipe() and pipe2() return sit in the array their first argument points at,
  // which perf's sys_exit_pipe2 does not print. glibc's wrappers are the bare syscall, which
  // leaves %di alone, so a return probe still finds the array there, filled. perf names a
  // return probe's event NAME__return.
  for (const char* function : {"pipe", "pipe2"}) {
    const std::string name =
        fmt::format("{}_{}_{}", formats::kPipeProbePrefix, function, ::getpid());
    want(
        name + "__return",
        fmt::format("{}={}%return fd0=+0(%di):s32 fd1=+4(%di):s32 ret=$retval:s32", name, function),
        "the pipes' descriptors are not known, and their reads and writes replay as regular "
        "files'");
  }
  // socketpair(domain, type, protocol, sv): glibc's wrapper moves sv (%cx) to %r10 for the
  // syscall, which clobbers %rcx but keeps %r10, so the return probe reads the array there.
  {
    const std::string name = fmt::format("{}_socketpair_{}", formats::kPipeProbePrefix, ::getpid());
    want(
        name + "__return",
        fmt::format("{}=socketpair%return fd0=+0(%r10):s32 fd1=+4(%r10):s32 ret=$retval:s32", name),
        "socketpair's descriptors are not known, and their reads and writes replay as regular "
        "files'");
  }
  // process_madvise(pidfd, iovec (%si), vlen (%dx), advice (%cx), flags): its ranges sit in the
  // iovec array, which sys_enter_process_madvise prints only as a pointer. An entry probe on
  // glibc's wrapper (2.36+; skipped where it is missing) fetches the array's first entries.
  {
    const std::string name = fmt::format("{}_{}", formats::kVectorProbePrefix, ::getpid());
    std::string spec = fmt::format("{}=process_madvise vlen=%dx:u64 advice=%cx:s32", name);
    for (size_t i = 0; i < formats::kVectorProbeRanges; ++i) {
      const size_t at = i * sizeof(struct iovec);
      spec +=
          fmt::format(" b{0}=+{1}(%si):x64 l{0}=+{2}(%si):u64", i,
                      at + offsetof(struct iovec, iov_base), at + offsetof(struct iovec, iov_len));
    }
    want(name, spec, "process_madvise's ranges are not known, and its calls replay as no-ops");
  }
  // setsockopt(fd, level, optname, optval (%cx), optlen): SO_SNDBUF's int sits behind optval,
  // which sys_enter_setsockopt prints only as a pointer. An entry probe fetches it.
  {
    const std::string name = fmt::format("{}_{}", formats::kSockoptProbePrefix, ::getpid());
    want(name, fmt::format("{}=setsockopt val=+0(%cx):s32", name),
         "SO_SNDBUF sizes are not known, and sockets keep wmem_default");
  }
  // connect(fd, addr (%si), len) and bind(fd, addr (%si), len): a sockaddr is the family (2
  // bytes), then an AF_UNIX sun_path, or an IP port (sin_port and sin6_port, network order),
  // which the tracepoints print only as a pointer. An abstract AF_UNIX name is a 0 byte and the
  // name after it (`abstract`). The paths come last: for an IP address their bytes are not text.
  for (const char* function : {"connect", "bind"}) {
    const std::string name =
        fmt::format("{}_{}_{}", formats::kSockaddrProbePrefix, function, ::getpid());
    static_assert(offsetof(struct sockaddr_in, sin_port) ==
                  offsetof(struct sockaddr_in6, sin6_port));
    want(name,
         fmt::format("{}={} fam=+0(%si):u16 port=+{}(%si):u16 abstract=+{}(%si):string "
                     "path=+{}(%si):string",
                     name, function, offsetof(struct sockaddr_in, sin_port),
                     offsetof(struct sockaddr_un, sun_path) + 1,
                     offsetof(struct sockaddr_un, sun_path)),
         "socket addresses are not known, and connected sockets are not paired");
  }
  place(libc);
#endif
}

OpenProbes::~OpenProbes() {
  if (added_.empty()) return;
  // One run for all (see place()); one each when perf refuses that.
  std::vector<std::string> argv = {"probe", "-q"};
  for (const std::string& event : added_) argv.insert(argv.end(), {"-d", event});
  if (run_perf(perf_, argv)) return;
  for (const std::string& event : added_) (void)run_perf(perf_, {"probe", "-q", "-d", event});
}

std::vector<std::pair<int32_t, std::string>> open_fds(const std::string& proc_fd_dir,
                                                      int32_t max_fd) {
  std::vector<std::pair<int32_t, std::string>> fds;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc_fd_dir, ec)) {
    const std::string name = entry.path().filename().string();
    char* end = nullptr;
    const long fd = std::strtol(name.c_str(), &end, 10);
    if (end == name.c_str() || *end != '\0' || fd < 0 || fd > max_fd) continue;
    std::error_code link_ec;
    const auto target = std::filesystem::read_symlink(entry.path(), link_ec);
    if (!link_ec) fds.emplace_back(static_cast<int32_t>(fd), target.string());
  }
  return fds;
}

}  // namespace mmreplay::tools
