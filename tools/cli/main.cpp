// trace-replay: one binary, one subcommand per job (DESIGN.md, "Interface conventions").

#include <CLI/CLI.hpp>

#include <exception>
#include <new>
#include <string>

#include "common/status.h"
#include "replay/host_malloc.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"

int main(int argc, char** argv) {
  using namespace mmreplay::tools;
  using mmreplay::Status;
  mmreplay::replay::tune_host_malloc();
  CLI::App app{"trace-replay: replay memory-management traces against a model of Linux mm"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "trace-replay 0.1.0 (.mmtrace format 1.1)");
  int exit_code = kExitOk;
  register_info_command(app, &exit_code);
  register_cat_command(app, &exit_code);
  register_check_command(app, &exit_code);
  register_import_command(app, &exit_code);
  register_record_command(app, &exit_code);
  register_record_probe_command(app, &exit_code);
  register_record_launch_command(app, &exit_code);
  register_gen_command(app, &exit_code);
  register_replay_command(app, &exit_code);
  register_compare_command(app, &exit_code);
  register_scale_command(app, &exit_code);
  register_merge_command(app, &exit_code);
  register_policies_command(app, &exit_code);
  register_machines_command(app, &exit_code);
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
    // CLI11's usage errors (an unknown flag, a missing or malformed value): bad input.
    return report_status("trace-replay",
                         Status::invalid_argument(std::string(e.what()) + " (see --help)"));
  } catch (const std::bad_alloc&) {
    return report_status("trace-replay", Status::resource_exhausted("out of memory"));
  } catch (const std::exception& e) {
    // Subcommands report failures as a Status; an exception escaping one is a bug.
    return report_status("trace-replay",
                         Status::internal(std::string("uncaught exception: ") + e.what()));
  }
  return exit_code;
}
