// trace-replay record [-o FILE] [--events LIST] [--ground-truth] [--no-baseline] -- CMD ARGS...
// Runs CMD under `perf record` with the memory-management tracepoints, converts the recording
// with the perf script importer and writes an .mmtrace. Reports the recording's overhead: CMD's
// wall time run plainly (unless --no-baseline) and under perf, and perf.data's size beside the
// trace's. Exit 1 when perf is missing or not permitted (the message says what to change) or
// the recording fails; 2 on a bad flag or event name (exit_code.h).

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "formats/import/import.h"
#include "formats/import/syscall.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"
#include "tools/cli/record_perf.h"

namespace mmreplay::tools {
namespace {

constexpr std::string_view kFaultEventName = "page_fault";
constexpr double kNsPerSecond = 1e9;

struct RecordArgs {
  std::string output;
  std::string events;
  bool ground_truth = false;
  bool no_baseline = false;
  bool keep = false;
  std::vector<std::string> command;
};

// --events "mmap,munmap,page_fault": syscalls the importer knows, and page_fault.
bool parse_events(const std::string& list, std::vector<std::string>* syscalls, bool* faults,
                  std::string* bad) {
  *faults = false;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string name = list.substr(start, comma - start);
    formats::Syscall sc;
    if (name == kFaultEventName) {
      *faults = true;
    } else if (formats::syscall_from_name(name, &sc)) {
      syscalls->push_back(name);
    } else {
      *bad = name;
      return false;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

uint64_t file_bytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

Status record(const RecordArgs& a) {
  std::vector<std::string> syscalls;
  bool faults = true;
  if (a.events.empty()) {
    syscalls = default_record_syscalls();
  } else if (std::string bad; !parse_events(a.events, &syscalls, &faults, &bad)) {
    return Status::invalid_argument(fmt::format(
        "--events: unknown event '{}' (syscalls the importer reads, or {})", bad, kFaultEventName));
  }
  std::string perf;
  if (Status s = find_perf(&perf); !s) return s;
  if (Status s = check_perf_permitted(); !s) return s;

  char tmpl[] = "/tmp/trace-replay-record.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return Status::io_error("cannot make a temporary folder");
  const std::string dir = tmpl;
  const std::string data = dir + "/perf.data", text = dir + "/perf-script.txt";
  auto cleanup = [&] {
    if (!a.keep) std::filesystem::remove_all(dir);
  };

  uint64_t plain_ns = 0, recorded_ns = 0, script_ns = 0;
  int status = 0;
  if (!a.no_baseline) {
    if (Status s = run_program(a.command, "", false, &plain_ns, &status); !s) {
      cleanup();
      return s;
    }
  }
  std::vector<std::string> argv = {
      perf, "record", "-q", "-o", data, "-e", perf_event_list(syscalls, faults, a.ground_truth),
      "--"};
  argv.insert(argv.end(), a.command.begin(), a.command.end());
  Status s = run_program(argv, "", false, &recorded_ns, &status);
  if (s && file_bytes(data) == 0) {
    s = Status::io_error(fmt::format("perf record wrote no {} (exit {})", data, status));
  }
  if (s) {
    s = run_program(
        {perf, "script", "-i", data, "--header", "-F", "comm,pid,tid,cpu,time,event,trace", "--ns"},
        text, true, &script_ns, &status);
  }
  formats::ImportedTrace trace;
  formats::ImportReport report;
  if (s) s = formats::import_file(formats::ImportFormat::kPerfScript, text, &trace, &report);
  if (!s) {
    cleanup();
    return s;
  }
  trace.meta.recorder.tool = "trace-replay record (perf)";
  std::string cmdline = "trace-replay record";
  if (a.ground_truth) cmdline += " --ground-truth";
  if (!a.events.empty()) cmdline += " --events " + a.events;
  cmdline += " --";
  for (const std::string& w : a.command) cmdline += " " + w;
  trace.meta.recorder.command_line = cmdline;
  if (struct utsname u; trace.meta.recorder.kernel_release.empty() && ::uname(&u) == 0) {
    trace.meta.recorder.kernel_release = u.release;
  }
  const std::string out = a.output.empty()
                              ? std::filesystem::path(a.command[0]).filename().string() + ".mmtrace"
                              : a.output;
  s = formats::write_imported_trace(trace, out, formats::WriterOptions{});
  const uint64_t perf_bytes = file_bytes(data);
  cleanup();
  if (!s) return s;

  const double events = static_cast<double>(report.events == 0 ? 1 : report.events);
  std::fprintf(stderr, "%s: %s", out.c_str(), formats::format_report(report).c_str());
  std::fprintf(
      stderr, "  wall time: %s%.3f s under perf record (perf script %.3f s)\n",
      a.no_baseline ? "" : fmt::format("{:.3f} s plain, ", plain_ns / kNsPerSecond).c_str(),
      recorded_ns / kNsPerSecond, script_ns / kNsPerSecond);
  if (!a.no_baseline && plain_ns > 0) {
    std::fprintf(stderr, "  overhead: %.2fx the plain run\n",
                 static_cast<double>(recorded_ns) / static_cast<double>(plain_ns));
  }
  std::fprintf(
      stderr, "  perf.data %llu bytes (%.1f bytes/event), .mmtrace %llu bytes (%.2f bytes/event)\n",
      static_cast<unsigned long long>(perf_bytes), perf_bytes / events,
      static_cast<unsigned long long>(file_bytes(out)), file_bytes(out) / events);
  if (a.keep) std::fprintf(stderr, "  kept %s and %s\n", data.c_str(), text.c_str());
  return Status::ok();
}

}  // namespace

void register_record_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("record", "Run a command under perf record and write an .mmtrace");
  auto args = std::make_shared<RecordArgs>();
  cmd->add_option("-o,--output", args->output, "the .mmtrace to write (default CMD.mmtrace)");
  cmd->add_option(
      "--events", args->events,
      "comma list of syscalls to record, and page_fault (default: all the importer reads)");
  cmd->add_flag("--ground-truth", args->ground_truth,
                "also record mmap_lock:*, lock:contention_*, tlb:tlb_flush (kept as counts)");
  cmd->add_flag("--no-baseline", args->no_baseline, "do not run CMD once without recording");
  cmd->add_flag("--keep", args->keep, "keep perf.data and the perf script text");
  cmd->add_option("command", args->command, "the command to record, after --")->required();
  cmd->callback(
      [args, exit_code] { *exit_code = report_status("trace-replay record", record(*args)); });
}

}  // namespace mmreplay::tools
