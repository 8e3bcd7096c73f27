#include "tools/calibrate/real_programs.h"

#include <sys/mman.h>

#include <cstddef>
#include <fstream>
#include <sstream>

#include "tools/calibrate/sample_stats.h"
#include "tools/calibrate/user_pages.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPage = kUserPage;
constexpr size_t kPages = 16;
constexpr int kLoops = 200;

// The programs' system calls, each timed into times_ (when there is one) under its results key.
class Calls {
  // Runs call(), timed under `key`. First: the calls below deduce its return type.
  template <typename Call>
  auto timed(const char* key, Call&& call) {
    if (times_ == nullptr) return call();
    const uint64_t start = now_ns();
    auto result = call();
    (*times_)[key].push_back(now_ns() - start);
    return result;
  }

  CallTimes* times_;

 public:
  explicit Calls(CallTimes* times) : times_(times) {}

  // map_anon_pages() (user_pages.h) with each of its two calls timed.
  char* map_anon(size_t pages) {
    void* p = timed("mmap", [&] { return mmap_anon_pages(pages); });
    if (p == MAP_FAILED) return nullptr;
    timed("madvise", [&] { return disable_thp(p, pages); });
    return static_cast<char*>(p);
  }
  bool advise(void* p, size_t pages, int advice) {
    return timed("madvise", [&] { return ::madvise(p, pages * kPage, advice); }) == 0;
  }
  bool protect(void* p, size_t pages, int prot) {
    return timed("mprotect", [&] { return ::mprotect(p, pages * kPage, prot); }) == 0;
  }
  bool unmap(void* p, size_t pages) {
    return timed("munmap", [&] { return ::munmap(p, pages * kPage); }) == 0;
  }
};

bool anon_mmap(Calls& c) {
  for (int i = 0; i < kLoops; ++i) {
    char* p = c.map_anon(kPages);
    if (p == nullptr) return false;
    write_pages(p, kPages);
    if (!c.unmap(p, kPages)) return false;
  }
  return true;
}

bool madvise_dontneed(Calls& c) {
  char* p = c.map_anon(kPages);
  if (p == nullptr) return false;
  for (int i = 0; i < kLoops; ++i) {
    write_pages(p, kPages);
    if (!c.advise(p, kPages, MADV_DONTNEED)) return false;
  }
  return c.unmap(p, kPages);
}

bool mprotect_loop(Calls& c) {
  char* p = c.map_anon(kPages);
  if (p == nullptr) return false;
  for (int i = 0; i < kLoops; ++i) {
    write_pages(p, kPages);
    if (!c.protect(p, kPages, PROT_READ)) return false;
    if (!c.protect(p, kPages, PROT_READ | PROT_WRITE)) return false;
  }
  return c.unmap(p, kPages);
}

}  // namespace

const std::vector<std::string>& real_program_names() {
  static const std::vector<std::string> names = {"anon-mmap", "madvise", "mprotect"};
  return names;
}

bool run_real_program(const std::string& name, CallTimes* times) {
  Calls calls(times);
  if (name == "anon-mmap") return anon_mmap(calls);
  if (name == "madvise") return madvise_dontneed(calls);
  if (name == "mprotect") return mprotect_loop(calls);
  return false;
}

Status write_call_times(const std::string& path, const CallTimes& times) {
  std::ofstream out(path);
  for (const auto& [key, ns] : times) {
    for (uint64_t v : ns) out << key << ' ' << v << '\n';
  }
  out.close();
  return out ? Status::ok() : Status::io_error(path + ": cannot write the call times");
}

Status read_call_times(const std::string& path, CallTimes* times) {
  std::ifstream in(path);
  if (!in) return Status::io_error(path + ": cannot read the call times");
  times->clear();
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream fields(line);
    std::string key, rest;
    uint64_t ns = 0;
    if (!(fields >> key >> ns) || (fields >> rest)) {
      return Status::invalid_argument(path + ":" + std::to_string(n) +
                                      ": not a call time (KEY NS): '" + line + "'");
    }
    (*times)[key].push_back(ns);
  }
  return Status::ok();
}

}  // namespace mmreplay::tools::calibrate
