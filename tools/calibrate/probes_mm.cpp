// Probes of the memory-management syscalls and faults: one thread, no pinning needed.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tools/calibrate/probes.h"
#include "tools/calibrate/scratch_file.h"
#include "tools/calibrate/user_pages.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPage = kUserPage;
constexpr int kSyscallsPerSample = 2000;
// Region sizes, in pages, for the per-page slopes. mprotect flushes page by page up to
// tlb_single_page_flush_ceiling (33, arch/x86/mm/tlb.c) and flushes everything above it.
constexpr size_t kSmallFew = 2;
constexpr size_t kSmallMany = 32;
constexpr size_t kLargeFew = 64;

long minor_faults() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

// Time of madvise(DONTNEED) of `pages` populated pages.
double time_dontneed(char* p, size_t pages) {
  write_pages(p, pages);
  const uint64_t t0 = now_ns();
  ::madvise(p, pages * kPage, MADV_DONTNEED);
  return static_cast<double>(now_ns() - t0);
}

// Time of mprotect(PROT_READ) of `pages` populated writable pages; leaves them writable.
double time_mprotect_ro(char* p, size_t pages) {
  write_pages(p, pages);
  const uint64_t t0 = now_ns();
  ::mprotect(p, pages * kPage, PROT_READ);
  const uint64_t t1 = now_ns();
  ::mprotect(p, pages * kPage, PROT_READ | PROT_WRITE);
  return static_cast<double>(t1 - t0);
}

}  // namespace

Figure probe_syscall(const ProbeOptions& o) {
  Figure f = figure_of("syscall", "syscall(SYS_getppid)", "call");
  std::vector<double> samples;
  for (int r = 0; r < o.repetitions(); ++r) {
    const uint64_t t0 = now_ns();
    for (int i = 0; i < kSyscallsPerSample; ++i) ::syscall(SYS_getppid);
    samples.push_back(static_cast<double>(now_ns() - t0) / kSyscallsPerSample);
  }
  f.measured = true;
  f.ns = summarize(samples);
  return f;
}

Figure probe_anon_fault(const ProbeOptions& o) {
  Figure f = figure_of("anon_fault", "write to each page of a fresh anonymous mapping", "page");
  const size_t pages = o.region_pages();
  std::vector<double> samples;
  for (int r = 0; r < o.repetitions(); ++r) {
    char* p = map_anon_pages(pages);
    if (p == nullptr) return failed(f, "mmap failed");
    const uint64_t t0 = now_ns();
    write_pages(p, pages);
    samples.push_back(static_cast<double>(now_ns() - t0) / static_cast<double>(pages));
    ::munmap(p, pages * kPage);
  }
  f.measured = true;
  f.ns = summarize(samples);
  return f;
}

// A region as large as the first one a program writes (record's probe, tools/cli/record_probe.h,
// writes 4,096 pages too), its pages out of the CPU's caches, as a fresh process's are: what one
// repetition's unmap frees, the next gets back off the CPU's pcp list (6.7+ keeps them all), so
// a 64 MiB buffer is written between repetitions to push them out. Without it a repetition
// found a quarter of its pages still cached (1.1 us a page on the guest of December 2026 against
// 1.35-1.4 us for record's probe and for 64 MiB regions, 650-740 ns for 64 pages). The model
// zeroes them cold from a fresh machine (model_fit.h anon_fresh_scenario()).
Figure probe_anon_fault_fresh(const ProbeOptions& o) {
  Figure f = figure_of("anon_fault_fresh", "write to each page of a fresh 16 MiB anonymous mapping",
                       "page");
  constexpr size_t kEvictPages = 16384;  // 64 MiB: the largest reuse region, cold here
  char* evict = map_anon_pages(kEvictPages);
  if (evict == nullptr) return failed(f, "mmap failed");
  std::vector<double> samples;
  for (int r = 0; r < o.repetitions(); ++r) {
    std::memset(evict, r + 1, kEvictPages * kPage);
    char* p = map_anon_pages(kFreshRegionPages);
    if (p == nullptr) {
      ::munmap(evict, kEvictPages * kPage);
      return failed(f, "mmap failed");
    }
    const uint64_t t0 = now_ns();
    write_pages(p, kFreshRegionPages);
    samples.push_back(static_cast<double>(now_ns() - t0) / static_cast<double>(kFreshRegionPages));
    ::munmap(p, kFreshRegionPages * kPage);
  }
  ::munmap(evict, kEvictPages * kPage);
  f.measured = true;
  f.ns = summarize(samples);
  return f;
}

