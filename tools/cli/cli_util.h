// Small helpers shared by the subcommands: opening a trace with its warnings on stderr,
// human-readable sizes, and this binary's path.

#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "formats/trace_reader.h"

namespace mmreplay::tools {

// Opens a trace into *reader and prints "warning: ..." lines on stderr for a recovered index.
// On failure returns the reader's status for the caller to report, and *reader is empty.
Status open_trace(const std::string& path, std::unique_ptr<formats::TraceReader>* reader);

// "1.5 MiB", "812 B".
std::string human_bytes(uint64_t bytes);

// "1.234567890" seconds from nanoseconds.
std::string seconds_from_ns(uint64_t ns);

// This binary's path (/proc/self/exe), or "" when it cannot be read: what record runs under perf
// (its probe and launcher) and validate --real records with.
std::string self_executable();

}  // namespace mmreplay::tools
