// The swap-in probe: a read of one page from swap, its wait and its CPU time.
//
// A page pushed out with MADV_PAGEOUT stays in the swap cache after its write, so reading it back
// takes a minor fault, not a read: the probe runs in a child process inside a memory cgroup of
// its own (pressure_sandbox.h) and empties the group's swap cache before each pass
// (memory.force_empty / memory.reclaim). /proc/sys/vm/page-cluster is set to 0 for the probe
// (and put back), so that each major fault reads its one page: swapin_nr_pages() returns 1 then,
// for the cluster and the VMA readahead alike. Each repetition runs two passes over the same
// region, pushed out anew before each:
//   A: the swap cache emptied first: a major fault a page (do_swap_page() -> swap_readpage());
//   B: the swap cache kept: a minor fault a page on the same path, with no read.
// swap_read_cpu = A's CPU time a fault - B's: the read's submission, its wake-up, and whatever
// of its completion lands on the faulting task; swap_in = A's wall time a fault - its CPU time:
// what the task waited for the device. Root only (the group, page-cluster).

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tools/calibrate/host_swap.h"
#include "tools/calibrate/pressure_sandbox.h"
#include "tools/calibrate/probes.h"

// The uapi value (include/uapi/asm-generic/mman-common.h, 5.4+), for older headers; a kernel
// without it refuses the call and the probe says so.
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPage = 4096;
constexpr const char* kPageCluster = "/proc/sys/vm/page-cluster";
// How long the child may take. Its repetitions take about a second on the PVM guest with a
// virtio disk (2 x 9 passes of a few thousand faults); a child stuck in its group's reclaim (a
// device that stopped answering, a cgroup that cannot be emptied) is killed and the probe skipped
// rather than calibrate waiting forever with page-cluster at 0.
constexpr int kChildTimeoutSeconds = 120;

// Sets /proc/sys/vm/page-cluster for its lifetime and puts the old value back. Two probes at once
// (two calibrations, as ctest -j runs them) would each read the other's 0 as the old value and
// leave it behind, so the setting is held under an exclusive flock(2) of kLockFile, and the old
// value is written into that file until it is put back: a probe killed in between (SIGKILL, a
// crash) leaves it there, and the next probe restores that value, not the 0 it finds.
constexpr const char* kLockFile = "/run/lock/mmreplay-page-cluster";

