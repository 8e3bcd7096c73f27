// Probes of fork() and the write-protect faults it leaves behind (kernel/fork.c
// copy_page_range(), mm/memory.c do_wp_page()). Each repetition maps and writes a region, then:
//   - fork(): the child writes every page of the region while the parent waits, so each write
//     finds a page mapped twice and copies it (wp_page_copy()); the child sends its time back
//     through a pipe and exits;
//   - the parent then writes every page again: the ptes are still write-protected, but the child
//     is gone, so each write reuses the page (wp_page_reuse());
//   - fork() itself is timed in the parent with the region mapped and, as a baseline, without
//     it: the difference over the region's pages is copy_present_pte()'s cost per pte.
// The child does nothing but touch memory and _exit(), so forking this (threaded) process is
// safe. The probes were added for tests/real fork_touch, which replayed at 0.63-0.69x of native
// on a PVM guest where a write-protect fault costs 3 us more than a not-present one.

#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "tools/calibrate/probes.h"
#include "tools/calibrate/user_pages.h"

namespace mmreplay::tools::calibrate {
namespace {

// Enough ptes that copying them outweighs fork()'s fixed cost and its noise (35 ns per pte on
// bare metal, Redis's fork figures: 72 us per repetition at the quick size).
size_t fork_region_pages(const ProbeOptions& o) {
  return o.quick ? 2048 : 8192;
}

// fork() with a child that exits at once: the parent's time in the call, ns; < 0 on failure.
double time_empty_fork() {
  const uint64_t t0 = now_ns();
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  const uint64_t t1 = now_ns();
  if (child < 0) return -1;
  int status = 0;
  ::waitpid(child, &status, 0);
  return static_cast<double>(t1 - t0);
}

struct ForkSample {
  double fork_ns = 0;         // the parent's time in fork() with the region mapped
  double cow_per_page = 0;    // the child's writes, per page
  double reuse_per_page = 0;  // the parent's writes after the child exited, per page
};

// One repetition over `p` (`pages` written pages); false when fork or the pipe fails.
bool fork_and_write(char* p, size_t pages, ForkSample* s) {
  int fds[2];
  if (::pipe(fds) != 0) return false;
  const uint64_t t0 = now_ns();
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    const uint64_t c0 = now_ns();
    write_pages(p, pages);
    const double per_page = static_cast<double>(now_ns() - c0) / static_cast<double>(pages);
    const bool sent = ::write(fds[1], &per_page, sizeof per_page) == sizeof per_page;
    ::_exit(sent ? 0 : 1);
  }
  const uint64_t t1 = now_ns();
  ::close(fds[1]);
  if (child < 0) {
    ::close(fds[0]);
    return false;
  }
  double cow = -1;
  const bool got = ::read(fds[0], &cow, sizeof cow) == sizeof cow;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
  const uint64_t r0 = now_ns();
  write_pages(p, pages);
  s->reuse_per_page = static_cast<double>(now_ns() - r0) / static_cast<double>(pages);
  s->cow_per_page = cow;
  s->fork_ns = static_cast<double>(t1 - t0);
  return true;
}

}  // namespace

std::vector<Figure> probe_fork(const ProbeOptions& o) {
  Figure cow =
      figure_of("cow_fault", "fork child's write to each page it shares with the parent", "fault");
  Figure reuse = figure_of(
      "wp_reuse_fault", "parent's write to each page fork write-protected, after the child exited",
      "fault");
  Figure pte =
      figure_of("fork_pte", "fork() with a written region minus fork() without, per pte", "pte");
  const size_t pages = fork_region_pages(o);
  std::vector<double> cows;
  std::vector<double> reuses;
  std::vector<double> ptes;
  for (int r = 0; r < o.repetitions(); ++r) {
    const double base = time_empty_fork();
    char* p = map_anon_pages(pages);
    if (base < 0 || p == nullptr) {
      if (p != nullptr) ::munmap(p, pages * kUserPage);
      const std::string why = "fork or mmap failed";
      return {failed(cow, why), failed(reuse, why), failed(pte, why)};
    }
    write_pages(p, pages);
    ForkSample s;
    const bool ok = fork_and_write(p, pages, &s);
    ::munmap(p, pages * kUserPage);
    if (!ok) {
      const std::string why = "fork, the pipe or the child failed";
      return {failed(cow, why), failed(reuse, why), failed(pte, why)};
    }
    cows.push_back(s.cow_per_page);
    reuses.push_back(s.reuse_per_page);
    ptes.push_back((s.fork_ns - base) / static_cast<double>(pages));
  }
  cow.measured = reuse.measured = pte.measured = true;
  cow.ns = summarize(cows);
  reuse.ns = summarize(reuses);
  pte.ns = summarize(ptes);
  return {cow, reuse, pte};
}

}  // namespace mmreplay::tools::calibrate
