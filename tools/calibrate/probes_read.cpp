// Probes of read(2) of a file: one thread, no pinning needed.
//
// Cached: the file is written (so its pages are in the page cache) and read again and again before
// timing, as a program that reads a cached file more than once finds it. It is kReadFilePages
// pages in quick runs too, so that one pass is long enough to time. Whether its data then sits in
// the CPU's last-level cache depends on the machine: the figures are those of a warm file, and
// nothing else the probe touches comes between its passes (see probe_cached_read()).
//
// Cold: the file is written and synced, then before each pass posix_fadvise(POSIX_FADV_DONTNEED)
// drops its clean pages (no root needed; mincore() checks that they went) and the pass reads it
// in 1 MiB calls, as dd does: sequential, so the kernel reads it ahead (mm/readahead.c) and the
// figure is the device's per-page time through readahead, what the model's page_cache_miss_read
// stands for. On a guest the "device" may be the host's page cache.
//
// Cold, random: the same dropped file read one page a call with readahead off, for the cost of a
// request to the device apart from its pages (page_cache_read_request).

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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
constexpr size_t kReadFilePages = 8192;  // 32 MiB
// Untimed passes over the cached file before the timed ones. On the PVM guest of December 2026
// (an L3 of 480 MiB shared with other guests) a 64 KiB read of the 32 MiB file took 7-9 us in the
// first pass after a pause and fell to about 3 us over the next 8 to 12 passes, not at once (the
// cache keeps streamed lines only once they are used again); spinning the CPU first did not
// shorten it, so it is the cache, not the clock.
constexpr int kWarmReadPasses = 16;

// Reads the whole file in reads of `pages` pages; ns per read.
double time_reads(int fd, size_t file_pages, size_t pages, char* buf) {
  const size_t calls = file_pages / pages;
  const uint64_t t0 = now_ns();
  for (size_t i = 0; i < calls; ++i) {
    if (::pread(fd, buf, pages * kPage, static_cast<off_t>(i * pages * kPage)) <= 0) return 0;
  }
  return static_cast<double>(now_ns() - t0) / static_cast<double>(calls);
}

// Pages of the file's first `pages` in the page cache (mincore() of a shared mapping of it), or
// `pages` when that cannot be told.
size_t resident_pages(int fd, size_t pages) {
  void* m = ::mmap(nullptr, pages * kPage, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return pages;
  std::vector<unsigned char> in(pages);
  size_t n = pages;
  if (::mincore(m, pages * kPage, in.data()) == 0) {
    n = static_cast<size_t>(
        std::count_if(in.begin(), in.end(), [](unsigned char c) { return (c & 1) != 0; }));
  }
  ::munmap(m, pages * kPage);
  return n;
}

// Drops the file's clean pages (POSIX_FADV_DONTNEED); "" when at most a tenth stayed, else why.
std::string drop_from_page_cache(int fd, size_t pages) {
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  const size_t left = resident_pages(fd, pages);
  if (left <= pages / 10) return "";
  return std::to_string(left) + " of " + std::to_string(pages) +
         " pages stayed cached after POSIX_FADV_DONTNEED";
}

}  // namespace

