// trace-replay record [-o FILE] [--events LIST|--all-syscalls] [--ground-truth] [--baseline]
//                     [--mmap-pages SIZE] [--warm-mib N] -- CMD ARGS...
// trace-replay record [-o FILE] [--events LIST|--all-syscalls] [--ground-truth]
//                     [--mmap-pages SIZE] --pid PID --duration S
// Runs CMD once under `perf record` with the memory-management tracepoints (its stdin, stdout
// and stderr are record's), or attaches to the running process PID (and the children it makes
// meanwhile) for S seconds; converts the recording with the perf script importer and writes an
// .mmtrace. Reports the events by kind, the events it ignored by name (with --all-syscalls,
// every syscall the importer does not model; otherwise only those asked for are traced), and the
// recording's
// cost: the traced span (first to last event of the trace, so perf's own start-up is left out)
// and, with --baseline, the wall time of one untraced run of CMD made first (its output is
// discarded; a command with side effects, such as `xz f`, should not be given --baseline).
// Then, unless --no-probe, it measures its own cost in a perf session like the recording's
// (record_probe.h: perf's cost per event and a page fault's kernel time; about a second, mostly
// perf's start-up) and stores them in the trace header, for replay to take out of the gaps.
//
// perf's ring buffer is --mmap-pages a CPU, by default 8 MiB as root (record_buffer_size());
// when perf still drops events, the report says so and how many.
//
// perf runs CMD behind record's launcher (record_launch.h), which warms --warm-mib MiB of free
// memory just before it execs CMD, so a virtual machine's host has not let it go cold during
// perf's start-up; the importer leaves the launcher's own events out. --warm-mib 0 runs CMD
// directly.
//
// Exit status: CMD's own (a trace is written however CMD ended); 127 when CMD cannot be run (not
// found, not executable), and then no trace is written; 1 when perf is missing or not permitted
// (the message says what to change) or the recording fails; 2 on a bad flag, event name or PID
// (exit_code.h). With --pid, 0 once the trace is written.

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/atomic_file.h"
#include "formats/import/fd_table.h"
#include "formats/import/import.h"
#include "formats/import/syscall.h"
#include "tools/calibrate/host_memcg.h"
#include "tools/calibrate/host_swap.h"
#include "tools/cli/cli_util.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"
#include "tools/cli/host_files.h"
#include "tools/cli/proc_number.h"
#include "tools/cli/record_launch.h"
#include "tools/cli/record_perf.h"
#include "tools/cli/record_probe.h"
#include "tools/cli/tracepoint_hold.h"

