// The zram probe: what a swap-in and a swap-out cost when the kernel swaps to zram, the device
// whose reads and writes are the CPU's (de)compression (SWP_SYNCHRONOUS_IO). Since 4.15 a
// swap-in on it skips the swap cache (do_swap_page()): every read is a major fault of its own
// page, with no readahead, so no cgroup, no page-cluster setting and no root are needed.
//
// Each repetition over a private region (THP off):
//   Z: MADV_DONTNEED, then a write to each page: a zero-filled fault a page (the baseline);
//   each page filled, its first half with pseudo-random words and its second with zeros (about
//   2:1 for lzo and lz4; the compressibility of the program's own data is not known here);
//   O: MADV_PAGEOUT of the region (5.4+): reclaim's isolation and unmap of each page and zram's
//   compression of it (zram_write_page());
//   A: a read of each page: a major fault that decompresses it into a fresh page.
// zram_read = A's CPU time a major fault less Z's a fault: the decompression and the swap-in's
// own work beyond a zero-filled fault (which zeroed the page the read fills instead);
// zram_write = O's CPU time a page.

#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include <cstring>
#include <string>
#include <vector>

#include "tools/calibrate/host_swap.h"
#include "tools/calibrate/probes.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPage = 4096;

long faults(bool major) {
  rusage r{};
  ::getrusage(RUSAGE_SELF, &r);
  return major ? r.ru_majflt : r.ru_minflt;
}

// Half of each page pseudo-random (xorshift), half zeros.
void fill_half_random(char* p, size_t pages, uint64_t* state) {
  for (size_t i = 0; i < pages; ++i) {
    char* page = p + i * kPage;
    for (size_t w = 0; w < kPage / 2; w += sizeof(uint64_t)) {
      *state ^= *state << 13;
      *state ^= *state >> 7;
      *state ^= *state << 17;
      std::memcpy(page + w, state, sizeof(uint64_t));
    }
  }
}

std::vector<Figure> zram_figures_unmeasured() {
  return {figure_of("zram_read", "a zram swap-in's CPU time beyond a zero-filled fault's", "fault"),
          figure_of("zram_write", "MADV_PAGEOUT of a page to zram, CPU time", "page")};
}

}  // namespace

std::vector<Figure> zram_figures(const std::vector<ZramSample>& samples, size_t pages) {
  std::vector<Figure> figures = zram_figures_unmeasured();
  std::vector<double> reads, writes;
  const auto n = static_cast<long>(pages);
  for (const ZramSample& s : samples) {
    // Every page zero-filled, and read back by a major fault (not found in a swap cache).
    if (s.zero_faults * 10 < n * 9 || s.read_major * 10 < n * 9) continue;
    const double zero = static_cast<double>(s.zero_cpu_ns) / static_cast<double>(s.zero_faults);
    reads.push_back(static_cast<double>(s.read_cpu_ns) / static_cast<double>(s.read_major) - zero);
    writes.push_back(static_cast<double>(s.pageout_cpu_ns) / static_cast<double>(pages));
  }
  if (reads.empty()) {
    const std::string why = samples.empty() ? "no repetition ran"
                                            : "no repetition read its pages back by major faults "
                                              "(MADV_PAGEOUT left them in memory?)";
    for (Figure& f : figures) f = failed(f, why);
    return figures;
  }
  figures[0].measured = figures[1].measured = true;
  figures[0].ns = summarize(reads);
  figures[1].ns = summarize(writes);
  figures[0].note = "major fault on zram less a zero-filled fault, CPU time";
  figures[1].note = "reclaim of the page and its compression (half random, half zero bytes)";
  return figures;
}

std::vector<Figure> probe_zram(const ProbeOptions& o) {
  const HostSwap swap = host_swap();
  if (swap.device != "zram") {
    std::vector<Figure> figures = zram_figures_unmeasured();
    const std::string why = swap.device.empty() ? "no swap device (/proc/swaps is empty)"
                                                : "the swap device is not zram";
    for (Figure& f : figures) f = failed(f, why);
    return figures;
  }
  const size_t pages = o.region_pages() * 16;  // 1,024 pages quick, 4,096 in full
  void* m =
      ::mmap(nullptr, pages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    std::vector<Figure> figures = zram_figures_unmeasured();
    for (Figure& f : figures) f = failed(f, "mmap failed");
    return figures;
  }
  char* p = static_cast<char*>(m);
  ::madvise(p, pages * kPage, MADV_NOHUGEPAGE);
  uint64_t rng = 0x9e3779b97f4a7c15u;
  std::vector<ZramSample> samples;
  for (int r = 0; r < o.repetitions(); ++r) {
    ZramSample s;
    ::madvise(p, pages * kPage, MADV_DONTNEED);
    long f0 = faults(false);
    uint64_t c0 = thread_cpu_ns();
    for (size_t i = 0; i < pages; ++i) p[i * kPage] = 1;
    s.zero_cpu_ns = thread_cpu_ns() - c0;
    s.zero_faults = faults(false) - f0;
    fill_half_random(p, pages, &rng);
    c0 = thread_cpu_ns();
    if (::madvise(p, pages * kPage, MADV_PAGEOUT) != 0) {
      ::munmap(m, pages * kPage);
      std::vector<Figure> figures = zram_figures_unmeasured();
      for (Figure& f : figures) f = failed(f, "MADV_PAGEOUT failed (a kernel before 5.4?)");
      return figures;
    }
    s.pageout_cpu_ns = thread_cpu_ns() - c0;
    f0 = faults(true);
    c0 = thread_cpu_ns();
    for (size_t i = 0; i < pages; ++i) (void)*static_cast<volatile char*>(p + i * kPage);
    s.read_cpu_ns = thread_cpu_ns() - c0;
    s.read_major = faults(true) - f0;
    samples.push_back(s);
  }
  ::munmap(m, pages * kPage);
  return zram_figures(samples, pages);
}

}  // namespace mmreplay::tools::calibrate
