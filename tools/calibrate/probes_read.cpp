// Probes of read(2) of a file in the page cache: one thread, no pinning needed.
//
// The file is written (so its pages are in the page cache) and read once before timing. It is
// kReadFilePages pages in quick runs too: the copies must read page-cache data from memory, not
// from a cache that holds the whole file, as a program streaming through a file does.

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tools/calibrate/probes.h"
#include "tools/calibrate/user_pages.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPage = kUserPage;
constexpr size_t kReadFilePages = 8192;  // 32 MiB: over the L3 share of one core on most machines

// Reads the whole file in reads of `pages` pages; ns per read.
double time_reads(int fd, size_t file_pages, size_t pages, char* buf) {
  const size_t calls = file_pages / pages;
  const uint64_t t0 = now_ns();
  for (size_t i = 0; i < calls; ++i) {
    if (::pread(fd, buf, pages * kPage, static_cast<off_t>(i * pages * kPage)) <= 0) return 0;
  }
  return static_cast<double>(now_ns() - t0) / static_cast<double>(calls);
}

}  // namespace

std::vector<Figure> probe_cached_read(const ProbeOptions& o) {
  Figure few = figure_of("read_cached_few", "read() of 1 page of a cached file", "call");
  Figure many = figure_of("read_cached_many", "read() of 16 pages of a cached file", "call");
  Figure copy = figure_of("user_copy_page", "memcpy of 4 KiB from a file-sized buffer", "page");
  const size_t file_pages = kReadFilePages;
  const char* tmp = std::getenv("TMPDIR");
  std::string path =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/trace-replay-calibrate.XXXXXX";
  const int fd = ::mkstemp(path.data());
  const std::string no_file = "cannot create a file in " + path;
  if (fd < 0) return {failed(few, no_file), failed(many, no_file), failed(copy, no_file)};
  ::unlink(path.c_str());
  std::vector<char> block(kReadMany * kPage, 'x');
  for (size_t i = 0; i < file_pages; i += kReadMany) {
    if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) {
      ::close(fd);
      return {failed(few, "cannot write the file"), failed(many, "cannot write the file"),
              failed(copy, "cannot write the file")};
    }
  }
  std::vector<char> source(file_pages * kPage, 'y');
  std::vector<double> few_ns, many_ns, copy_ns;
  time_reads(fd, file_pages, kReadMany, block.data());  // every page in the cache
  for (int r = 0; r < o.repetitions(); ++r) {
    few_ns.push_back(time_reads(fd, file_pages, kReadFew, block.data()));
    many_ns.push_back(time_reads(fd, file_pages, kReadMany, block.data()));
    const uint64_t t0 = now_ns();
    for (size_t i = 0; i < file_pages; ++i) {
      std::memcpy(block.data() + (i % kReadMany) * kPage, source.data() + i * kPage, kPage);
    }
    copy_ns.push_back(static_cast<double>(now_ns() - t0) / static_cast<double>(file_pages));
  }
  ::close(fd);
  few.measured = many.measured = copy.measured = true;
  few.ns = summarize(few_ns);
  many.ns = summarize(many_ns);
  copy.ns = summarize(copy_ns);
  few.note = many.note = "filemap_read(): one batch lookup, copy_folio_to_iter() per page";
  copy.note = "what copy_to_user() of a page costs, less the kernel's checks";
  return {few, many, copy};
}

}  // namespace mmreplay::tools::calibrate
