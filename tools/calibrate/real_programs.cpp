#include "tools/calibrate/real_programs.h"

#include "tools/calibrate/user_pages.h"

#include <sys/mman.h>

#include <cstddef>

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPage = kUserPage;
constexpr size_t kPages = 16;
constexpr int kLoops = 200;

bool anon_mmap() {
  for (int i = 0; i < kLoops; ++i) {
    char* p = map_anon_pages(kPages);
    if (p == nullptr) return false;
    write_pages(p, kPages);
    ::munmap(p, kPages * kPage);
  }
  return true;
}

bool madvise_dontneed() {
  char* p = map_anon_pages(kPages);
  if (p == nullptr) return false;
  for (int i = 0; i < kLoops; ++i) {
    write_pages(p, kPages);
    ::madvise(p, kPages * kPage, MADV_DONTNEED);
  }
  ::munmap(p, kPages * kPage);
  return true;
}

bool mprotect_loop() {
  char* p = map_anon_pages(kPages);
  if (p == nullptr) return false;
  for (int i = 0; i < kLoops; ++i) {
    write_pages(p, kPages);
    ::mprotect(p, kPages * kPage, PROT_READ);
    ::mprotect(p, kPages * kPage, PROT_READ | PROT_WRITE);
  }
  ::munmap(p, kPages * kPage);
  return true;
}

}  // namespace

const std::vector<std::string>& real_program_names() {
  static const std::vector<std::string> names = {"anon-mmap", "madvise", "mprotect"};
  return names;
}

bool run_real_program(const std::string& name) {
  if (name == "anon-mmap") return anon_mmap();
  if (name == "madvise") return madvise_dontneed();
  if (name == "mprotect") return mprotect_loop();
  return false;
}

}  // namespace mmreplay::tools::calibrate
