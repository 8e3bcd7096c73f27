// Full verification of a trace file for `trace-replay check`: every frame decompresses with a
// good content checksum and decodes, the header is readable, the index (if present) matches the
// frames exactly, and every stream's sequence numbers run without gaps.

#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace mmreplay::formats {

struct CheckReport {
  uint64_t frames = 0;  // zstd and skippable frames seen
  uint64_t chunks = 0;
  uint64_t events = 0;
  bool has_index = false;
};

// Returns ok when the file is sound; otherwise the first problem, naming the byte offset.
Status check_trace(const std::string& path, CheckReport* report);

}  // namespace mmreplay::formats
