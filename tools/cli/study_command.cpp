#include "tools/cli/study_command.h"

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "formats/atomic_file.h"
#include "formats/trace_reader.h"
#include "kernelsim/costs/machine_presets.h"
#include "replay/hgrm.h"
#include "replay/policy_spec.h"
#include "replay/results_csv.h"
#include "replay/results_json.h"
#include "replay/results_table.h"
#include "replay/running_kernel.h"
#include "replay/study.h"
#include "replay/timeline_json.h"
#include "tools/cli/cli_util.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"
#include "tools/gen/generate.h"
#include "tools/gen/params.h"
#include "tools/report/report_html.h"

namespace mmreplay::tools {
namespace {

// Progress lines no more often than this; none at all for studies shorter than it.
constexpr double kProgressIntervalSeconds = 1.0;

bool parse_shard(const std::string& text, replay::Shard* shard) {
  unsigned i = 0, n = 0;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> i >> slash >> n) || slash != '/' || !in.eof() || i < 1 || n < 1 || i > n) {
    return false;
  }
  shard->index = i;
  shard->count = n;
  return true;
}

std::string sanitize(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  }
  return s;
}

// Generates `workload` with its thread (or process) count set to `cpus` into a temporary file.
Status generate_for_cpus(const std::string& workload, uint32_t cpus, std::string* path) {
  std::istringstream in(workload);
  std::string name, word;
  in >> name;
  std::vector<std::string> params;
  while (in >> word) params.push_back(word);
  gen::PreparedWorkload probe;
  if (Status s = gen::prepare_workload(name, params, "", &probe); !s) return s;
  bool fixed = false;
  for (const auto& p : params) fixed = fixed || p == "--threads" || p == "--processes";
  if (!fixed) {
    bool has_threads = false;
    for (const auto& spec : probe.spec->params) has_threads = has_threads || spec.name == "threads";
    params.push_back(has_threads ? "--threads" : "--processes");
    params.push_back(std::to_string(cpus));
  }
  *path = (std::filesystem::temp_directory_path() /
           ("trace-replay-scale-" + std::to_string(::getpid()) + "-" + sanitize(name) + "-" +
            std::to_string(cpus) + ".mmtrace"))
              .string();
  gen::PreparedWorkload prepared;
  gen::GenStats stats;
  if (Status s = gen::prepare_workload(name, params, *path, &prepared); !s) return s;
  return gen::generate_to_file(prepared, *path, formats::WriterOptions(), &stats);
}

Status write_hgrms(const std::string& dir, const replay::StudyResult& result) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::io_error("--hgrm " + dir + ": cannot create: " + ec.message());
  for (size_t i = 0; i < result.runs.size(); ++i) {
    const replay::RunResult& r = result.runs[i];
    for (const auto& [op, histogram] : r.ops) {
      // A named reference for the lambda: clang 14 (the fuzz preset) cannot capture a structured
      // binding.
      const auto& h = histogram;
      if (h.count() == 0) continue;
      const std::string file = dir + "/run" + std::to_string(result.run_index[i] + 1) + "-" +
                               sanitize(r.spec.policy_name) + "-" + std::to_string(r.cpus) +
                               "cpu-" + op + ".hgrm";
      if (Status s = formats::write_file_atomically(
              file, [&](std::ostream& out) { replay::write_hgrm(out, h); });
          !s) {
        return s;
      }
    }
  }
  return Status::ok();
}

// --report: the same page trace-replay report makes from the --json output.
Status write_report_from(const nlohmann::json& results, const StudyArgs& a) {
  if (a.report_path.empty()) return Status::ok();
  report::StudyData data;
  // Named as `report` on the --json file would name it, so both give the same page.
  const std::string name = a.json_path.empty() ? a.command + " results" : a.json_path;
  if (Status s = report::study_from_json(results, name, &data); !s) return s;
  return formats::write_file_atomically(
      a.report_path, [&](std::ostream& out) { out << report::build_report({data}); });
}

