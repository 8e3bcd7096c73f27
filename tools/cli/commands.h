// The trace-replay subcommands. Each lives in its own cmd_NAME.cpp and registers itself on the
// top-level CLI11 app; its callback stores the process exit code in *exit_code.
//
// Exit codes (DESIGN.md, "Interface conventions"): 0 success, 1 a run failed, 2 bad input or
// usage, with one line on stderr that names the file, offset, line or flag.

#pragma once

namespace CLI {
class App;
}

namespace mmreplay::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailure = 1;
inline constexpr int kExitBadInput = 2;

void register_info_command(CLI::App& app, int* exit_code);
void register_cat_command(CLI::App& app, int* exit_code);
void register_check_command(CLI::App& app, int* exit_code);
void register_gen_command(CLI::App& app, int* exit_code);  // tools/cli/cmd_gen.cpp
void register_import_command(CLI::App& app, int* exit_code);  // tools/cli/cmd_import.cpp
void register_record_command(CLI::App& app, int* exit_code);  // tools/cli/cmd_record.cpp
void register_replay_command(CLI::App& app, int* exit_code);   // tools/cli/cmd_study.cpp
void register_compare_command(CLI::App& app, int* exit_code);  // tools/cli/cmd_study.cpp
void register_scale_command(CLI::App& app, int* exit_code);    // tools/cli/cmd_study.cpp
void register_merge_command(CLI::App& app, int* exit_code);
void register_policies_command(CLI::App& app, int* exit_code);
void register_validate_command(CLI::App& app, int* exit_code);  // tools/cli/cmd_validate.cpp
void register_calibrate_command(CLI::App& app, int* exit_code);  // tools/cli/cmd_calibrate.cpp
void register_report_command(CLI::App& app, int* exit_code);  // tools/cli/cmd_report.cpp

}  // namespace mmreplay::tools
