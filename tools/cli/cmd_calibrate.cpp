// trace-replay calibrate [-o FILE] [--quick] [--no-throughput] [--force] [--loop-seconds S]
//                        [--clock wall|cpu] [--realtime] [--reclaim] [--host-wait S]
// Measures this machine with small real programs (tools/calibrate/probes.h), prints each figure
// with its median and spread, and writes a cost profile (JSON, for --profile FILE) that is the
// default profile with the measured fields replaced, each with its source. Without --quick it
// then fits groups of fields to the throughput of will-it-scale style loops at 1 and all CPUs
// (tools/calibrate/throughput_fit.h); that fit refuses to start (exit 2) while the 1-minute load
// average exceeds the CPUs, unless --force, and waits up to --host-wait seconds for a host that
// gives every CPU alike and whole (tools/calibrate/host_capacity.h: a guest's host can take a
// vCPU away without the load average showing it). --quick never runs it: it stays a second or two.
// --reclaim (with or without --quick) last fits reclaim's per-page costs to seed 000's madv-bomb
// run here in a memory cgroup with swap (tools/calibrate/reclaim_fit.h).
// Exit 1 when the profile cannot be written (exit_code.h).

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "tools/calibrate/calibrate.h"
#include "tools/calibrate/proc_counters.h"
#include "tools/calibrate/real_programs.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"

namespace mmreplay::tools {
namespace {

struct CalibrateArgs {
  std::string output;
  bool quick = false;
  bool no_throughput = false;
  bool force = false;
  double loop_seconds = 0;  // 0: ThroughputOptions' default
  double host_wait = -1;    // < 0: ThroughputOptions' default
  std::string clock = "wall";
  bool realtime = false;
  bool reclaim = false;
  std::string run_program;  // internal: the program validate --real records
  std::string call_times;   // internal: where that program writes its calls' times
};

Status calibrate_machine(const CalibrateArgs& a) {
  if (!a.run_program.empty()) {
    const auto& known = calibrate::real_program_names();
    if (std::find(known.begin(), known.end(), a.run_program) == known.end()) {
      return Status::invalid_argument("--run-program " + a.run_program + ": unknown program");
    }
    calibrate::CallTimes times;
    // The programs fail only when this machine refuses them memory or a syscall.
    if (!calibrate::run_real_program(a.run_program, a.call_times.empty() ? nullptr : &times)) {
      return Status::io_error("--run-program " + a.run_program + ": failed");
    }
    return a.call_times.empty() ? Status::ok() : calibrate::write_call_times(a.call_times, times);
  }
  if (!a.call_times.empty()) return Status::invalid_argument("--call-times needs --run-program");
  calibrate::CalibrationOptions o;
  o.quick = a.quick;
  o.throughput = !a.quick && !a.no_throughput;
  if (a.loop_seconds > 0) o.throughput_options.seconds = a.loop_seconds;
  if (a.host_wait >= 0) o.throughput_options.host_wait_s = a.host_wait;
  o.throughput_options.realtime = a.realtime;
  o.reclaim = a.reclaim;
  o.throughput_options.clock =
      a.clock == "cpu" ? calibrate::LoopClock::kCpu : calibrate::LoopClock::kWall;
  if (o.throughput && !a.force) {
    if (Status s = calibrate::check_machine_quiet(); !s) return s;
  }
  std::cerr << "calibrate: measuring this machine" << (a.quick ? " (quick)" : "") << "\n";
  calibrate::Calibration c;
  if (Status s = calibrate::run_calibration(o, &std::cerr, &c); !s) return s;
  calibrate::print_calibration(c, std::cout);
  if (a.output.empty()) {
    std::cout << "(no profile written: -o FILE writes one for --profile FILE)\n";
    return Status::ok();
  }
  if (Status s = replay::write_cost_profile_json(a.output, c.profile); !s) return s;
  std::cout << "wrote " << a.output << "\n";
  return Status::ok();
}

}  // namespace

void register_calibrate_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Measure this machine and write a cost profile (JSON). As root with swap on, the swap-in "
      "probe runs in a memory cgroup of its own and sets vm.page-cluster to 0 while it runs "
      "(put back after, and by the next run if one is killed). When the swap is zram, a probe "
      "pushes a region out to it and reads it back (MADV_PAGEOUT, no root) for zram's costs");
  auto args = std::make_shared<CalibrateArgs>();
  cmd->add_option("-o,--output", args->output, "write the profile here (use with --profile FILE)");
  cmd->add_flag("--quick", args->quick,
                "few repetitions and small regions, no throughput fit (a second or two)");
  cmd->add_flag("--reclaim", args->reclaim,
                "also fit shrink_page and swap_out_page to madv-bomb runs here in a memcg with "
                "swap (root; 30-45 s: each arm 3-5 times, fitted to its median; skipped with the "
                "reason where the machine cannot)");
  cmd->add_flag("--no-throughput", args->no_throughput,
                "skip the fit to the throughput loops (probes only)");
  cmd->add_flag("--force", args->force, "measure the loops even when the load average is high");
  cmd->add_option("--loop-seconds", args->loop_seconds, "seconds per sample of a throughput loop")
      ->check(CLI::Range(0.01, 10.0));
  cmd->add_option("--host-wait", args->host_wait,
                  "seconds to wait before the throughput loops for a host that runs every CPU "
                  "alike and all of them at once as fast as each alone (default 30; 0: no wait)")
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--clock", args->clock,
                  "throughput loops on the wall clock or on the workers' CPU time (a shared "
                  "machine; leaves out the loops that sleep)")
      ->check(CLI::IsMember({"wall", "cpu"}));
  cmd->add_flag("--realtime", args->realtime,
                "time the throughput loops' workers under SCHED_FIFO (a shared machine; root)");
  // Hidden (empty group): the child that validate --real records.
  cmd->add_option("--run-program", args->run_program, "run one validate --real program")->group("");
  cmd->add_option("--call-times", args->call_times, "--run-program: time its calls into FILE")
      ->group("");
  cmd->callback([args, exit_code] {
    *exit_code = report_status("trace-replay calibrate", calibrate_machine(*args));
  });
}

}  // namespace mmreplay::tools
