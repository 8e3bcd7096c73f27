// The `trace-replay gen` command line, parsed and run without CLI11 so tests drive it directly:
//
//   gen --list                                    workloads, descriptions, parameters
//   gen NAME [--param value ...] -o FILE.mmtrace  write the trace
//
// Workload parameters differ per workload, so the CLI hands everything after `gen` here.
// Prints the list or the summary of the written trace on `out`. Returns ok, InvalidArgument for
// bad usage (a flag, a value, the workload's name, no -o), or the writer's error (IOError when
// the trace cannot be written); the message names the flag, the workload or the file, and the
// CLI turns the code into the exit status (tools/cli/exit_code.h).

#pragma once

#include <ostream>
#include <span>
#include <string>

#include "common/status.h"

namespace mmreplay::gen {

Status run_gen_command(std::span<const std::string> args, std::ostream& out);

}  // namespace mmreplay::gen