std::vector<Figure> probe_cold_read(const ProbeOptions& o) {
  Figure cold = figure_of("read_cold_page",
                          "read() of a file not in the page cache, 1 MiB a call, per page", "page");
  constexpr size_t kCallPages = 256;                 // 1 MiB
  const size_t file_pages = o.quick ? 4096 : 16384;  // 16 or 64 MiB
  std::string why;
  const int fd = scratch_file(file_pages, kCallPages, &why);
  if (fd < 0) return {failed(cold, why)};
  std::vector<char> block(kCallPages * kPage);
  if (::fdatasync(fd) != 0) {  // clean pages: only those can be dropped
    ::close(fd);
    return {failed(cold, "cannot sync the file")};
  }
  std::vector<double> per_page;
  // Each pass streams the whole file from the device: fewer passes than the in-memory probes.
  const int passes = std::min(o.repetitions(), 9);
  for (int r = 0; r < passes; ++r) {
    if (const std::string stayed = drop_from_page_cache(fd, file_pages); !stayed.empty()) {
      ::close(fd);
      return {failed(cold, stayed)};
    }
    const uint64_t t0 = now_ns();
    for (size_t i = 0; i < file_pages; i += kCallPages) {
      if (::pread(fd, block.data(), block.size(), static_cast<off_t>(i * kPage)) <= 0) {
        ::close(fd);
        return {failed(cold, "a read of the file failed")};
      }
    }
    per_page.push_back(static_cast<double>(now_ns() - t0) / static_cast<double>(file_pages));
  }
  ::close(fd);
  cold.measured = true;
  cold.ns = summarize(per_page);
  cold.note = "sequential through readahead: device time, allocation, copy";
  return {cold};
}

// One page a call from a file not in the page cache with readahead off (POSIX_FADV_RANDOM: the
// kernel's force_page_cache_ra() reads exactly the page asked for), 64 KiB apart: each call is one
// request to the device. Less a cached one-page read and the sequential probe's per-page time,
// what is left is the request itself (profile_fit.cpp: page_cache_read_request).
Figure probe_cold_random_read(const ProbeOptions& o) {
  Figure f = figure_of("read_cold_random",
                       "read() of 1 page of a file not in the page cache, readahead off", "call");
  constexpr size_t kFilePages = 4096;  // 16 MiB
  constexpr size_t kStridePages = 16;
  std::string why;
  const int fd = scratch_file(kFilePages, kStridePages, &why);
  if (fd < 0) return failed(f, why);
  if (::fdatasync(fd) != 0) {
    ::close(fd);
    return failed(f, "cannot sync the file");
  }
  std::vector<char> page(kPage);
  std::vector<double> per_call;
  const int passes = std::min(o.repetitions(), 9);
  for (int r = 0; r < passes; ++r) {
    if (const std::string stayed = drop_from_page_cache(fd, kFilePages); !stayed.empty()) {
      ::close(fd);
      return failed(f, stayed);
    }
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    const uint64_t t0 = now_ns();
    for (size_t i = 0; i < kFilePages; i += kStridePages) {
      if (::pread(fd, page.data(), kPage, static_cast<off_t>(i * kPage)) <= 0) {
        ::close(fd);
        return failed(f, "a read of the file failed");
      }
    }
    per_call.push_back(static_cast<double>(now_ns() - t0) /
                       static_cast<double>(kFilePages / kStridePages));
  }
  ::close(fd);
  f.measured = true;
  f.ns = summarize(per_call);
  f.note = "one device request a call: submission, access latency, one page";
  return f;
}

