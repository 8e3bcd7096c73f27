// trace-replay validate [CASE ...] [--scale ci|default|full] [--json FILE] [--list]
// trace-replay validate --real [--profile NAME|FILE] [--policy P] [--program NAME ...]
// trace-replay validate --real --throughput [--profile NAME|FILE] [--loop NAME ...] [--force]
//                                           [--clock wall|cpu] [--loop-seconds S] [--realtime]
//                                           [--host-wait S]
// trace-replay validate --real --pressure [--profile NAME|FILE] [--policy P] [--json FILE]
//                                         [--work-dir DIR]
//
// Replays each seed thread's experiment (tools/validate/cases.h) and prints the published and
// the model's figures side by side, with the ratio of every arm to the baseline and whether the
// directions agree. Exit 0 when every checked direction agrees, 1 when one does not, declared
// gaps included (a verdict, not an error: the summary says GAP or FAIL); errors exit as exit_code.h
// says (a case whose metric names an unknown op, lock or counter is bad input: 2, before anything
// runs). With --real it records small programs on this machine instead, replays them and prints
// predicted vs observed percentiles (tools/calibrate/real_validation.h); with --throughput it runs
// calibrate's throughput loops untraced instead and prints native vs predicted ops/s and IPIs
// (tools/calibrate/throughput_validation.h), refusing (exit 2) while the load average exceeds the
// CPUs unless --force; with --pressure it runs seed 000's madv-bomb under a memcg limit with swap
// and sets native time, CPU and swap traffic beside the model's
// (tools/calibrate/pressure_validation.h).

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "formats/atomic_file.h"
#include "replay/study.h"
#include "tools/calibrate/pressure_validation.h"
#include "tools/calibrate/proc_counters.h"
#include "tools/calibrate/real_validation.h"
#include "tools/calibrate/throughput_validation.h"
#include "tools/cli/cli_util.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"
#include "tools/validate/case_output.h"
#include "tools/validate/cases.h"
#include "tools/validate/extract.h"
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
  bool throughput = false;
  bool pressure = false;
  bool force = false;
  std::string clock = "wall";
  std::string policy;  // --policy; "" = each mode's default
  calibrate::RealValidationOptions real_options;
  calibrate::ThroughputValidationOptions throughput_options;
};

Status validate_real(ValidateArgs& a) {
  if (!a.cases.empty()) return Status::invalid_argument("--real takes no case names");
  if (a.pressure) {
    if (a.throughput) return Status::invalid_argument("--pressure and --throughput: pick one");
    calibrate::PressureValidationOptions o;
    o.profile = a.real_options.profile;
    if (!a.policy.empty()) o.policy = a.policy;
    o.work_dir = a.work_dir;
    o.json_path = a.json_path;
    calibrate::PressureValidationResult result;
    return calibrate::run_pressure_validation(o, std::cout, &result)
        .with_context("--real --pressure");
  }
  if (a.throughput) {
    if (!a.force) {
      if (Status s = calibrate::check_machine_quiet(); !s) return s.with_context("--throughput");
    }
    a.throughput_options.profile = a.real_options.profile;
    a.throughput_options.loops.clock =
        a.clock == "cpu" ? calibrate::LoopClock::kCpu : calibrate::LoopClock::kWall;
    return calibrate::run_throughput_validation(a.throughput_options, std::cout)
        .with_context("--real --throughput");
  }
  a.real_options.trace_replay = self_executable();
  if (a.real_options.trace_replay.empty()) {
    return Status::io_error("--real: cannot find this binary (/proc/self/exe)");
  }
  a.real_options.work_dir = a.work_dir;
  if (!a.policy.empty()) a.real_options.policy = a.policy;
  return calibrate::run_real_validation(a.real_options, std::cout).with_context("--real");
}

void list_cases() {
  for (const validate::ValidationCase& c : validate::all_cases()) {
    std::printf("%-22s seed %s: %s\n", c.name.c_str(), c.seed.c_str(), c.title.c_str());
    for (const validate::Scale& s : c.scales) {
      std::printf("  %-8s %s\n", s.name.c_str(), s.note.c_str());
    }
  }
}

