// The body shared by the text importer fuzz targets: any bytes are imported; the import either
// succeeds with a sound trace (streams in time order, vector ranges in bounds, thread table and
// streams of one size) or fails with a message that names the input and the line. Anything
// else aborts, so the fuzzer reports it.

#pragma once

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "formats/import/import.h"

namespace mmreplay::formats {

inline void fuzz_import(ImportFormat format, const uint8_t* data, size_t size) {
  ImportedTrace trace;
  ImportReport report;
  const std::string name = "fuzz-input";
  const Status s = import_text(
      format, name, std::string_view(reinterpret_cast<const char*>(data), size), &trace, &report);
  if (!s) {
    // "fuzz-input:LINE: ..." with a line number.
    const std::string& m = s.message();
    size_t i = name.size() + 1;
    if (m.compare(0, i, name + ":") != 0 || i >= m.size() || m[i] < '0' || m[i] > '9') std::abort();
    return;
  }
  if (trace.streams.size() != trace.meta.threads.size()) std::abort();
  for (const auto& stream : trace.streams) {
    for (size_t k = 0; k < stream.size(); ++k) {
      const Event& e = stream[k];
      if (k > 0 && e.ts_ns < stream[k - 1].ts_ns) std::abort();
      if (e.kind == EventKind::kMadviseVector &&
          uint64_t{e.range_begin} + e.range_count > trace.ranges.size()) {
        std::abort();
      }
    }
  }
  (void)format_report(report);
}

}  // namespace mmreplay::formats
