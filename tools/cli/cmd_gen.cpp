// `trace-replay gen`: make a workload's trace (tools/gen/). CLI11 only routes the arguments: the
// workloads' parameters differ per workload, so everything after `gen` goes to run_gen_command().

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"
#include "tools/gen/gen_command.h"

namespace mmreplay::tools {

void register_gen_command(CLI::App& app, int* exit_code) {
  CLI::App* gen = app.add_subcommand(
      "gen", "make a workload's trace: gen NAME [--param value ...] -o FILE.mmtrace");
  gen->footer(
      "  gen --list   lists the workloads with their parameters, defaults and units\n"
      "  --max-bytes SIZE\n"
      "               largest trace to write (default 64G): gen prints its estimate and refuses\n"
      "               (exit 2) before writing when the estimate is larger, and stops a trace that\n"
      "               outgrows it, leaving no file\n"
      "  example:     gen madv-bomb --scale small -o bomb.mmtrace");
  // Every argument after `gen` (workload name, its parameters, -o) is ours to parse.
  gen->prefix_command();
  gen->callback([gen, exit_code]() {
    std::vector<std::string> args = gen->remaining();
    *exit_code =
        report_status("trace-replay gen", gen::run_gen_command(args, std::cout, std::cerr));
  });
}

}  // namespace mmreplay::tools
