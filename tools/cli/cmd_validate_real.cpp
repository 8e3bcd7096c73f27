// trace-replay validate --real [--profile NAME|FILE] [--policy P] [--program NAME ...]
// Temporary home of `validate --real` (tools/calibrate/real_validation.h) until the validate
// command with the seed cases lands and routes --real there. Without --real it is a usage error.

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "tools/calibrate/real_validation.h"
#include "tools/cli/commands.h"

namespace mmreplay::tools {
namespace {

struct ValidateRealArgs {
  bool real = false;
  calibrate::RealValidationOptions options;
};

int validate_real(ValidateRealArgs& a) {
  if (!a.real) {
    std::fprintf(stderr, "trace-replay validate: only --real is available in this build\n");
    return kExitBadInput;
  }
  std::error_code ec;
  a.options.trace_replay = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    std::fprintf(stderr,
                 "trace-replay validate --real: cannot find this binary (/proc/self/exe)\n");
    return kExitRunFailure;
  }
  return calibrate::run_real_validation(a.options, std::cout, std::cerr);
}

}  // namespace

void register_validate_real_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "validate", "--real: record small programs here, replay them, compare latencies");
  auto args = std::make_shared<ValidateRealArgs>();
  cmd->add_flag("--real", args->real,
                "record programs on this machine (perf), replay them, print observed vs predicted");
  cmd->add_option("--profile", args->options.profile,
                  "cost profile: default, xeon-2014, zram, or a .json file (calibrate -o)");
  cmd->add_option("--policy", args->options.policy, "policy to replay with (default: default)");
  cmd->add_option("--program", args->options.programs,
                  "programs to record: anon-mmap, madvise, "
                  "mprotect (default: all)");
  cmd->add_option("--work-dir", args->options.work_dir, "keep the recordings in this folder");
  cmd->callback([args, exit_code] { *exit_code = validate_real(*args); });
}

}  // namespace mmreplay::tools