namespace mmreplay::tools {
namespace {

constexpr std::string_view kFaultEventName = "page_fault";
constexpr double kNsPerSecond = 1e9;

struct RecordArgs {
  std::string output;
  std::string events;
  bool ground_truth = false;
  bool all_syscalls = false;
  bool baseline = false;
  bool no_baseline = false;  // accepted for old scripts; no baseline is the default now
  bool keep = false;
  bool no_probe = false;
  int64_t pid = 0;
  double duration_s = 0;
  std::string cgroup;      // --cgroup DIR: the command runs in this cgroup, perf and record outside
  std::string mmap_pages;  // --mmap-pages: perf record's -m; "" for record_buffer_size()'s
  uint64_t warm_mib = kRecordWarmMiB;  // --warm-mib: the launcher's warm-up; 0: no launcher
  std::vector<std::string> command;
  // command[0] as record's own PATH finds it (run_record()). perf record puts the folder of its
  // own binary (/usr/bin) before PATH when it runs the command (perf's setup_path()), so given a
  // bare name it can run another program than the user's shell would: `python3` under pyenv ran
  // /usr/bin/python3 instead of the shim's 3.11.
  std::string executable;
};

// The command as record runs it: its first word the file it resolved to; with --cgroup, behind a
// shell that moves itself into the group and execs it (the trace starts with that shell).
std::vector<std::string> command_to_run(const RecordArgs& a) {
  std::vector<std::string> argv = a.command;
  if (!argv.empty() && !a.executable.empty()) argv[0] = a.executable;
  if (!a.cgroup.empty()) {
    argv.insert(argv.begin(),
                {"/bin/sh", "-c", "echo $$ > \"$0\"/cgroup.procs && exec \"$@\"", a.cgroup});
  }
  return argv;
}

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

// net.core.wmem_default: the send buffer a new socket got on this machine, and wmem_max, the cap
// on SO_SNDBUF (socket_wakeups.h).
constexpr const char* kWmemDefaultPath = "/proc/sys/net/core/wmem_default";
constexpr const char* kWmemMaxPath = "/proc/sys/net/core/wmem_max";
// vm.min_free_kbytes: the watermarks of this machine's zones, which replay on its memory takes.
constexpr const char* kMinFreeKbytesPath = "/proc/sys/vm/min_free_kbytes";

// A sysctl's number; 0 when it cannot be read.
uint64_t read_sysctl(const char* path) {
  return read_proc_number(path).value_or(0);
}

uint64_t file_bytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// What one recording produced, for the report.
struct Recording {
  uint64_t plain_ns = 0;     // the --baseline run's wall time
  uint64_t recorded_ns = 0;  // perf record's wall time, its start-up included
  uint64_t script_ns = 0;
  int command_status = 0;
  TracingCost cost;  // the probe's (all 0 with --no-probe or when it failed)
};

Status check_args(const RecordArgs& a) {
  if (a.pid == 0 && a.command.empty()) {
    return Status::invalid_argument("give the command to record after --, or --pid PID");
  }
  if (a.pid != 0 && !a.command.empty()) {
    return Status::invalid_argument("--pid: give either a command or --pid, not both");
  }
  if (a.pid < 0) return Status::invalid_argument(fmt::format("--pid {}: not a process id", a.pid));
  if (a.pid != 0 && !(a.duration_s > 0)) {
    return Status::invalid_argument("--pid needs --duration S (seconds, more than 0)");
  }
  if (a.pid == 0 && a.duration_s != 0) {
    return Status::invalid_argument("--duration: only with --pid");
  }
  if (a.pid != 0 && a.baseline) return Status::invalid_argument("--baseline: not with --pid");
  if (!a.cgroup.empty() && a.pid != 0) {
    return Status::invalid_argument("--cgroup: not with --pid (that process is in its own group)");
  }
  if (!a.cgroup.empty() && ::access((a.cgroup + "/cgroup.procs").c_str(), W_OK) != 0) {
    return Status::invalid_argument("--cgroup " + a.cgroup +
                                    ": not a cgroup folder record may move a process into (no "
                                    "writable cgroup.procs)");
  }
  if (!a.mmap_pages.empty() && !valid_mmap_size(a.mmap_pages)) {
    return Status::invalid_argument(
        "--mmap-pages " + a.mmap_pages +
        ": a page count or a size with B, K, M or G, as perf record -m takes it (e.g. 16M)");
  }
  if (a.all_syscalls && !a.events.empty()) {
    return Status::invalid_argument("--all-syscalls: not with --events");
  }
  if (a.pid != 0 && ::kill(static_cast<pid_t>(a.pid), 0) != 0 && errno == ESRCH) {
    return Status::invalid_argument(fmt::format("--pid {}: no such process", a.pid));
  }
  return Status::ok();
}

// The ring buffer a CPU perf record gets (-m): --mmap-pages, else record_buffer_size()'s for
// this machine; "" for perf's default.
std::string record_buffer(const RecordArgs& a) {
  if (!a.mmap_pages.empty()) return a.mmap_pages;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (pages <= 0 || page_size <= 0 || cpus <= 0) return "";
  return record_buffer_size(::geteuid() == 0,
                            static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size),
                            static_cast<uint32_t>(cpus));
}

// Whether perf runs the command behind record's launcher (not for --pid, nor with --warm-mib 0,
// nor when this binary cannot find itself).
bool uses_launcher(const RecordArgs& a) {
  return a.pid == 0 && a.warm_mib > 0 && !self_executable().empty();
}

// perf record's argv: the events, then the command (behind the launcher), or the process and a
// timer.
std::vector<std::string> perf_record_argv(const RecordArgs& a, const std::string& perf,
                                          const std::string& data, const std::string& events) {
  // --switch-events: when the threads left and regained their CPUs, so time they were
  // preempted between events is not replayed as think time (formats/think_time.h).
  std::vector<std::string> argv = {perf, "record", "-q", "--switch-events",
                                   "-o", data,     "-e", events};
  if (const std::string buffer = record_buffer(a); !buffer.empty()) {
    argv.insert(argv.end(), {"-m", buffer});
  }
  if (a.pid != 0) {
    // -p follows the threads of PID and what they create while recording (perf inherits by
    // default); the command after -- only times the recording and is not recorded itself.
    argv.insert(argv.end(),
                {"-p", std::to_string(a.pid), "--", "sleep", fmt::format("{:.3f}", a.duration_s)});
  } else {
    argv.push_back("--");
    const std::vector<std::string> command =
        uses_launcher(a) ? launcher_argv(self_executable(), a.warm_mib, command_to_run(a))
                         : command_to_run(a);
    argv.insert(argv.end(), command.begin(), command.end());
  }
  return argv;
}

// Runs the baseline (when asked), perf record and perf script; the text lands in `text`.
Status run_recording(const RecordArgs& a, const std::string& perf, const std::string& events,
                     const std::string& data, const std::string& text, Recording* r) {
  int status = 0;
  if (a.baseline) {
    if (Status s = run_program(command_to_run(a), "/dev/null", true, &r->plain_ns, &status); !s)
      return s;
  }
  Status s = run_program(perf_record_argv(a, perf, data, events), "", false, &r->recorded_ns,
                         &r->command_status);
  if (!s) return s;
  if (file_bytes(data) == 0) {
    return Status::io_error(
        fmt::format("perf record wrote no {} (exit {})", data, r->command_status));
  }
  return run_program(perf_script_argv(perf, data), text, true, &r->script_ns, &status);
}

void fill_recorder(const RecordArgs& a, const TracingCost& cost, formats::ImportedTrace* trace) {
  trace->meta.recorder.tool = "trace-replay record (perf)";
  trace->meta.recorder.tracing_cost_ns = cost.tracing_ns;
  trace->meta.recorder.fault_cost_ns = cost.fault_ns;
  std::string cmdline = "trace-replay record";
  if (a.ground_truth) cmdline += " --ground-truth";
  if (a.no_probe) cmdline += " --no-probe";
  if (a.all_syscalls) cmdline += " --all-syscalls";
  if (!a.events.empty()) cmdline += " --events " + a.events;
  if (a.pid != 0) cmdline += fmt::format(" --pid {} --duration {}", a.pid, a.duration_s);
  if (!a.cgroup.empty()) cmdline += " --cgroup " + a.cgroup;
  if (a.pid == 0 && a.warm_mib != kRecordWarmMiB)
    cmdline += fmt::format(" --warm-mib {}", a.warm_mib);
  if (!a.command.empty()) cmdline += " --";
  for (const std::string& w : a.command) cmdline += " " + w;
  trace->meta.recorder.command_line = cmdline;
  if (struct utsname u; trace->meta.recorder.kernel_release.empty() && ::uname(&u) == 0) {
    trace->meta.recorder.kernel_release = u.release;
  }
  trace->meta.recorder.min_free_kbytes = read_sysctl(kMinFreeKbytesPath);
  const HostSwap swap = host_swap();
  trace->meta.recorder.swap_bytes = swap.bytes;
  trace->meta.recorder.swap_device = swap.device;
  // The command runs in --cgroup's group, else in record's own (perf's child); --pid's process
  // in its own.
  trace->meta.recorder.memcg_limit_bytes =
      !a.cgroup.empty() ? cgroup_dir_memcg_limit(a.cgroup)
                        : host_memcg_limit(a.pid != 0 ? fmt::format("/proc/{}/cgroup", a.pid)
                                                      : "/proc/self/cgroup");
}

// First to last event of the trace, in ns (0 for fewer than two events).
uint64_t traced_span_ns(const formats::ImportedTrace& trace) {
  uint64_t first = std::numeric_limits<uint64_t>::max(), last = 0;
  for (const auto& stream : trace.streams) {
    for (const formats::Event& e : stream) {
      first = std::min(first, e.ts_ns);
      last = std::max(last, e.ts_ns);
    }
  }
  return last > first ? last - first : 0;
}

// How many files have their device's readahead window, by window (host_files.h).
void print_device_readahead(const formats::ImportedTrace& trace) {
  std::map<int32_t, size_t> files_per_kb;
  for (const formats::FileInfo& f : trace.meta.files) {
    if (f.read_ahead_kb >= 0) ++files_per_kb[f.read_ahead_kb];
  }
  if (files_per_kb.empty()) return;
  std::string list;
  for (const auto& [kb, n] : files_per_kb) {
    list += fmt::format("{}{} at {} KiB", list.empty() ? "" : ", ", n, kb);
  }
  std::fprintf(stderr, "  device read_ahead_kb: %s (files; replay reads ahead as they did)\n",
               list.c_str());
}

void print_report(const RecordArgs& a, const std::string& out, const formats::ImportReport& report,
                  const Recording& r, uint64_t span_ns, uint64_t perf_bytes,
                  const formats::ImportedTrace& trace) {
  const double events = static_cast<double>(report.events == 0 ? 1 : report.events);
  std::fprintf(stderr, "%s: %s", out.c_str(), formats::format_report(report).c_str());
  std::fprintf(stderr,
               "  wall time: %s%.3f s under perf record (its start-up included), perf script "
               "%.3f s; traced span %.6f s (first to last event)\n",
               a.baseline ? fmt::format("{:.6f} s plain, ", r.plain_ns / kNsPerSecond).c_str() : "",
               r.recorded_ns / kNsPerSecond, r.script_ns / kNsPerSecond, span_ns / kNsPerSecond);
  if (uses_launcher(a)) {
    std::fprintf(stderr,
                 "  warm start: up to %llu MiB of free memory cleared and freed just before the "
                 "command's exec (--warm-mib)\n",
                 static_cast<unsigned long long>(a.warm_mib));
  }
  if (report.lost_events > 0) {
    std::string buffer = record_buffer(a);
    if (buffer.empty()) {
      buffer = "perf's default";
    } else if (buffer.back() >= '0' && buffer.back() <= '9') {
      buffer += " pages";
    }
    std::fprintf(stderr,
                 "  hint: perf's ring buffer (%s a CPU) filled up: record again with a larger "
                 "--mmap-pages%s\n",
                 buffer.c_str(),
                 ::geteuid() == 0 ? "" : " (as root, or with kernel.perf_event_mlock_kb raised)");
  }
  if (a.baseline && r.plain_ns > 0) {
    std::fprintf(stderr, "  overhead: %.2fx (traced span / plain wall time)\n",
                 static_cast<double>(span_ns) / static_cast<double>(r.plain_ns));
  }
  if (r.cost.syscall_samples > 0) {
    std::fprintf(stderr,
                 "  tracing cost: %llu ns per event, page fault %llu ns (untraced %llu ns), from "
                 "%llu and %llu probe gaps; replay takes them out of the gaps\n",
                 static_cast<unsigned long long>(r.cost.tracing_ns),
                 static_cast<unsigned long long>(r.cost.fault_ns),
                 static_cast<unsigned long long>(r.cost.native_fault_ns),
                 static_cast<unsigned long long>(r.cost.syscall_samples),
                 static_cast<unsigned long long>(r.cost.fault_samples));
  }
  if (const ProgramFaultGaps gaps =
          program_fault_gaps(trace, static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)));
      program_faults_slower_than_probe(gaps, r.cost)) {
    std::fprintf(stderr,
                 "  warning: the program's %llu back-to-back faults took %llu ns at the median "
                 "against the probe's %llu ns: the machine ran slower while it ran (or it worked "
                 "on each page); replay keeps the difference as think time\n",
                 static_cast<unsigned long long>(gaps.samples),
                 static_cast<unsigned long long>(gaps.median_ns),
                 static_cast<unsigned long long>(r.cost.fault_ns + r.cost.tracing_ns));
  }
  print_device_readahead(trace);
  if (trace.meta.recorder.swap_bytes != 0) {
    std::fprintf(stderr, "  swap: %llu MiB, %s%s\n",
                 static_cast<unsigned long long>(trace.meta.recorder.swap_bytes >> 20),
                 trace.meta.recorder.swap_device.c_str(),
                 trace.meta.recorder.swap_device == "zram"
                     ? " (replay uses it, with zram's swap costs in a built-in profile)"
                     : " (replay uses it)");
  }
  if (trace.meta.recorder.min_free_kbytes != 0) {
    std::fprintf(stderr, "  vm.min_free_kbytes: %llu (replay on this machine's memory uses it)\n",
                 static_cast<unsigned long long>(trace.meta.recorder.min_free_kbytes));
  }
  if (trace.meta.recorder.memcg_limit_bytes != 0) {
    std::fprintf(stderr,
                 "  memcg limit: %llu MiB (the cgroup the command ran in; replay uses it, its "
                 "page cache charged to it)\n",
                 static_cast<unsigned long long>(trace.meta.recorder.memcg_limit_bytes >> 20));
    if (report.lost_events > 0 && a.cgroup.empty()) {
      std::fprintf(stderr,
                   "  hint: perf ran in that group too, and its reclaim takes perf's memory: "
                   "record from outside it with --cgroup DIR\n");
    }
  }
  std::fprintf(
      stderr, "  perf.data %llu bytes (%.1f bytes/event), .mmtrace %llu bytes (%.2f bytes/event)\n",
      static_cast<unsigned long long>(perf_bytes), perf_bytes / events,
      static_cast<unsigned long long>(file_bytes(out)), file_bytes(out) / events);
}