// --skip-damaged: decodes the whole trace once, drops what does not decode and says so.
Status drop_damaged_chunks(const std::string& command, formats::TraceReader* reader) {
  const size_t before = reader->chunks().size();
  const uint64_t events_before = reader->total_events();
  const std::vector<std::string> dropped = reader->drop_damaged_chunks();
  for (const std::string& line : dropped) std::fprintf(stderr, "warning: %s\n", line.c_str());
  if (dropped.empty()) return Status::ok();
  if (reader->chunks().empty()) {
    return Status::corruption(reader->path() + ": every chunk is damaged; nothing to replay");
  }
  std::fprintf(stderr, "%s: --skip-damaged dropped %zu of %zu chunks (%llu of %llu events)\n",
               command.c_str(), dropped.size(), before,
               static_cast<unsigned long long>(events_before - reader->total_events()),
               static_cast<unsigned long long>(events_before));
  return Status::ok();
}

// --keep-going after a failed run: the runs that finished, and the failed ones marked.
Status write_partial_json(const StudyArgs& a, const replay::Study& study,
                          const replay::Shard& shard, const replay::StudyResult& result) {
  size_t failed = 0;
  for (const Status& s : result.run_status) failed += s ? 0 : 1;
  replay::StudyInfo info{a.command, {}, study.runs.size(), shard};
  const nlohmann::json results = replay::study_to_json(info, study, result);
  if (Status s = formats::write_file_atomically(
          a.json_path, [&](std::ostream& out) { out << results.dump(1) << "\n"; });
      !s) {
    return s;
  }
  std::fprintf(stderr,
               "%s: --keep-going: %zu of %zu runs failed; %s holds the others and marks the failed "
               "ones (merge and report refuse it until they are rerun)\n",
               a.command.c_str(), failed, result.runs.size(), a.json_path.c_str());
  return Status::ok();
}

}  // namespace

void add_study_options(CLI::App* cmd, StudyArgs* a) {
  cmd->add_option("--policy", a->policies,
                  "policy: PRESET[+knob=value...] or knob=value[+...]; repeat or comma-separate "
                  "for several (trace-replay policies lists them)");
  cmd->add_option("--cpus", a->cpus, "simulated CPUs (scale: a list, e.g. 1,2,4,8)")
      ->delimiter(',');
  cmd->add_option("--memory", a->memory,
                  "simulated memory, e.g. 3G (default: the --machine's, else the trace's)");
  cmd->add_option("--machine", a->machine,
                  "machine preset: CPUs, memory, sockets/cores/SMT and their distance costs "
                  "(trace-replay machines lists them); --cpus and --memory override it");
  cmd->add_option("--swap", a->swap, "simulated swap, e.g. 8G; 0: none (default: the trace's)");
  cmd->add_option("--swap-device", a->swap_device,
                  "what the swap is: block (a disk or SSD: a swap-in waits for the read) or zram "
                  "(the read is the faulting CPU's decompression; since 4.15 it skips the swap "
                  "cache and readahead: policy sync_swapin); default: zram with --profile zram, "
                  "else the recording machine's, else block")
      ->check(CLI::IsMember({"block", "zram"}));
  cmd->add_option("--min-free-kbytes", a->min_free_kbytes,
                  "vm.min_free_kbytes of the simulated machine (default: the recording "
                  "machine's on the recorded memory, else the kernel's boot formula)");
  cmd->add_option("--memcg-limit", a->memcg_limit,
                  "limit of each memory cgroup, e.g. 1G (default: the limit of the cgroup the "
                  "trace was recorded in, else none); either turns memcg=page_counter on unless "
                  "the policy names memcg (memcg=off with this flag is an error)");
  cmd->add_option("--cma", a->cma, "CMA area for contiguous allocations, e.g. 64M (default: 16M)");
  cmd->add_option("--profile", a->profile,
                  "cost profile: default, xeon-2014, zram, or a .json file (calibrate -o)");
  cmd->add_option("--timing", a->timing,
                  "closed (next event after the previous ends + think) "
                  "or open (at trace timestamps)")
      ->check(CLI::IsMember({"closed", "open"}));
  cmd->add_option("--placement", a->placement,
                  "thread placement: spread, pack (threads of an mm together), as-recorded")
      ->check(CLI::IsMember({"spread", "pack", "as-recorded"}));
  cmd->add_option("--cache", a->cache,
                  "page cache of the trace's files at the start: warm, cold, or auto (warm for "
                  "files that existed before the recording, cold for those it created)")
      ->check(CLI::IsMember({"auto", "warm", "cold"}));
  cmd->add_option("--threads", a->threads, "host worker threads (default: all cores)")
      ->check(CLI::Range(1, replay::kMaxHostThreads));
  cmd->add_option("--shard", a->shard, "run only slice i of N of the study: i/N");
  cmd->add_option("--json", a->json_path, "write results JSON here");
  cmd->add_option("--csv", a->csv_path, "write results CSV here");
  cmd->add_option("--hgrm", a->hgrm_dir, "write one .hgrm per run and operation into DIR");
  cmd->add_option("--cache-chunks", a->cache_chunks, "decoded chunks the shared cache holds");
  cmd->add_flag("--skip-damaged", a->skip_damaged,
                "decode every chunk first and drop those that are damaged, saying which; replay "
                "the rest (without it a damaged chunk stops the study, exit 2)");
  cmd->add_flag("--keep-going", a->keep_going,
                "when a run fails, still write --json with the runs that finished and the failed "
                "ones marked (merge and report refuse it until they are rerun); exit as the "
                "failure says");
}

