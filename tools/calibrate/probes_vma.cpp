// Probes of the VMA syscalls as recorded programs make them (mmap of a small anonymous region,
// munmap of it, mremap growing in place and moving): one thread, no pinning needed.
//
// The mapping made is put in a one-page hole between two PROT_NONE pages
// (MAP_FIXED_NOREPLACE), so that it never merges with a neighbour and never needs a search that
// depends on what else this process has mapped: the same work every repetition.

#include <sys/mman.h>

#include <vector>

#include "tools/calibrate/probes.h"
#include "tools/calibrate/user_pages.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPage = kUserPage;
constexpr int kCallsPerSample = 64;

// A PROT_NONE region of `pages`; nullptr when mmap fails.
char* reserve(size_t pages) {
  void* p = ::mmap(nullptr, pages * kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

}  // namespace

std::vector<Figure> probe_mmap_munmap(const ProbeOptions& o) {
  Figure map = figure_of("mmap_anon", "mmap of one anonymous page into a hole", "call");
  Figure unmap = figure_of("munmap_empty", "munmap of that page, never touched", "call");
  char* guard = reserve(3);
  if (guard == nullptr) return {failed(map, "mmap failed"), failed(unmap, "mmap failed")};
  char* hole = guard + kPage;
  ::munmap(hole, kPage);
  std::vector<double> map_ns, unmap_ns;
  for (int r = 0; r < o.repetitions(); ++r) {
    uint64_t in_map = 0, in_unmap = 0;
    for (int i = 0; i < kCallsPerSample; ++i) {
      const uint64_t t0 = now_ns();
      void* p =
          ::mmap(hole, kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      const uint64_t t1 = now_ns();
      if (p != hole) {
        ::munmap(guard, 3 * kPage);
        return {failed(map, "MAP_FIXED_NOREPLACE refused"),
                failed(unmap, "MAP_FIXED_NOREPLACE refused")};
      }
      ::munmap(p, kPage);
      const uint64_t t2 = now_ns();
      in_map += t1 - t0;
      in_unmap += t2 - t1;
    }
    map_ns.push_back(static_cast<double>(in_map) / kCallsPerSample);
    unmap_ns.push_back(static_cast<double>(in_unmap) / kCallsPerSample);
  }
  ::munmap(guard, 3 * kPage);
  map.measured = unmap.measured = true;
  map.ns = summarize(map_ns);
  unmap.ns = summarize(unmap_ns);
  map.note = "PROT_READ, MAP_FIXED_NOREPLACE between PROT_NONE pages: no merge";
  unmap.note = "one VMA, no pages: no zap, no flush";
  return {map, unmap};
}

Figure probe_mremap_expand(const ProbeOptions& o) {
  Figure f = figure_of("mremap_expand", "mremap growing a mapping by one page in place", "call");
  // [PROT_NONE][kExpandPages mapped][hole][PROT_NONE]: the grow takes the hole.
  constexpr size_t kExpandPages = 4;
  char* guard = reserve(kExpandPages + 3);
  if (guard == nullptr) return failed(f, "mmap failed");
  char* buf = guard + kPage;
  std::vector<double> samples;
  for (int r = 0; r < o.repetitions(); ++r) {
    ::mmap(buf, (kExpandPages + 1) * kPage, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    ::munmap(buf + kExpandPages * kPage, kPage);
    const uint64_t t0 = now_ns();
    void* p = ::mremap(buf, kExpandPages * kPage, (kExpandPages + 1) * kPage, 0);
    const uint64_t t1 = now_ns();
    if (p != buf) {
      ::munmap(guard, (kExpandPages + 3) * kPage);
      return failed(f, "mremap did not grow in place");
    }
    samples.push_back(static_cast<double>(t1 - t0));
  }
  ::munmap(guard, (kExpandPages + 3) * kPage);
  f.measured = true;
  f.ns = summarize(samples);
  f.note = "vma_expand() into a free page";
  return f;
}

std::vector<Figure> probe_mremap_move(const ProbeOptions& o) {
  Figure few = figure_of("mremap_move_few", "mremap moving 2 written pages (blocked)", "call");
  Figure many = figure_of("mremap_move_many", "mremap moving 32 written pages (blocked)", "call");
  std::vector<double> few_ns, many_ns;
  for (int r = 0; r < o.repetitions(); ++r) {
    for (size_t pages : {kMremapMoveFew, kMremapMoveMany}) {
      char* buf = map_anon_pages(pages);
      if (buf == nullptr) return {failed(few, "mmap failed"), failed(many, "mmap failed")};
      write_pages(buf, pages);
      // A page right after the buffer: growing in place is impossible, so mremap moves it.
      void* blocker = ::mmap(buf + pages * kPage, kPage, PROT_READ,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      const uint64_t t0 = now_ns();
      void* moved = ::mremap(buf, pages * kPage, (pages + 1) * kPage, MREMAP_MAYMOVE);
      const uint64_t t1 = now_ns();
      if (blocker != MAP_FAILED) ::munmap(blocker, kPage);
      if (moved == MAP_FAILED) {
        ::munmap(buf, pages * kPage);
        return {failed(few, "mremap failed"), failed(many, "mremap failed")};
      }
      ::munmap(moved, (pages + 1) * kPage);
      // Grown in place (the blocker was refused and the page after was free): not a move.
      if (moved == buf) continue;
      (pages == kMremapMoveFew ? few_ns : many_ns).push_back(static_cast<double>(t1 - t0));
    }
  }
  if (few_ns.empty() || many_ns.empty()) {
    return {failed(few, "no mremap moved"), failed(many, "no mremap moved")};
  }
  few.measured = many.measured = true;
  few.ns = summarize(few_ns);
  many.ns = summarize(many_ns);
  few.note = many.note = "move_vma() + move_page_tables(), INVLPG per page (under the ceiling)";
  return {few, many};
}

}  // namespace mmreplay::tools::calibrate