std::string output_path(const RecordArgs& a) {
  if (!a.output.empty()) return a.output;
  if (a.pid != 0) return fmt::format("pid-{}.mmtrace", a.pid);
  return std::filesystem::path(a.command[0]).filename().string() + ".mmtrace";
}

// Records, converts and writes; *exit gets CMD's exit status.
Status record(const RecordArgs& a, int* exit) {
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
  // What the traced process holds before it runs: the command inherits record's fds 0-2; an
  // attached process has its own (fd_table.h (5)).
  const auto inherited = a.pid != 0 ? open_fds(fmt::format("/proc/{}/fd", a.pid), INT32_MAX)
                                    : open_fds("/proc/self/fd", STDERR_FILENO);
  Recording r;
  std::string events = a.all_syscalls ? "syscalls:*," + perf_event_list({}, faults, a.ground_truth)
                                      : perf_event_list(syscalls, faults, a.ground_truth);
  // The paths of opens (fd_table.h): uprobes on libc's open functions, removed when done.
  const bool traces_opens =
      a.all_syscalls || std::any_of(syscalls.begin(), syscalls.end(), [](const std::string& c) {
        return c == "open" || c == "openat" || c == "creat";
      });
  std::optional<OpenProbes> probes;
  if (traces_opens) probes.emplace(perf);
  if (probes && !probes->events().empty()) events += "," + probes->events();
  Status s;
  {
    // perf's exits unregister no tracepoint while this holds them (tracepoint_hold.h).
    const TracepointHold hold(events);
    s = run_recording(a, perf, events, data, text, &r);
    if (s && !a.no_probe) {
      // The recording stands without it: replay then keeps the gaps as recorded.
      if (Status p = measure_tracing_cost(perf, faults, dir, &r.cost); !p) {
        std::fprintf(stderr, "trace-replay record: warning: %s\n", p.message().c_str());
        r.cost = TracingCost{};
      }
    }
  }
  formats::ImportedTrace trace;
  formats::ImportReport report;
  // What the kernel gave the command's sockets (read after the run: a sysctl changed meanwhile
  // is not seen).
  formats::ImportOptions import_options;
  import_options.wmem_default = read_sysctl(kWmemDefaultPath);
  import_options.wmem_max = read_sysctl(kWmemMaxPath);
  import_options.launcher_prologue = uses_launcher(a);
  if (s) {
    s = formats::import_file(formats::ImportFormat::kPerfScript, text, &trace, &report,
                             import_options);
  }
  const std::string out = output_path(a);
  if (s) {
    // The command is the first thread perf saw (perf enables the events at its exec).
    const uint64_t root = a.pid != 0                    ? static_cast<uint64_t>(a.pid)
                          : !trace.meta.threads.empty() ? trace.meta.threads[0].mm_id
                                                        : 0;
    formats::name_inherited_fds(root, inherited, &trace.meta.files);
    // Relative opens: against the working directory the command started in (fd_table.h).
    std::error_code cwd_error;
    const std::filesystem::path cwd =
        a.pid != 0 ? std::filesystem::read_symlink(fmt::format("/proc/{}/cwd", a.pid), cwd_error)
                   : std::filesystem::current_path(cwd_error);
    if (!cwd_error) formats::resolve_relative_paths(cwd.string(), &trace.meta.files);
    set_file_sizes(&trace.meta.files);
    set_device_readahead(&trace.meta.files);
    report.files_per_kind = {};
    for (const auto& f : trace.meta.files) ++report.files_per_kind[static_cast<size_t>(f.kind)];
    fill_recorder(a, r.cost, &trace);
    s = formats::write_imported_trace(trace, out, formats::WriterOptions{});
  }
  const uint64_t perf_bytes = file_bytes(data);
  cleanup();
  if (!s) return s;
  print_report(a, out, report, r, traced_span_ns(trace), perf_bytes, trace);
  if (a.keep) std::fprintf(stderr, "  kept %s and %s\n", data.c_str(), text.c_str());
  *exit = a.pid != 0 ? kExitOk : r.command_status;
  return Status::ok();
}