void add_report_option(CLI::App* cmd, StudyArgs* a) {
  cmd->add_option("--report", a->report_path,
                  "write an HTML report with plots here (as `report` makes from --json)");
}

void add_timeline_options(CLI::App* cmd, StudyArgs* a) {
  cmd->add_option("--timeline", a->timeline_path,
                  "write a Chrome/Perfetto trace-event JSON timeline of every simulated CPU here");
  cmd->add_option("--timeline-window", a->timeline_window,
                  "only this part of virtual time in the timeline: START:END, e.g. 10ms:20ms "
                  "(units ns, us, ms, s; no unit: ns)");
}

namespace {

Status run_study_args(const StudyArgs& a) {
  replay::Shard shard;
  if (!parse_shard(a.shard, &shard)) {
    return Status::invalid_argument("--shard " + a.shard + ": expected i/N, 1 <= i <= N");
  }
  uint64_t memory = 0, swap = 0, memcg_limit = 0;
  if (!a.memory.empty() && !gen::parse_bytes(a.memory, &memory)) {
    return Status::invalid_argument("--memory " + a.memory + ": not a size");
  }
  if (!a.swap.empty() && !gen::parse_bytes(a.swap, &swap)) {
    return Status::invalid_argument("--swap " + a.swap + ": not a size");
  }
  if (!a.swap.empty() && swap == 0) swap = replay::kNoSwap;  // --swap 0: none, not the trace's
  if (!a.memcg_limit.empty() && !gen::parse_bytes(a.memcg_limit, &memcg_limit)) {
    return Status::invalid_argument("--memcg-limit " + a.memcg_limit + ": not a size");
  }
  uint64_t cma = 0;
  if (!a.cma.empty() && !gen::parse_bytes(a.cma, &cma)) {
    return Status::invalid_argument("--cma " + a.cma + ": not a size");
  }
  if (!a.memory.empty() && memory == 0) {
    return Status::invalid_argument("--memory " + a.memory + ": must be above 0");
  }
  for (uint32_t c : a.cpus) {
    if (c == 0 || c > kernelsim::NR_CPUS) {
      return Status::invalid_argument("--cpus " + std::to_string(c) + ": outside 1.." +
                                      std::to_string(kernelsim::NR_CPUS));
    }
  }
  const kernelsim::MachinePreset* preset = nullptr;
  if (!a.machine.empty()) {
    preset = kernelsim::find_machine_preset(a.machine);
    if (preset == nullptr) {
      return Status::invalid_argument("--machine " + a.machine + ": no such machine (" +
                                      kernelsim::machine_preset_names() + ")");
    }
  }
  const std::vector<std::string> policies = replay::split_policy_list(a.policies);
  // Outputs are checked before any work: a missing or read-only directory fails now, not after
  // the simulation.
  for (const auto& [flag, path] :
       {std::pair<const char*, const std::string&>{"--json", a.json_path},
        {"--csv", a.csv_path},
        {"--report", a.report_path},
        {"--timeline", a.timeline_path}}) {
    if (path.empty()) continue;
    if (Status s = formats::check_output_path(path, flag); !s) return s;
  }
  if (!a.hgrm_dir.empty()) {
    if (Status s = formats::check_output_dir(a.hgrm_dir, "--hgrm"); !s) return s;
  }
  // Every policy is expanded and validated here, before any trace is generated or read; one that
  // names the trace's kernel (recorded-kernel) is checked now and expanded once it is open.
  std::vector<kernelsim::KernelConfig> configs(policies.size());
  std::vector<replay::TraceRewrites> rewrites(policies.size());
  for (size_t i = 0; i < policies.size(); ++i) {
    if (replay::names_recorded_kernel(policies[i])) {
      if (!a.workload.empty()) {
        return Status::invalid_argument("--policy '" + policies[i] +
                                        "': a generated workload was recorded on no kernel");
      }
      if (Status s = replay::check_recorded_kernel_spec(policies[i]); !s) return s;
      continue;
    }
    if (Status s = replay::resolve_policy(policies[i], &configs[i], &rewrites[i]); !s) return s;
  }
  kernelsim::SimTime window_start = kernelsim::SimTime::zero();
  kernelsim::SimTime window_end = kernelsim::SimTime::infinite();
  if (!a.timeline_window.empty()) {
    std::string error;
    if (!replay::parse_timeline_window(a.timeline_window, &window_start, &window_end, &error))
      return Status::invalid_argument(error);
    if (a.timeline_path.empty()) {
      return Status::invalid_argument("--timeline-window needs --timeline FILE.json");
    }
  }
  // No --cpus: the machine's CPUs (0 = the trace's, resolved per run).
  std::vector<uint32_t> cpu_list = !a.cpus.empty()     ? a.cpus
                                   : preset != nullptr ? std::vector<uint32_t>{preset->nr_cpus()}
                                                       : std::vector<uint32_t>{0};

  // Traces: one, or one generated per core count.
  std::vector<std::unique_ptr<formats::TraceReader>> readers;
  std::vector<std::string> generated;
  if (!a.workload.empty()) {
    for (uint32_t c : cpu_list) {
      std::string path;
      if (Status s = generate_for_cpus(a.workload, c, &path); !s) {
        return s.with_context("--workload");
      }
      generated.push_back(path);
      readers.emplace_back();
      if (Status s = open_trace(path, &readers.back()); !s) return s;
    }
  } else {
    readers.emplace_back();
    if (Status s = open_trace(a.trace, &readers.back()); !s) return s;
    if (a.skip_damaged) {
      if (Status s = drop_damaged_chunks(a.command, readers.back().get()); !s) return s;
    }
    const std::string& release = readers.back()->meta().recorder.kernel_release;
    for (size_t i = 0; i < policies.size(); ++i) {
      if (!replay::names_recorded_kernel(policies[i])) continue;
      if (Status s =
              replay::resolve_recorded_policy(policies[i], release, &configs[i], &rewrites[i]);
          !s)
        return s.with_context(a.trace);
    }
  }

  replay::Study study;
  for (const auto& r : readers) study.traces.push_back(r.get());
  for (size_t p = 0; p < policies.size(); ++p) {
    for (size_t c = 0; c < cpu_list.size(); ++c) {
      replay::StudyRun run;
      run.trace = a.workload.empty() ? 0 : c;
      run.spec.policy_name = policies[p];
      run.spec.config = configs[p];
      run.spec.rewrites = rewrites[p];
      run.spec.cpus = cpu_list[c];
      run.spec.memory_bytes = memory;
      run.spec.swap_bytes = swap;
      run.spec.swap_device = a.swap_device;
      run.spec.min_free_kbytes = a.min_free_kbytes;
      run.spec.memcg_limit_bytes = memcg_limit;
      run.spec.cma_bytes = cma;
      run.spec.profile = a.profile;
      run.spec.machine = a.machine;
      run.spec.timing = a.timing == "open" ? replay::Timing::kOpen : replay::Timing::kClosed;
      run.spec.placement = a.placement == "pack"          ? replay::Placement::kPack
                           : a.placement == "as-recorded" ? replay::Placement::kAsRecorded
                                                          : replay::Placement::kSpread;
      run.spec.cache = a.cache == "warm"   ? replay::CacheStart::kWarm
                       : a.cache == "cold" ? replay::CacheStart::kCold
                                           : replay::CacheStart::kAuto;
      run.spec.timeline_path = a.timeline_path;
      run.spec.timeline_window_start_ns = window_start.count_ns();
      run.spec.timeline_window_end_ns = window_end.count_ns();
      study.runs.push_back(run);
    }
  }

  replay::StudyOptions options;
  options.threads = a.threads;
  options.cache_chunks = a.cache_chunks;
  options.shard = shard;
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  options.progress = [&](size_t done, size_t total, uint64_t events) {
    const auto now = std::chrono::steady_clock::now();
    const double since_start = std::chrono::duration<double>(now - start).count();
    if (since_start < kProgressIntervalSeconds && done < total) return;
    if (std::chrono::duration<double>(now - last).count() < kProgressIntervalSeconds &&
        done < total)
      return;
    if (since_start < kProgressIntervalSeconds) return;  // quick studies print nothing
    last = now;
    std::fprintf(stderr, "%s%s: %zu/%zu runs, %llu events, %.1fM events/s%s", tty ? "\r" : "",
                 a.command.c_str(), done, total, static_cast<unsigned long long>(events),
                 static_cast<double>(events) / since_start / 1e6, tty && done < total ? "" : "\n");
  };
  replay::StudyResult result;
  const Status status = replay::run_study(study, options, &result);
  for (const auto& path : generated) std::filesystem::remove(path);

  std::vector<std::string> labels;
  for (const auto& r : result.runs) {
    labels.push_back(cpu_list.size() > 1 ? r.spec.policy_name + " @" + std::to_string(r.cpus)
                                         : r.spec.policy_name);
  }
  if (!result.runs.empty() && status) {
    if (a.command == "scale") {
      replay::print_scaling(std::cout, result.runs);
    } else {
      replay::print_comparison(std::cout, result.runs, labels);
    }
    std::printf(
        "host: %zu runs on %d threads in %.2f s, %.1fM events/s, chunk cache hit rate %.1f%%\n",
        result.runs.size(), result.host.threads, result.host.wall_seconds,
        result.host.events_per_second / 1e6, 100.0 * result.host.cache.hit_rate());
  }
  // A failed study writes no results: files from an earlier run stay as they were, and no file
  // of zeroed runs can be merged or reported as if it were a result (issue 15). With --keep-going
  // the --json keeps the runs that finished and marks the failed ones, which merge and report
  // refuse.
  if (!status) {
    if (a.keep_going && !a.json_path.empty() && !result.runs.empty()) {
      if (Status s = write_partial_json(a, study, shard, result); !s) return s;
    }
    if (status.code() == StatusCode::kCorruption && !a.skip_damaged && a.workload.empty()) {
      return Status::corruption(status.message() +
                                " (--skip-damaged drops damaged chunks and replays the rest)");
    }
    return status;
  }
  if (!a.json_path.empty() || (!a.report_path.empty() && !result.runs.empty())) {
    replay::StudyInfo info{a.command, {}, study.runs.size(), shard};
    const nlohmann::json results = replay::study_to_json(info, study, result);
    if (!a.json_path.empty()) {
      if (Status s = formats::write_file_atomically(
              a.json_path, [&](std::ostream& out) { out << results.dump(1) << "\n"; });
          !s) {
        return s;
      }
    }
    if (!result.runs.empty()) {
      if (Status s = write_report_from(results, a); !s) return s;
    }
  }
  if (!a.csv_path.empty()) {
    if (Status s = formats::write_file_atomically(
            a.csv_path,
            [&](std::ostream& out) { replay::write_csv(out, result.run_index, result.runs); });
        !s) {
      return s;
    }
  }
  if (!a.hgrm_dir.empty()) {
    if (Status s = write_hgrms(a.hgrm_dir, result); !s) return s;
  }
  return status;
}

}  // namespace

int run_study_command(const StudyArgs& a) {
  return report_status("trace-replay " + a.command, run_study_args(a));
}

}  // namespace mmreplay::tools
