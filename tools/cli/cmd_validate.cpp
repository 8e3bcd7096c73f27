// trace-replay validate [CASE ...] [--scale ci|default|full] [--json FILE] [--list]
// trace-replay validate --real [--profile NAME|FILE] [--policy P] [--program NAME ...]
//
// Replays each seed thread's experiment (tools/validate/cases.h) and prints the published and
// the model's figures side by side, with the ratio of every arm to the baseline and whether the
// directions agree. Exit 0 when every checked direction agrees, 1 when one does not, 2 on bad
// input. With --real it records small programs on this machine instead, replays them and
// prints predicted vs observed percentiles (tools/calibrate/real_validation.h).

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "tools/calibrate/real_validation.h"
#include "tools/cli/commands.h"
#include "tools/validate/case_output.h"
#include "tools/validate/cases.h"
#include "tools/validate/run_case.h"

namespace mmreplay::tools {
namespace {

struct ValidateArgs {
  std::vector<std::string> cases;
  std::string scale = "default";
  std::string json_path;
  std::string work_dir;
  int threads = 0;
  bool list = false;
  bool real = false;
  calibrate::RealValidationOptions real_options;
};

int validate_real(ValidateArgs& a) {
  if (!a.cases.empty()) {
    std::fprintf(stderr, "trace-replay validate: --real takes no case names\n");
    return kExitBadInput;
  }
  std::error_code ec;
  a.real_options.trace_replay = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    std::fprintf(stderr,
                 "trace-replay validate --real: cannot find this binary (/proc/self/exe)\n");
    return kExitRunFailure;
  }
  a.real_options.work_dir = a.work_dir;
  return calibrate::run_real_validation(a.real_options, std::cout, std::cerr);
}

int list_cases() {
  for (const validate::ValidationCase& c : validate::all_cases()) {
    std::printf("%-22s seed %s: %s\n", c.name.c_str(), c.seed.c_str(), c.title.c_str());
    for (const validate::Scale& s : c.scales) {
      std::printf("  %-8s %s\n", s.name.c_str(), s.note.c_str());
    }
  }
  return kExitOk;
}

int run_validate(ValidateArgs& a) {
  if (a.list) return list_cases();
  if (a.real) return validate_real(a);
  std::vector<const validate::ValidationCase*> chosen;
  if (a.cases.empty()) {
    for (const validate::ValidationCase& c : validate::all_cases()) chosen.push_back(&c);
  }
  for (const std::string& name : a.cases) {
    const validate::ValidationCase* c = validate::find_case(name);
    if (c == nullptr) {
      std::fprintf(stderr, "trace-replay validate: no case '%s' (validate --list shows them)\n",
                   name.c_str());
      return kExitBadInput;
    }
    chosen.push_back(c);
  }
  std::vector<validate::CaseResult> results;
  for (const validate::ValidationCase* c : chosen) {
    const validate::Scale* scale = c->find_scale(a.scale);
    if (scale == nullptr) {
      std::fprintf(stderr, "trace-replay validate: --scale %s: case %s has no such scale\n",
                   a.scale.c_str(), c->name.c_str());
      return kExitBadInput;
    }
    validate::CaseResult result;
    validate::RunCaseOptions options;
    options.threads = a.threads;
    options.work_dir = a.work_dir;
    if (formats::Status s = validate::run_case(*c, *scale, options, &result); !s) {
      std::fprintf(stderr, "trace-replay validate: %s\n", s.message().c_str());
      return kExitRunFailure;
    }
    validate::print_case(std::cout, result);
    std::cout << "\n";
    results.push_back(std::move(result));
  }
  validate::print_summary(std::cout, results);
  if (!a.json_path.empty()) {
    std::ofstream out(a.json_path);
    out << validate::cases_to_json(results).dump(1) << "\n";
    if (!out) {
      std::fprintf(stderr, "trace-replay validate: %s: cannot write\n", a.json_path.c_str());
      return kExitBadInput;
    }
  }
  for (const validate::CaseResult& r : results) {
    if (!r.passed()) return kExitRunFailure;
  }
  return kExitOk;
}

}  // namespace

void register_validate_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "replay the seed threads' experiments and set the model's figures beside theirs");
  cmd->add_option("case", args->cases, "cases to run (default: all; --list shows them)");
  cmd->add_option("--scale", args->scale, "ci, default or full (each case says what they mean)")
      ->check(CLI::IsMember({"ci", "default", "full"}));
  cmd->add_option("--json", args->json_path, "write the results as JSON here");
  cmd->add_option("--work-dir", args->work_dir, "where to generate the traces (default: temp)");
  cmd->add_option("--threads", args->threads, "host worker threads (default: all cores)");
  cmd->add_flag("--list", args->list, "list the cases and their scales");
  cmd->add_flag("--real", args->real,
                "record programs on this machine (perf), replay them, print observed vs predicted");
  cmd->add_option("--profile", args->real_options.profile,
                  "--real: cost profile: default, xeon-2014, zram, or a .json file (calibrate -o)");
  cmd->add_option("--policy", args->real_options.policy, "--real: policy to replay with");
  cmd->add_option("--program", args->real_options.programs,
                  "--real: programs to record: anon-mmap, madvise, mprotect (default: all)");
  cmd->callback([args, exit_code] { *exit_code = run_validate(*args); });
}

}  // namespace mmreplay::tools