// Runs the cases; *agreed is false when a checked direction disagrees (exit 1, not an error).
Status run_validate(ValidateArgs& a, bool* agreed) {
  *agreed = true;
  if (a.list) {
    list_cases();
    return Status::ok();
  }
  if (a.real) return validate_real(a);
  if (a.throughput) return Status::invalid_argument("--throughput needs --real");
  if (a.pressure) return Status::invalid_argument("--pressure needs --real");
  std::vector<const validate::ValidationCase*> chosen;
  if (a.cases.empty()) {
    for (const validate::ValidationCase& c : validate::all_cases()) chosen.push_back(&c);
  }
  for (const std::string& name : a.cases) {
    const validate::ValidationCase* c = validate::find_case(name);
    if (c == nullptr) {
      return Status::invalid_argument("no case '" + name + "' (validate --list shows them)");
    }
    chosen.push_back(c);
  }
  // A metric that names an op, lock or counter no run has is a bad case, found before any run.
  for (const validate::ValidationCase* c : chosen) {
    if (Status s = validate::check_case(*c); !s) return s;
  }
  std::vector<validate::CaseResult> results;
  for (const validate::ValidationCase* c : chosen) {
    const validate::Scale* scale = c->find_scale(a.scale);
    if (scale == nullptr) {
      return Status::invalid_argument("--scale " + a.scale + ": case " + c->name +
                                      " has no such scale");
    }
    validate::CaseResult result;
    validate::RunCaseOptions options;
    options.threads = a.threads;
    options.work_dir = a.work_dir;
    if (Status s = validate::run_case(*c, *scale, options, &result); !s) return s;
    validate::print_case(std::cout, result);
    std::cout << "\n";
    results.push_back(std::move(result));
  }
  validate::print_summary(std::cout, results);
  if (!a.json_path.empty()) {
    if (Status s = formats::write_file_atomically(
            a.json_path,
            [&](std::ostream& out) { out << validate::cases_to_json(results).dump(1) << "\n"; });
        !s) {
      return s;
    }
  }
  for (const validate::CaseResult& r : results) *agreed = *agreed && r.passed();
  return Status::ok();
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
  cmd->add_option("--threads", args->threads, "host worker threads (default: all cores)")
      ->check(CLI::Range(1, replay::kMaxHostThreads));
  cmd->add_flag("--list", args->list, "list the cases and their scales");
  cmd->add_flag("--real", args->real,
                "record programs on this machine (perf), replay them, print observed vs predicted");
  cmd->add_option("--profile", args->real_options.profile,
                  "--real: cost profile: default, xeon-2014, zram, or a .json file (calibrate -o)");
  cmd->add_option("--policy", args->policy,
                  "--real: policy to replay with (default: the model's defaults; with --pressure "
                  "running-kernel, this machine's kernel)");
  cmd->add_option("--program", args->real_options.programs,
                  "--real: programs to record: anon-mmap, madvise, mprotect (default: all)");
  cmd->add_flag("--throughput", args->throughput,
                "--real: run calibrate's throughput loops untraced, print native vs predicted");
  cmd->add_option("--loop", args->throughput_options.loops.loops,
                  "--real --throughput: loops to run (default: all)");
  cmd->add_option("--loop-seconds", args->throughput_options.loops.seconds,
                  "--real --throughput: seconds per sample of a loop")
      ->check(CLI::Range(0.01, 10.0));
  cmd->add_flag("--pressure", args->pressure,
                "--real: seed 000's madv-bomb under a memcg limit with swap (root), DONTNEED and "
                "FREE, native vs predicted time, CPU, faults and swap traffic");
  cmd->add_flag("--force", args->force, "--real --throughput: run even when the load is high");
  cmd->add_option("--host-wait", args->throughput_options.loops.host_wait_s,
                  "--real --throughput: seconds to wait before the loops for a host that runs "
                  "every CPU alike and all of them at once as fast as each alone (0: no wait)")
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--clock", args->clock,
                  "--real --throughput: wall clock, or the workers' CPU time (no loops that sleep)")
      ->check(CLI::IsMember({"wall", "cpu"}));
  cmd->add_flag("--realtime", args->throughput_options.loops.realtime,
                "--real --throughput: time the loops' workers under SCHED_FIFO (root)");
  cmd->callback([args, exit_code] {
    bool agreed = true;
    const Status status = run_validate(*args, &agreed);
    if (!status) {
      *exit_code = report_status("trace-replay validate", status);
    } else {
      *exit_code = agreed ? kExitOk : kExitFailure;
    }
  });
}

}  // namespace mmreplay::tools
