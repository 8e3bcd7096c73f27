// trace-replay replay | compare | scale: run a study and report it.

#include <CLI/CLI.hpp>

#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"
#include "tools/cli/study_command.h"

namespace mmreplay::tools {

void register_replay_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("replay", "Replay a trace under one policy on one machine");
  auto args = std::make_shared<StudyArgs>();
  args->command = "replay";
  cmd->add_option("trace", args->trace, "the .mmtrace file")->required();
  add_study_options(cmd, args.get());
  add_timeline_options(cmd, args.get());
  cmd->callback([args, exit_code] {
    if (args->policies.size() > 1 || args->cpus.size() > 1) {
      *exit_code = report_status(
          "trace-replay replay",
          Status::invalid_argument("one --policy and one --cpus (use compare or scale)"));
      return;
    }
    *exit_code = run_study_command(*args);
  });
}

void register_compare_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("compare", "Replay a trace once per policy and compare them");
  auto args = std::make_shared<StudyArgs>();
  args->command = "compare";
  cmd->add_option("trace", args->trace, "the .mmtrace file")->required();
  add_study_options(cmd, args.get());
  add_report_option(cmd, args.get());
  cmd->callback([args, exit_code] { *exit_code = run_study_command(*args); });
}

void register_scale_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("scale", "Replay across core counts, per policy");
  auto args = std::make_shared<StudyArgs>();
  args->command = "scale";
  cmd->add_option("trace", args->trace, "the .mmtrace file (or use --workload)");
  cmd->add_option("--workload", args->workload,
                  "generate this workload per core count, threads following it: "
                  "\"NAME [--param value ...]\"");
  add_study_options(cmd, args.get());
  add_report_option(cmd, args.get());
  cmd->callback([args, exit_code] {
    if (args->trace.empty() == args->workload.empty()) {
      *exit_code = report_status("trace-replay scale",
                                 Status::invalid_argument("give either TRACE or --workload"));
      return;
    }
    *exit_code = run_study_command(*args);
  });
}

}  // namespace mmreplay::tools