std::vector<Figure> probe_anon_fault_reuse(const ProbeOptions& o) {
  std::vector<Figure> out;
  const int reps = o.quick ? 5 : 15;
  for (const size_t pages : kReuseRegionPages) {
    Figure f = figure_of(reuse_figure_key(pages), reuse_figure_what(pages), "page");
    // One untimed pass first: its pages come from the buddy lists; the timed ones get back what
    // the last unmap freed, from the head of the CPU's pcp list (6.7+ keeps them all there; an
    // older kernel's buddy lists hand the same pages back first as well).
    std::vector<double> samples;
    for (int r = 0; r <= reps; ++r) {
      char* p = map_anon_pages(pages);
      if (p == nullptr) {
        samples.clear();
        out.push_back(failed(f, "mmap failed"));
        break;
      }
      const uint64_t t0 = now_ns();
      write_pages(p, pages);
      const uint64_t t1 = now_ns();
      ::munmap(p, pages * kPage);
      if (r > 0) samples.push_back(static_cast<double>(t1 - t0) / static_cast<double>(pages));
    }
    if (samples.empty()) continue;
    f.measured = true;
    f.ns = summarize(samples);
    out.push_back(std::move(f));
  }
  return out;
}

// MADV_POPULATE_WRITE (Linux 5.14) faults a range in through GUP: handle_mm_fault() for each
// page, with no exception taken. Fresh pages less pages already there, per page, is what
// do_anonymous_page() does in the kernel: the exception's entry and exit are what anon_fault
// has beyond it. On a shadow-paging guest the two differ thirtyfold (0.25-0.37 us against
// 9.4-10.3 us on the PVM guest of 2026-12-01).
Figure probe_populate(const ProbeOptions& o) {
  Figure f = figure_of("populate_page",
                       "MADV_POPULATE_WRITE of fresh anonymous pages minus of the same pages again",
                       "page");
#ifdef MADV_POPULATE_WRITE
  const size_t pages = o.region_pages();
  std::vector<double> samples;
  for (int r = 0; r < o.repetitions(); ++r) {
    char* p = map_anon_pages(pages);
    if (p == nullptr) return failed(f, "mmap failed");
    const uint64_t t0 = now_ns();
    const int fresh = ::madvise(p, pages * kPage, MADV_POPULATE_WRITE);
    const uint64_t t1 = now_ns();
    const int again = ::madvise(p, pages * kPage, MADV_POPULATE_WRITE);
    const uint64_t t2 = now_ns();
    ::munmap(p, pages * kPage);
    if (fresh != 0 || again != 0) {
      return failed(f, std::string("MADV_POPULATE_WRITE refused (") + std::strerror(errno) + ")");
    }
    samples.push_back((static_cast<double>(t1 - t0) - static_cast<double>(t2 - t1)) /
                      static_cast<double>(pages));
  }
  f.measured = true;
  f.ns = summarize(samples);
  f.note = "handle_mm_fault() per page through GUP, no exception";
  return f;
#else
  (void)o;
  return failed(f, "no MADV_POPULATE_WRITE in this libc's headers (before Linux 5.14)");
#endif
}

Figure probe_file_fault(const ProbeOptions& o) {
  Figure f =
      figure_of("file_fault", "read each page of a MAP_SHARED file in the page cache", "fault");
  const size_t pages = o.region_pages();
  std::string why;
  const int fd = scratch_file(pages, 1, &why);
  if (fd < 0) return failed(f, why);
  std::vector<double> samples;
  long faults = 0;
  for (int r = 0; r < o.repetitions(); ++r) {
    void* m = ::mmap(nullptr, pages * kPage, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) break;
    const char* p = static_cast<const char*>(m);
    const long before = minor_faults();
    const uint64_t t0 = now_ns();
    for (size_t i = 0; i < pages; ++i) (void)*static_cast<const volatile char*>(p + i * kPage);
    const uint64_t t = now_ns() - t0;
    const long n = minor_faults() - before;
    ::munmap(m, pages * kPage);
    if (n <= 0) continue;
    faults = n;
    samples.push_back(static_cast<double>(t) / static_cast<double>(n));
  }
  ::close(fd);
  if (samples.empty()) return failed(f, "no minor faults seen");
  f.measured = true;
  f.ns = summarize(samples);
  f.note = std::to_string(pages) + " pages took " + std::to_string(faults) +
           " faults: fault-around maps the neighbours of each faulting page";
  return f;
}