// record's exit status (the table at the top).
int run_record(RecordArgs a) {
  constexpr std::string_view kWho = "trace-replay record";
  if (Status s = check_args(a); !s) return report_status(kWho, s);
  if (a.pid == 0) {
    if (Status s = resolve_command(a.command[0], &a.executable); !s) {
      report_status(kWho, s);
      return kExitCannotRun;
    }
  }
  if (Status s = formats::check_output_path(output_path(a), "-o"); !s) {
    return report_status(kWho, s);
  }
  int exit = kExitOk;
  if (Status s = record(a, &exit); !s) return report_status(kWho, s);
  return exit;
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
  cmd->add_flag("--all-syscalls", args->all_syscalls,
                "trace every syscall (syscalls:*), so the report counts the ones not modelled; "
                "costs more");
  cmd->add_flag("--baseline", args->baseline,
                "first run CMD once untraced (output discarded) to time it; not for commands "
                "with side effects");
  cmd->add_flag("--no-baseline", args->no_baseline,
                "no effect (kept for old scripts): no baseline run is the default");
  cmd->add_option("--pid", args->pid,
                  "record the running process PID (and what it creates meanwhile) instead");
  cmd->add_option("--duration", args->duration_s, "with --pid: seconds to record");
  cmd->add_option("--cgroup", args->cgroup,
                  "run the command in this cgroup folder (e.g. /sys/fs/cgroup/memory/box), perf "
                  "outside it, and store its memory limit: a limited group's reclaim would take "
                  "perf's memory too and make it lose events");
  cmd->add_option("--mmap-pages", args->mmap_pages,
                  "perf record's ring buffer a CPU (its -m: pages, or a size with K, M or G); "
                  "default 8M as root (less on a small machine), perf's 512K otherwise: a full "
                  "buffer drops events");
  cmd->add_option("--warm-mib", args->warm_mib,
                  fmt::format("MiB of free memory allocated, cleared and freed just before the "
                              "command starts (at most a quarter of the free memory), so a VM's "
                              "host has not let it go cold during perf's start-up; 0: none "
                              "(default {})",
                              kRecordWarmMiB));
  cmd->add_flag("--keep", args->keep, "keep perf.data and the perf script text");
  cmd->add_flag("--no-probe", args->no_probe,
                "skip the short probe that measures perf's cost per event and a page fault's "
                "kernel time (replay then keeps the recorded gaps whole)");
  cmd->add_option("command", args->command, "the command to record, after --");
  cmd->callback([args, exit_code] { *exit_code = run_record(*args); });
}

}  // namespace mmreplay::tools
