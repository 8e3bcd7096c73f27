// The trace-replay subcommands. Each lives in its own cmd_NAME.cpp and registers itself on the
// top-level CLI11 app; its callback stores the process exit code in *exit_code, which
// exit_status() (tools/cli/exit_code.h) derives from the Status the subcommand ended with, after
// one line on stderr that names the file, offset, line or flag.

#pragma once

#include "tools/cli/exit_code.h"

namespace CLI {
class App;
}

namespace mmreplay::tools {

void register_info_command(CLI::App& app, int* exit_code);
void register_cat_command(CLI::App& app, int* exit_code);
void register_check_command(CLI::App& app, int* exit_code);
void register_gen_command(CLI::App& app, int* exit_code);            // tools/cli/cmd_gen.cpp
void register_import_command(CLI::App& app, int* exit_code);         // tools/cli/cmd_import.cpp
void register_record_command(CLI::App& app, int* exit_code);         // tools/cli/cmd_record.cpp
void register_record_probe_command(CLI::App& app, int* exit_code);   // tools/cli/record_probe.cpp
void register_record_launch_command(CLI::App& app, int* exit_code);  // tools/cli/record_launch.cpp
void register_replay_command(CLI::App& app, int* exit_code);         // tools/cli/cmd_study.cpp
void register_compare_command(CLI::App& app, int* exit_code);        // tools/cli/cmd_study.cpp
void register_scale_command(CLI::App& app, int* exit_code);          // tools/cli/cmd_study.cpp
void register_merge_command(CLI::App& app, int* exit_code);
void register_policies_command(CLI::App& app, int* exit_code);
void register_machines_command(CLI::App& app, int* exit_code);   // tools/cli/cmd_machines.cpp
void register_validate_command(CLI::App& app, int* exit_code);   // tools/cli/cmd_validate.cpp
void register_calibrate_command(CLI::App& app, int* exit_code);  // tools/cli/cmd_calibrate.cpp
void register_report_command(CLI::App& app, int* exit_code);     // tools/cli/cmd_report.cpp

}  // namespace mmreplay::tools
