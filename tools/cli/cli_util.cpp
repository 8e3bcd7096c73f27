#include "tools/cli/cli_util.h"

#include <fmt/format.h>

#include <cstdio>

namespace mmreplay::tools {

std::unique_ptr<formats::TraceReader> open_trace_or_report(const std::string& path) {
  formats::Status status;
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &status);
  if (!reader) {
    std::fprintf(stderr, "trace-replay: %s\n", status.message().c_str());
    return nullptr;
  }
  for (const std::string& w : reader->warnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());
  return reader;
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

}  // namespace mmreplay::tools
