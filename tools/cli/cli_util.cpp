#include "tools/cli/cli_util.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace mmreplay::tools {

Status open_trace(const std::string& path, std::unique_ptr<formats::TraceReader>* reader) {
  Status status;
  *reader = formats::TraceReader::open(path, formats::ReaderOptions(), &status);
  if (!*reader) return status;
  for (const std::string& w : (*reader)->warnings()) {
    std::fprintf(stderr, "warning: %s\n", w.c_str());
  }
  return Status::ok();
}

std::string human_bytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < std::size(kUnits)) {
    v /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::string seconds_from_ns(uint64_t ns) {
  return fmt::format("{}.{:09}", ns / 1000000000ull, ns % 1000000000ull);
}

std::string self_executable() {
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  return ec ? std::string() : self;
}

}  // namespace mmreplay::tools
