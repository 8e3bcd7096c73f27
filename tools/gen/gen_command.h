// The `trace-replay gen` command line, parsed and run without CLI11 so tests drive it directly:
//
//   gen --list                                    workloads, descriptions, parameters
//   gen NAME [--param value ...] -o FILE.mmtrace  write the trace
//
// Workload parameters differ per workload, so the CLI hands everything after `gen` here.
// Returns the exit code (tools/cli/commands.h): 0 ok, 1 the trace could not be written,
// 2 bad usage, with one line on `err` that names the flag, the workload or the file.

#pragma once

#include <ostream>
#include <span>
#include <string>

namespace mmreplay::gen {

int run_gen_command(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace mmreplay::gen
