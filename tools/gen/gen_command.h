// The `trace-replay gen` command line, parsed and run without CLI11 so tests drive it directly:
//
//   gen --list                                    workloads, descriptions, parameters
//   gen NAME [--param value ...] [--max-bytes SIZE] -o FILE.mmtrace  write the trace
//
// Workload parameters differ per workload, so the CLI hands everything after `gen` here.
// Prints the list or the summary of the written trace on `out`, and the expected size of a trace
// ("gen: expecting about 1.2 GiB (34.5M events)") on `err` before it is written. Returns ok,
// InvalidArgument for bad usage (a flag, a value, the workload's name, no -o) and for a trace
// over --max-bytes (estimated before the file is created, or found while writing: then no file
// is left), or the writer's error (IOError when the trace cannot be written); the message names
// the flag, the workload or the file, and the CLI turns the code into the exit status
// (tools/cli/exit_code.h).

#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>

#include "common/status.h"

namespace mmreplay::gen {

// --max-bytes when not given: far above any trace the seeds need at full scale (the largest,
// jemalloc-purge, is ~12 MB), well below a disk, so only a runaway --loops or --scale meets it.
inline constexpr uint64_t kDefaultMaxTraceBytes = 64ull << 30;

Status run_gen_command(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace mmreplay::gen
