// Small helpers shared by the subcommands: opening a trace with its warnings on stderr, and
// human-readable sizes.

#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "formats/trace_reader.h"

namespace mmreplay::tools {

// Opens a trace; prints "warning: ..." lines for a recovered index, or the error line on failure
// (then returns nullptr; the caller exits with kExitBadInput).
std::unique_ptr<formats::TraceReader> open_trace_or_report(const std::string& path);

// "1.5 MiB", "812 B".
std::string human_bytes(uint64_t bytes);

// "1.234567890" seconds from nanoseconds.
std::string seconds_from_ns(uint64_t ns);

}  // namespace mmreplay::tools