class PageClusterSetting {
 public:
  explicit PageClusterSetting(int value) {
    lock_fd_ = ::open(kLockFile, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX) != 0) return;
    char saved[16] = {};
    const ssize_t got = ::pread(lock_fd_, saved, sizeof saved - 1, 0);
    std::ifstream in(kPageCluster);
    if (!(in >> old_)) return;
    if (got > 0) old_ = std::atoi(saved);  // left by a probe that did not finish
    const std::string text = std::to_string(old_);
    if (::pwrite(lock_fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
      return;
    std::ofstream out(kPageCluster);
    out << value;
    out.flush();
    set_ = static_cast<bool>(out);
  }
  ~PageClusterSetting() {
    if (set_) {
      std::ofstream out(kPageCluster);
      out << old_;
      out.flush();
      if (out && ::ftruncate(lock_fd_, 0) != 0) {
        // The saved value stays; the next probe puts the same value back.
      }
    }
    if (lock_fd_ >= 0) ::close(lock_fd_);  // and with it the lock
  }
  PageClusterSetting(const PageClusterSetting&) = delete;
  PageClusterSetting& operator=(const PageClusterSetting&) = delete;
  bool set() const { return set_; }

 private:
  int lock_fd_ = -1;
  int old_ = 0;
  bool set_ = false;
};

// One pass over `pages` pages pushed out to swap: each read once.
struct Pass {
  uint64_t wall_ns = 0;
  uint64_t cpu_ns = 0;
  long major = 0;
  long minor = 0;
};

// What stopped the child: its exit status, and what the parent says.
enum ChildExit : int { kOk = 0, kJoin, kMmap, kPageout, kReclaim, kPipe };
const char* child_failure(int status) {
  switch (status) {
    case kJoin:
      return "the child could not join the memory cgroup";
    case kMmap:
      return "the child's mmap failed";
    case kPageout:
      return "MADV_PAGEOUT failed (a kernel before 5.4?)";
    case kReclaim:
      return "the group's swap cache could not be emptied (memory.force_empty / memory.reclaim)";
    case kPipe:
      return "the child could not write its figures";
    default:
      return "the probe's child failed";
  }
}

// Writes every page (distinct values), pushes the region out, empties the group's swap cache
// when `drop` is set, and times a read of each page. kOk, or what failed.
ChildExit run_pass(char* p, size_t pages, const MemcgSandbox& group, bool drop, Pass* out) {
  for (size_t i = 0; i < pages; ++i) p[i * kPage] = static_cast<char>(i + 1);
  if (::madvise(p, pages * kPage, MADV_PAGEOUT) != 0) return kPageout;
  if (drop && !group.reclaim_all().empty()) return kReclaim;
  rusage before{}, after{};
  ::getrusage(RUSAGE_SELF, &before);
  const uint64_t c0 = thread_cpu_ns();
  const uint64_t t0 = now_ns();
  for (size_t i = 0; i < pages; ++i) (void)*static_cast<volatile char*>(p + i * kPage);
  out->wall_ns = now_ns() - t0;
  out->cpu_ns = thread_cpu_ns() - c0;
  ::getrusage(RUSAGE_SELF, &after);
  out->major = after.ru_majflt - before.ru_majflt;
  out->minor = after.ru_minflt - before.ru_minflt;
  return kOk;
}

// The child: joins the group, runs the repetitions, writes one line per repetition
// ("wall_a cpu_a major_a minor_a cpu_b major_b minor_b") to `fd`. Exits with a ChildExit.
[[noreturn]] void child_main(const MemcgSandbox& group, size_t pages, int reps, int fd) {
  if (!group.join(::getpid()).empty()) ::_exit(kJoin);
  void* m =
      ::mmap(nullptr, pages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) ::_exit(kMmap);
  char* p = static_cast<char*>(m);
  ::madvise(p, pages * kPage, MADV_NOHUGEPAGE);
  for (int r = 0; r < reps; ++r) {
    Pass a, b;
    if (const ChildExit e = run_pass(p, pages, group, true, &a); e != kOk) ::_exit(e);
    if (const ChildExit e = run_pass(p, pages, group, false, &b); e != kOk) ::_exit(e);
    char line[160];
    const int n = std::snprintf(line, sizeof line, "%llu %llu %ld %ld %llu %ld %ld\n",
                                static_cast<unsigned long long>(a.wall_ns),
                                static_cast<unsigned long long>(a.cpu_ns), a.major, a.minor,
                                static_cast<unsigned long long>(b.cpu_ns), b.major, b.minor);
    if (n <= 0 || ::write(fd, line, static_cast<size_t>(n)) != n) ::_exit(kPipe);
  }
  ::_exit(kOk);
}

// The probe's two figures, not measured yet: [0] the read's wait, [1] its CPU time.
std::vector<Figure> swap_in_figures() {
  return {figure_of("swap_in", "a swap-in read of one page, waited for", "read"),
          figure_of("swap_read_cpu", "CPU time of a swap-in read beyond its fault", "read")};
}

}  // namespace

bool read_until_eof(int fd, int timeout_ms, std::string* text) {
  const uint64_t deadline = now_ns() + static_cast<uint64_t>(std::max(timeout_ms, 0)) * 1000000u;
  char buf[4096];
  for (;;) {
    const uint64_t now = now_ns();
    if (now >= deadline) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>((deadline - now) / 1000000u) + 1);
    if (ready < 0 && errno != EINTR) return false;
    if (ready <= 0) continue;  // interrupted, or the deadline: the loop's check decides
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0 && errno != EINTR) return false;
    if (n > 0) text->append(buf, static_cast<size_t>(n));
  }
}

