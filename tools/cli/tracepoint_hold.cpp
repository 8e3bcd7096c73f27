#include "tools/cli/tracepoint_hold.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "tools/cli/proc_number.h"
#include "tools/cli/record_perf.h"

namespace mmreplay::tools {
namespace {

// perf probe puts its uprobes in groups named probe_<binary> ("probe_libc").
constexpr std::string_view kProbeGroupPrefix = "probe_";

// One disabled counting event on tracepoint `id`, for the calling task: it registers the
// tracepoint for perf (perf_trace_event_reg()) and records nothing.
int open_tracepoint_event(uint64_t id) {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.size = sizeof(attr);
  attr.config = id;
  attr.disabled = 1;
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// The helper's life after fork(): only async-signal-safe calls, nothing allocated. Holds the
// events, says how many, and exits once `release_fd` reaches end of file.
[[noreturn]] void run_helper(const std::vector<uint64_t>& ids, int ready_fd, int release_fd) {
  // Off every descriptor of the caller's but its two pipes, stdout and stderr above all: a test
  // harness (or a shell's pipe) waiting for their end of file must not wait for this process,
  // which never writes to them.
  const unsigned lo = static_cast<unsigned>(std::min(ready_fd, release_fd));
  const unsigned hi = static_cast<unsigned>(std::max(ready_fd, release_fd));
  if (lo > 0) ::close_range(0, lo - 1, 0);
  ::close_range(lo + 1, hi - 1, 0);
  ::close_range(hi + 1, ~0U, 0);
  // One descriptor a tracepoint: --all-syscalls asks for some 700, near the usual soft limit.
  if (rlimit r; ::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &r);
  }
  uint32_t held = 0;
  for (const uint64_t id : ids) held += open_tracepoint_event(id) >= 0 ? 1 : 0;
  (void)!::write(ready_fd, &held, sizeof(held));
  ::close(ready_fd);
  char c;
  while (::read(release_fd, &c, 1) < 0 && errno == EINTR) {
  }
  ::_exit(0);  // the kernel closes the events here, waiting out their grace periods
}

}  // namespace

std::vector<uint64_t> tracepoint_ids(const std::string& events, const std::string& events_dir) {
  std::vector<uint64_t> ids;
  // The id of tracepoint `group`/`name`, when tracefs has one.
  auto add = [&](const std::string& group, const std::string& name) {
    if (const auto id = read_proc_number(events_dir + "/" + group + "/" + name + "/id"))
      ids.push_back(*id);
  };
  std::istringstream list(events);
  std::string entry;
  while (std::getline(list, entry, ',')) {
    const size_t colon = entry.find(':');
    if (colon == std::string::npos) continue;
    const std::string group = entry.substr(0, colon), name = entry.substr(colon + 1);
    if (group.starts_with(kProbeGroupPrefix) || group.find_first_of("*?[") != std::string::npos)
      continue;
    if (name.find_first_of("*?[") == std::string::npos) {
      add(group, name);
      continue;
    }
    // A wildcard (--all-syscalls' "syscalls:*": some 700 tracepoints) names what perf will open:
    // every tracepoint of the group it matches.
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(events_dir + "/" + group, ec)) {
      const std::string found = e.path().filename().string();
      if (e.is_directory(ec) && ::fnmatch(name.c_str(), found.c_str(), 0) == 0) add(group, found);
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

TracepointHold::TracepointHold(const std::string& events) {
  std::vector<uint64_t> ids;
  for (const char* dir : kTracefsEvents) {
    ids = tracepoint_ids(events, dir);
    if (!ids.empty()) break;
  }
  if (ids.empty()) return;
  int ready[2];
  int release[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return;
  if (::pipe2(release, O_CLOEXEC) != 0) {
    ::close(ready[0]);
    ::close(ready[1]);
    return;
  }
  // Forked twice: the helper is nobody's child to wait for, and outlives record in peace.
  const pid_t middle = ::fork();
  if (middle == 0) {
    if (::fork() == 0) {
      ::close(ready[0]);
      ::close(release[1]);
      run_helper(ids, ready[1], release[0]);
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(release[0]);
  if (middle < 0) {
    ::close(ready[0]);
    ::close(release[1]);
    return;
  }
  int status = 0;
  while (::waitpid(middle, &status, 0) < 0 && errno == EINTR) {
  }
  uint32_t held = 0;
  ssize_t n;
  while ((n = ::read(ready[0], &held, sizeof(held))) < 0 && errno == EINTR) {
  }
  ::close(ready[0]);
  held_ = n == static_cast<ssize_t>(sizeof(held)) ? held : 0;
  release_fd_ = release[1];
}

TracepointHold::~TracepointHold() {
  if (release_fd_ >= 0) ::close(release_fd_);
}

}  // namespace mmreplay::tools
