// Crafting hostile traces for the reader's validation tests: a valid trace's frames re-encoded
// with one field changed, spliced back into the file.

#pragma once

#include <cstdint>
#include <string>

namespace mmreplay::formats::testing {

// The zstd frame `frame` (one chunk frame) re-encoded with its stream id set to `stream`.
std::string with_chunk_stream(const std::string& frame, uint32_t stream);

// `file` with the chunk frame at [offset, offset + size) replaced by `frame`.
std::string splice(const std::string& file, uint64_t offset, uint64_t size,
                   const std::string& frame);

}  // namespace mmreplay::formats::testing