std::vector<Figure> swap_figures(const std::vector<SwapInSample>& samples, size_t pages) {
  std::vector<Figure> figures = swap_in_figures();
  Figure& wait = figures[0];
  Figure& cpu = figures[1];
  std::vector<double> waits, cpus;
  std::vector<double> major_fault_cpu, minor_fault_cpu;
  const auto n = static_cast<long>(pages);
  for (const SwapInSample& s : samples) {
    // Pass A mostly major faults, pass B mostly hits (probes.h says why).
    if (s.major_a * 10 < n * 9 || s.major_b * 10 > n || s.minor_b <= 0) continue;
    const double b_cpu = static_cast<double>(s.cpu_b_ns) / static_cast<double>(s.minor_b);
    // Pass A's few hits cost what pass B's did.
    const double a_cpu =
        (static_cast<double>(s.cpu_a_ns) - b_cpu * static_cast<double>(s.minor_a)) /
        static_cast<double>(s.major_a);
    waits.push_back(static_cast<double>(s.wall_a_ns - std::min(s.wall_a_ns, s.cpu_a_ns)) /
                    static_cast<double>(s.major_a));
    cpus.push_back(a_cpu - b_cpu);
    major_fault_cpu.push_back(a_cpu);
    minor_fault_cpu.push_back(b_cpu);
  }
  if (waits.empty()) {
    const std::string why = samples.empty()
                                ? "no repetition ran"
                                : "no repetition read its pages back from swap with the swap "
                                  "cache emptied (pass A) and found them there kept (pass B)";
    for (Figure& f : figures) f = failed(f, why);
    return figures;
  }
  wait.measured = cpu.measured = true;
  wait.ns = summarize(waits);
  cpu.ns = summarize(cpus);
  const std::string per_fault =
      "major fault " + std::to_string(static_cast<long>(summarize(major_fault_cpu).median)) +
      " ns CPU, swap-cache hit " +
      std::to_string(static_cast<long>(summarize(minor_fault_cpu).median)) + " ns (page-cluster 0)";
  wait.note = "wall less CPU per major fault; " + per_fault;
  cpu.note = per_fault;
  return figures;
}

std::vector<Figure> probe_swap_in(const ProbeOptions& o) {
  auto skip = [](const std::string& why) {
    std::vector<Figure> figures = swap_in_figures();
    for (Figure& f : figures) f = failed(f, why);
    return figures;
  };
  const HostSwap swap = host_swap();
  if (swap.device.empty()) return skip("no swap device (/proc/swaps is empty)");
  if (swap.device == "zram") {
    return skip(
        "the swap device is zram, whose swap-ins skip the swap cache (the zram probe "
        "measures it)");
  }
  if (::geteuid() != 0) return skip("needs root (a memory cgroup and vm.page-cluster)");
  const size_t pages = o.region_pages();
  MemcgSandbox group;
  if (std::string why = group.create(pages * kPage * 16); !why.empty()) return skip(why);
  PageClusterSetting one_page_reads(0);
  if (!one_page_reads.set()) return skip("cannot set " + std::string(kPageCluster) + " to 0");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return skip("pipe failed");
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return skip("fork failed");
  }
  if (child == 0) {
    ::close(fds[0]);
    child_main(group, pages, o.repetitions(), fds[1]);
  }
  ::close(fds[1]);
  std::string text;
  const bool finished = read_until_eof(fds[0], kChildTimeoutSeconds * 1000, &text);
  ::close(fds[0]);
  if (!finished) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    return skip("the probe's child did not finish in " + std::to_string(kChildTimeoutSeconds) +
                " s (killed)");
  }
  if (!WIFEXITED(status)) return skip("the probe's child was killed");
  if (WEXITSTATUS(status) != kOk) return skip(child_failure(WEXITSTATUS(status)));
  std::vector<SwapInSample> samples;
  std::istringstream lines(text);
  for (SwapInSample s; lines >> s.wall_a_ns >> s.cpu_a_ns >> s.major_a >> s.minor_a >> s.cpu_b_ns >>
                       s.major_b >> s.minor_b;)
    samples.push_back(s);
  return swap_figures(samples, pages);
}

}  // namespace mmreplay::tools::calibrate
