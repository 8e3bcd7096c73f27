// trace-replay: one binary, one subcommand per job (DESIGN.md, "Interface conventions").

#include <CLI/CLI.hpp>

#include <cstdio>

#include "tools/cli/commands.h"

int main(int argc, char** argv) {
  using namespace mmreplay::tools;
  CLI::App app{"trace-replay: replay memory-management traces against a model of Linux mm"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "trace-replay 0.1.0 (.mmtrace format 1.1)");
  int exit_code = kExitOk;
  register_info_command(app, &exit_code);
  register_cat_command(app, &exit_code);
  register_check_command(app, &exit_code);
  register_import_command(app, &exit_code);
  register_record_command(app, &exit_code);
  register_gen_command(app, &exit_code);
  register_replay_command(app, &exit_code);
  register_compare_command(app, &exit_code);
  register_scale_command(app, &exit_code);
  register_merge_command(app, &exit_code);
  register_policies_command(app, &exit_code);
  register_calibrate_command(app, &exit_code);
  register_validate_command(app, &exit_code);
  register_report_command(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "trace-replay: %s (see --help)\n", e.what());
    return kExitBadInput;
  }
  return exit_code;
}
