#include "tools/cli/record_probe.h"

#include <sys/mman.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <vector>

#include "formats/import/import.h"
#include "tools/cli/cli_util.h"
#include "tools/cli/commands.h"
#include "tools/cli/record_launch.h"
#include "tools/cli/record_perf.h"

namespace mmreplay::tools {
namespace {

uint64_t page_bytes() {
  return static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

// Maps kProbePages pages with transparent huge pages off (one fault per page, as the probe
// promises) and returns it, or nullptr. Warms free memory first (kProbeWarmRegions).
char* map_probe_region() {
  const uint64_t len = kProbePages * page_bytes();
  warm_free_memory(kProbeWarmRegions * len);
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  ::madvise(p, len, MADV_NOHUGEPAGE);
  return static_cast<char*>(p);
}

void touch_each_page(char* region) {
  volatile char* c = region;
  for (uint64_t i = 0; i < kProbePages; ++i) c[i * page_bytes()] = 1;
}

uint64_t median(std::vector<uint64_t>* v) {
  if (v->empty()) return 0;
  auto mid = v->begin() + static_cast<std::ptrdiff_t>(v->size() / 2);
  std::nth_element(v->begin(), mid, v->end());
  return *mid;
}

bool is_user_fault(const formats::Event& e) {
  return e.kind == formats::EventKind::kPageFault && !e.is_kernel_mode();
}

// Appends the gaps between consecutive user-mode faults a, b of `stream` (b no earlier than a)
// that keep(a, b) accepts: the probe's faults in its region, or a program's back-to-back ones.
template <typename Keep>
void user_fault_gaps(const std::vector<formats::Event>& stream, Keep keep,
                     std::vector<uint64_t>* gaps) {
  for (size_t k = 1; k < stream.size(); ++k) {
    const formats::Event& a = stream[k - 1];
    const formats::Event& b = stream[k];
    if (is_user_fault(a) && is_user_fault(b) && b.ts_ns >= a.ts_ns && keep(a, b)) {
      gaps->push_back(b.ts_ns - a.ts_ns);
    }
  }
}

// The fault loop untraced: the median time of one page's first write (the clock reads included,
// a few tens of ns), so preemption and page-table allocations weigh as they do in the traced
// medians.
uint64_t native_fault_ns() {
  char* region = map_probe_region();
  if (region == nullptr) return 0;
  std::vector<uint64_t> times;
  times.reserve(kProbePages);
  volatile char* c = region;
  for (uint64_t i = 0; i < kProbePages; ++i) {
    const auto start = std::chrono::steady_clock::now();
    c[i * page_bytes()] = 1;
    times.push_back(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now() - start)
                                              .count()));
  }
  ::munmap(region, kProbePages * page_bytes());
  return median(&times);
}

}  // namespace

int run_probe_loops() {
  char* region = map_probe_region();
  if (region == nullptr) return 1;
  touch_each_page(region);
  for (uint64_t i = 0; i < kProbeCalls; ++i) ::madvise(region, 0, MADV_NORMAL);
  ::munmap(region, kProbePages * page_bytes());
  return 0;
}

void tracing_cost_from_trace(const formats::ImportedTrace& trace, uint64_t region_bytes,
                             TracingCost* cost) {
  using formats::Event;
  using formats::EventKind;
  std::vector<uint64_t> syscall_gaps, fault_gaps;
  auto is_probe_call = [](const Event& e) {
    return e.kind == EventKind::kMadvise && e.len == 0 && e.has_duration();
  };
  for (const auto& stream : trace.streams) {
    // The probe's region: where its zero-length madvise calls point.
    auto call = std::find_if(stream.begin(), stream.end(), is_probe_call);
    if (call == stream.end()) continue;
    for (size_t k = 1; k < stream.size(); ++k) {
      const Event& a = stream[k - 1];
      const Event& b = stream[k];
      if (is_probe_call(a) && is_probe_call(b) && b.ts_ns >= a.end_ns()) {
        syscall_gaps.push_back(b.ts_ns - a.end_ns());
      }
    }
    const uint64_t lo = call->addr, hi = call->addr + region_bytes;
    auto in_region = [lo, hi](const Event& e) { return e.addr >= lo && e.addr < hi; };
    user_fault_gaps(
        stream, [&](const Event& a, const Event& b) { return in_region(a) && in_region(b); },
        &fault_gaps);
  }
  cost->syscall_samples = syscall_gaps.size();
  cost->fault_samples = fault_gaps.size();
  cost->tracing_ns = median(&syscall_gaps);
  const uint64_t fault_gap = median(&fault_gaps);
  cost->fault_ns = fault_gap > cost->tracing_ns ? fault_gap - cost->tracing_ns : 0;
}

ProgramFaultGaps program_fault_gaps(const formats::ImportedTrace& trace, uint64_t page_bytes) {
  auto next_page = [page_bytes](const formats::Event& a, const formats::Event& b) {
    return b.addr / page_bytes == a.addr / page_bytes + 1;
  };
  std::vector<uint64_t> gaps;
  for (const auto& stream : trace.streams) user_fault_gaps(stream, next_page, &gaps);
  return {gaps.size(), median(&gaps)};
}

bool program_faults_slower_than_probe(const ProgramFaultGaps& gaps, const TracingCost& cost) {
  const uint64_t probe_gap_ns = cost.fault_ns + cost.tracing_ns;
  if (gaps.samples < kMinProgramFaultGaps || cost.fault_samples == 0 || probe_gap_ns == 0) {
    return false;
  }
  return static_cast<double>(gaps.median_ns) >
         kProgramFaultsSlowerWarn * static_cast<double>(probe_gap_ns);
}

Status measure_tracing_cost(const std::string& perf, bool faults, const std::string& dir,
                            TracingCost* cost) {
  const std::string self = self_executable();
  if (self.empty()) return Status::io_error("record: cannot find its own binary (/proc/self/exe)");
  const std::string data = dir + "/probe.data", text = dir + "/probe.txt";
  const std::string probe_events = perf_event_list({"madvise"}, faults, false);
  uint64_t wall_ns = 0;
  int status = 0;
  Status s = run_program({perf, "record", "-q", "--switch-events", "-o", data, "-e", probe_events,
                          "--", self, kProbeCommand},
                         "/dev/null", true, &wall_ns, &status);
  if (s && status != 0) {
    s = Status::io_error("record: the tracing-cost probe under perf record failed (exit " +
                         std::to_string(status) + "); --no-probe records without it");
  }
  if (s) s = run_program(perf_script_argv(perf, data), text, true, &wall_ns, &status);
  formats::ImportedTrace trace;
  formats::ImportReport report;
  if (s) s = formats::import_file(formats::ImportFormat::kPerfScript, text, &trace, &report);
  if (!s) return s;
  tracing_cost_from_trace(trace, kProbePages * page_bytes(), cost);
  if (!faults) cost->fault_ns = 0;
  cost->native_fault_ns = native_fault_ns();
  return Status::ok();
}

void register_record_probe_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(kProbeCommand, "record's tracing-cost probe (internal)");
  cmd->group("");  // hidden from --help: record runs it under perf
  cmd->callback([exit_code] { *exit_code = run_probe_loops(); });
}

}  // namespace mmreplay::tools