// A 4 KiB write of a cached page and the fdatasync() that writes it out and waits for it, as a
// database's commit does: per call. Less the two calls' entries and the page's copy, what is left
// is one dirty page's write, the journal commit and the device's cache flush (profile_fit.cpp:
// fsync_block). Then fdatasync() alone of kSyncManyPages pages written just before, per call:
// its extra time over the one-page call is the device writing the other pages, one after the
// other (writeback_page). Those overwrite pages in place; a page appended to the file changes its
// size, which fdatasync() commits to the journal first: the append's call less the in-place
// one is that commit (fsync_commit).
std::vector<Figure> probe_fdatasync(const ProbeOptions& o) {
  Figure one = figure_of("fdatasync_block", "pwrite() of 1 cached page, then fdatasync()", "call");
  Figure many = figure_of(
      "fdatasync_many",
      fmt::format("fdatasync() of {} cached pages written just before", kSyncManyPages), "call");
  Figure append = figure_of(
      "fdatasync_append", "pwrite() of 1 page past the end of the file, then fdatasync()", "call");
  std::string why;
  const int fd = scratch_file(kSyncManyPages, kSyncManyPages, &why);
  if (fd < 0) return {failed(one, why), failed(many, why), failed(append, why)};
  const std::string failure = "a write or fdatasync of the file failed";
  auto all_failed = [&] {
    ::close(fd);
    return std::vector<Figure>{failed(one, failure), failed(many, failure),
                               failed(append, failure)};
  };
  if (::fdatasync(fd) != 0) return all_failed();  // its blocks allocated: overwrites below
  std::vector<char> block(kSyncManyPages * kPage, 'z');
  std::vector<double> one_call, many_call, append_call;
  auto end = static_cast<off_t>(kSyncManyPages * kPage);
  // Each call waits for the device: fewer than the in-memory probes.
  const int calls = o.quick ? 32 : 128;
  const int many_calls = o.quick ? 4 : 16;
  const int passes = std::min(o.repetitions(), 9);
  for (int r = 0; r < passes; ++r) {
    const uint64_t t0 = now_ns();
    for (int i = 0; i < calls; ++i) {
      const auto at = static_cast<off_t>((static_cast<size_t>(i) % kSyncManyPages) * kPage);
      if (::pwrite(fd, block.data(), kPage, at) != static_cast<ssize_t>(kPage) ||
          ::fdatasync(fd) != 0) {
        return all_failed();
      }
    }
    one_call.push_back(static_cast<double>(now_ns() - t0) / calls);
    const uint64_t t1 = now_ns();
    for (int i = 0; i < calls; ++i, end += static_cast<off_t>(kPage)) {
      if (::pwrite(fd, block.data(), kPage, end) != static_cast<ssize_t>(kPage) ||
          ::fdatasync(fd) != 0) {
        return all_failed();
      }
    }
    append_call.push_back(static_cast<double>(now_ns() - t1) / calls);
    uint64_t synced = 0;
    for (int i = 0; i < many_calls; ++i) {
      if (::pwrite(fd, block.data(), block.size(), 0) != static_cast<ssize_t>(block.size())) {
        return all_failed();
      }
      const uint64_t t2 = now_ns();
      if (::fdatasync(fd) != 0) return all_failed();
      synced += now_ns() - t2;
    }
    many_call.push_back(static_cast<double>(synced) / many_calls);
  }
  ::close(fd);
  one.measured = true;
  one.ns = summarize(one_call);
  one.note = "one dirty page written and the device's cache flushed, waited for";
  many.measured = true;
  many.ns = summarize(many_call);
  many.note = "the pages written in order and one flush, waited for";
  append.measured = true;
  append.ns = summarize(append_call);
  append.note = "as fdatasync_block, and the journal's commit of the new size";
  return {one, many, append};
}

