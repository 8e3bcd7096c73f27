// Probe of the accessed and dirty bits the kernel clears in present ptes: MADV_FREE
// (madvise_free_pte_range()) makes each pte old and clean and flushes it, leaving the page mapped.
// A write to such a page takes no page fault; the CPU's page walk sets both bits again. On bare
// metal that is a locked update of the pte; under shadow page tables the host traps the access
// and rebuilds its entry, which costs as much as a fault.

#include <sys/mman.h>

#include <vector>

#include "tools/calibrate/probes.h"
#include "tools/calibrate/throughput_loops.h"
#include "tools/calibrate/user_pages.h"

namespace mmreplay::tools::calibrate {
namespace {

// The region of calibrate's madvise reuse loops (throughput_loops.h), in quick runs too: on a PVM
// guest the per-page figure moved with the region (5-6 us at 64 pages, 10-11 us at 256, 7 us at
// 4096, one machine, 2026-12-01), so the probe sees what the loop sees.
constexpr size_t kProbePages = kReuseLoopBytes / kUserPage;

// Per-page time of one byte written to each of `pages` pages at `p`.
double time_page_writes(char* p, size_t pages, char value) {
  const uint64_t t0 = now_ns();
  for (size_t i = 0; i < pages; ++i) static_cast<volatile char*>(p)[i * kUserPage] = value;
  return static_cast<double>(now_ns() - t0) / static_cast<double>(pages);
}

}  // namespace

Figure probe_pte_ad_update(const ProbeOptions& o) {
  Figure f = figure_of("pte_ad_update",
                       "write to a page after MADV_FREE minus a write to a dirty page", "page");
#ifdef MADV_FREE
  const size_t pages = kProbePages;
  char* p = map_anon_pages(pages);
  if (p == nullptr) return failed(f, "mmap failed");
  time_page_writes(p, pages, 1);  // faulted in: every pte present, young and dirty
  std::vector<double> extra;
  for (int r = 0; r < o.repetitions(); ++r) {
    const double dirty = time_page_writes(p, pages, 2);
    if (::madvise(p, pages * kUserPage, MADV_FREE) != 0) {
      ::munmap(p, pages * kUserPage);
      return failed(f, "madvise(MADV_FREE) failed");
    }
    // Without memory pressure the pages stay mapped: no fault, only the bits set again.
    extra.push_back(time_page_writes(p, pages, 3) - dirty);
  }
  ::munmap(p, pages * kUserPage);
  f.measured = true;
  f.ns = summarize(extra);
  f.note = "MADV_FREE left the pages mapped, old and clean";
  return f;
#else
  (void)o;
  return failed(f, "no MADV_FREE in this libc");
#endif
}

}  // namespace mmreplay::tools::calibrate
