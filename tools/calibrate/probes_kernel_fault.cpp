// Probes of the faults a syscall takes on user memory: read() of a cached file into memory the
// program has never touched (each page faulted in by copy_to_user(), in kernel mode), into memory
// faulted in long before and no longer in the caches, and into one small buffer kept in them.
//
// The three differ only in the destination: the file, the read size (kReadMany pages, one
// filemap_get_read_batch()) and the order of the reads are the same, so per page
//   cold - hot   = what a copy into memory not in the caches adds to file_copy_page, and
//   fresh - cold = the fault taken in the kernel, a user-mode fault included.
// The three are measured in turn within each repetition, so drift and load hit them alike.

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tools/calibrate/probes.h"
#include "tools/calibrate/scratch_file.h"
#include "tools/calibrate/user_pages.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPage = kUserPage;
// 32 MiB of file, and twice that of cold destination: each cold page was last written 64 MiB of
// destination (and as much file) earlier, past the last-level cache share of one core.
constexpr size_t kFilePages = 8192;
constexpr size_t kColdHalves = 2;

// Reads the whole file in kReadMany-page reads into dst (advancing by `step` bytes per read, 0 to
// reuse one buffer); ns per page, or a negative value when a read fails.
double read_file_into(int fd, char* dst, size_t step) {
  const size_t calls = kFilePages / kReadMany;
  const uint64_t t0 = now_ns();
  for (size_t i = 0; i < calls; ++i) {
    const off_t off = static_cast<off_t>(i * kReadMany * kPage);
    const auto want = static_cast<ssize_t>(kReadMany * kPage);
    if (::pread(fd, dst + i * step, kReadMany * kPage, off) != want) return -1;
  }
  return static_cast<double>(now_ns() - t0) / static_cast<double>(kFilePages);
}

}  // namespace

std::vector<Figure> probe_kernel_fault(const ProbeOptions& o) {
  Figure fresh =
      figure_of("read_into_fresh", "read() of 16 cached pages into never-touched memory", "page");
  Figure cold =
      figure_of("read_into_cold",
                "read() of 16 cached pages into faulted-in memory not in the caches", "page");
  Figure hot = figure_of("read_into_hot", "read() of 16 cached pages into one hot buffer", "page");
  auto all_failed = [&](const std::string& why) {
    return std::vector<Figure>{failed(fresh, why), failed(cold, why), failed(hot, why)};
  };
  std::string why;
  const int fd = scratch_file(kFilePages, kReadMany, &why);
  if (fd < 0) return all_failed(why);
  const size_t cold_pages = kColdHalves * kFilePages;
  char* cold_dst = map_anon_pages(cold_pages);
  std::vector<char> hot_dst(kReadMany * kPage);
  if (cold_dst == nullptr) {
    ::close(fd);
    return all_failed("mmap failed");
  }
  write_pages(cold_dst, cold_pages);
  read_file_into(fd, hot_dst.data(), 0);  // every file page in the cache
  std::vector<double> fresh_ns, cold_ns, hot_ns;
  for (int r = 0; r < o.repetitions(); ++r) {
    char* fresh_dst = map_anon_pages(kFilePages);
    if (fresh_dst == nullptr) break;
    const double f = read_file_into(fd, fresh_dst, kReadMany * kPage);
    ::munmap(fresh_dst, kFilePages * kPage);
    char* half = cold_dst + static_cast<size_t>(r % kColdHalves) * kFilePages * kPage;
    const double c = read_file_into(fd, half, kReadMany * kPage);
    const double h = read_file_into(fd, hot_dst.data(), 0);
    if (f < 0 || c < 0 || h < 0) break;
    fresh_ns.push_back(f);
    cold_ns.push_back(c);
    hot_ns.push_back(h);
  }
  ::munmap(cold_dst, cold_pages * kPage);
  ::close(fd);
  if (fresh_ns.size() != static_cast<size_t>(o.repetitions())) return all_failed("a read failed");
  fresh.measured = cold.measured = hot.measured = true;
  fresh.ns = summarize(fresh_ns);
  cold.ns = summarize(cold_ns);
  hot.ns = summarize(hot_ns);
  fresh.note = "copy_to_user() faults each page in from kernel mode";
  cold.note = "pages faulted in before and evicted by 64 MiB of other copies";
  hot.note = "one 64 KiB destination, in the caches";
  return {fresh, cold, hot};
}

}  // namespace mmreplay::tools::calibrate