Figure probe_madvise_dontneed(const ProbeOptions& o) {
  Figure f = figure_of("dontneed_page",
                       "madvise(MADV_DONTNEED) slope between 64 and N populated pages", "page");
  const size_t many = o.region_pages() * 2;
  char* p = map_anon_pages(many);
  if (p == nullptr) return failed(f, "mmap failed");
  std::vector<double> few_ns, many_ns;
  for (int r = 0; r < o.repetitions(); ++r) {
    few_ns.push_back(time_dontneed(p, kLargeFew));
    many_ns.push_back(time_dontneed(p, many));
  }
  ::munmap(p, many * kPage);
  f.measured = true;
  f.ns = fit_line(few_ns, kLargeFew, many_ns, many).slope;
  f.note = "slope: the fixed syscall and flush cost cancels";
  return f;
}

std::vector<Figure> probe_munmap(const ProbeOptions& o) {
  Figure whole = figure_of("munmap_page", "munmap of a one-page mapping, populated", "call");
  Figure split = figure_of(
      "munmap_split", "munmap of the middle page of three, minus a whole one-page munmap", "split");
  std::vector<double> whole_ns, middle_ns;
  for (int r = 0; r < o.repetitions(); ++r) {
    char* one = map_anon_pages(1);
    char* three = map_anon_pages(3);
    if (one == nullptr || three == nullptr)
      return {failed(whole, "mmap failed"), failed(split, "mmap failed")};
    write_pages(one, 1);
    write_pages(three, 3);
    const uint64_t t0 = now_ns();
    ::munmap(one, kPage);
    const uint64_t t1 = now_ns();
    ::munmap(three + kPage, kPage);
    const uint64_t t2 = now_ns();
    ::munmap(three, 3 * kPage);
    whole_ns.push_back(static_cast<double>(t1 - t0));
    middle_ns.push_back(static_cast<double>(t2 - t1));
  }
  whole.measured = split.measured = true;
  whole.ns = summarize(whole_ns);
  // The middle page: __split_vma() at its start and at its end (mm/vma.c), two splits.
  split.ns = difference(middle_ns, whole_ns);
  for (double* v : {&split.ns.median, &split.ns.p10, &split.ns.p90}) *v /= 2;
  split.note = "(middle-page munmap - whole munmap) / 2 splits";
  return {whole, split};
}

std::vector<Figure> probe_mprotect(const ProbeOptions& o) {
  Figure small = figure_of("mprotect_page_invlpg",
                           "mprotect(PROT_READ) slope, 2..32 pages (INVLPG each)", "page");
  Figure large =
      figure_of("mprotect_page", "mprotect(PROT_READ) slope, 64..N pages (one full flush)", "page");
  Figure full =
      figure_of("full_flush", "mprotect intercept above the flush ceiling minus below it", "flush");
  const size_t many = o.region_pages() * 2;
  char* p = map_anon_pages(many);
  if (p == nullptr)
    return {failed(small, "mmap failed"), failed(large, "mmap failed"),
            failed(full, "mmap failed")};
  std::vector<double> s1, s2, l1, l2;
  for (int r = 0; r < o.repetitions(); ++r) {
    s1.push_back(time_mprotect_ro(p, kSmallFew));
    s2.push_back(time_mprotect_ro(p, kSmallMany));
    l1.push_back(time_mprotect_ro(p, kLargeFew));
    l2.push_back(time_mprotect_ro(p, many));
  }
  ::munmap(p, many * kPage);
  const LineFit below = fit_line(s1, kSmallFew, s2, kSmallMany);
  const LineFit above = fit_line(l1, kLargeFew, l2, many);
  small.measured = large.measured = full.measured = true;
  small.ns = below.slope;
  large.ns = above.slope;
  // The full flush replaces the per-page ones: the intercept above the ceiling minus below it.
  full.ns = above.intercept;
  full.ns.median -= below.intercept.median;
  full.ns.p10 -= below.intercept.median;
  full.ns.p90 -= below.intercept.median;
  small.note = "change_pte_range() + one INVLPG per page";
  large.note = "change_pte_range() per page";
  return {small, large, full};
}

}  // namespace mmreplay::tools::calibrate