// ftruncate(fd, 0) of a file whose pages are all cached: dirty (just written: under delayed
// allocation no block is on the disk yet) per page, and clean (written and fdatasync()ed: the
// filesystem frees their blocks) per call at two sizes. What a program's open(O_TRUNC) of a file it
// wrote earlier costs (profile_fit.cpp: truncate_page, truncate_blocks_call, truncate_block).
std::vector<Figure> probe_truncate(const ProbeOptions& o) {
  Figure dirty = figure_of("truncate_dirty", "ftruncate() to 0 of a cached, dirty file", "page");
  Figure few =
      figure_of("truncate_clean_few", "ftruncate() to 0 of 16 cached, clean pages", "call");
  Figure many =
      figure_of("truncate_clean_many", "ftruncate() to 0 of 2048 cached, clean pages", "call");
  constexpr size_t kBlockPages = 16;
  std::string why;
  const int fd = scratch_file(0, kBlockPages, &why);
  if (fd < 0) return {failed(dirty, why), failed(few, why), failed(many, why)};
  const std::vector<char> block(kBlockPages * kPage, 't');
  // Writes `pages`, synced to the disk or not, and times their truncation.
  auto truncate_ns = [&](size_t pages, bool clean, double* ns) {
    for (size_t i = 0; i < pages; i += kBlockPages) {
      if (::pwrite(fd, block.data(), block.size(), static_cast<off_t>(i * kPage)) !=
          static_cast<ssize_t>(block.size())) {
        return false;
      }
    }
    if (clean && ::fdatasync(fd) != 0) return false;
    const uint64_t t0 = now_ns();
    if (::ftruncate(fd, 0) != 0) return false;
    *ns = static_cast<double>(now_ns() - t0);
    return true;
  };
  std::vector<double> dirty_page, few_call, many_call;
  const int passes = std::min(o.repetitions(), 9);
  for (int r = 0; r < passes; ++r) {
    double d = 0, f = 0, m = 0;
    if (!truncate_ns(kTruncateManyPages, false, &d) || !truncate_ns(kBlockPages, true, &f) ||
        !truncate_ns(kTruncateManyPages, true, &m)) {
      ::close(fd);
      const std::string failure = "a write, fdatasync or ftruncate of the file failed";
      return {failed(dirty, failure), failed(few, failure), failed(many, failure)};
    }
    dirty_page.push_back(d / kTruncateManyPages);
    few_call.push_back(f);
    many_call.push_back(m);
  }
  ::close(fd);
  for (auto [fig, samples] :
       {std::pair{&dirty, &dirty_page}, std::pair{&few, &few_call}, std::pair{&many, &many_call}}) {
    fig->measured = true;
    fig->ns = summarize(*samples);
  }
  dirty.note = "no block on the disk yet: the page cache's part only";
  many.note = "the clean pages' blocks freed: the filesystem's journal and discards";
  return {dirty, few, many};
}

std::vector<Figure> probe_cached_read(const ProbeOptions& o) {
  Figure few = figure_of("read_cached_few", "read() of 1 page of a cached file", "call");
  Figure many = figure_of("read_cached_many", "read() of 16 pages of a cached file", "call");
  Figure copy = figure_of("user_copy_page", "memcpy of 4 KiB from a file-sized buffer", "page");
  const size_t file_pages = kReadFilePages;
  std::string why;
  const int fd = scratch_file(file_pages, kReadMany, &why);
  if (fd < 0) return {failed(few, why), failed(many, why), failed(copy, why)};
  std::vector<char> block(kReadMany * kPage);
  std::vector<char> source(file_pages * kPage, 'y');
  std::vector<double> few_ns, many_ns, copy_ns;
  for (int pass = 0; pass < kWarmReadPasses; ++pass)
    time_reads(fd, file_pages, kReadMany, block.data());
  // The reads' passes together, the copies' after them: a pass of memcpy through its own 32 MiB
  // between two passes of reads pushed the file out of the cache, and the 64 KiB reads took
  // 6.6-7.0 us each against 2.8-3.6 us without it (the guest above). A program's copy_to_user()
  // of the file it reads again and again meets the second case: CI's cached_read program (8
  // passes) did 3.4 us a read where its replay, costed with the copies between, took 4.9.
  for (int r = 0; r < o.repetitions(); ++r) {
    few_ns.push_back(time_reads(fd, file_pages, kReadFew, block.data()));
    many_ns.push_back(time_reads(fd, file_pages, kReadMany, block.data()));
  }
  auto copy_pass = [&] {
    const uint64_t t0 = now_ns();
    for (size_t i = 0; i < file_pages; ++i) {
      std::memcpy(block.data() + (i % kReadMany) * kPage, source.data() + i * kPage, kPage);
    }
    return static_cast<double>(now_ns() - t0) / static_cast<double>(file_pages);
  };
  for (int pass = 0; pass < kWarmReadPasses; ++pass) copy_pass();
  for (int r = 0; r < o.repetitions(); ++r) copy_ns.push_back(copy_pass());
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
