// The probe `record` runs to measure its own cost on this machine, so replay can take it out of
// the recorded gaps (formats/think_time.h).
//
// Method: the probe program (this binary's hidden `record-probe` subcommand) maps kProbePages
// pages and writes each once (one page fault each, nothing else between them), then calls
// madvise(addr, 0, MADV_NORMAL) kProbeCalls times (a syscall that returns at once). It runs
// under `perf record` as the recording does (--switch-events, the madvise tracepoints, and the
// fault tracepoints when the recording has them), and the recording is imported with the same
// importer. Only those events fire in the loops; the recording's other tracepoints would not
// change what one costs (any enabled syscall tracepoint already sends every syscall of the task
// through the tracing entry path), but perf takes seconds to set up syscalls:* alone, so they are
// left out. In that trace the loops' gaps hold almost no user work:
//   - the median gap between two probe madvise calls (one's exit to the next one's entry) is
//     what one recorded event adds to a gap: perf's work outside the call's timestamps plus the
//     syscall entry and exit, which the model charges again itself: the tracing cost;
//   - the median gap between two probe faults is a fault's kernel time plus that tracing cost;
//     the difference is the fault cost, the part the trace cannot see end (no exit event).
// The same fault loop run untraced in this process gives the native fault time, printed beside
// them as a check.

#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "formats/import/import_builder.h"

namespace mmreplay::tools {

// The hidden subcommand that runs the probe loops (not in --help).
inline constexpr const char* kProbeCommand = "record-probe";
// Enough samples for a stable median, few enough that the probe takes milliseconds.
inline constexpr uint64_t kProbePages = 4096;
inline constexpr uint64_t kProbeCalls = 4096;
// Before each fault loop (traced and untraced) the probe warms this many regions' worth of free
// memory, as record's launcher does for the command (record_launch.h): its faults then cost what
// the command's do, not a cold host's.
inline constexpr uint64_t kProbeWarmRegions = 4;

struct TracingCost {
  uint64_t tracing_ns = 0;       // median traced gap between probe syscalls
  uint64_t fault_ns = 0;         // median traced gap between probe faults, less tracing_ns
  uint64_t native_fault_ns = 0;  // untraced fault loop, per page (a check, not stored)
  uint64_t syscall_samples = 0;  // gaps the medians came from
  uint64_t fault_samples = 0;
};

// The probe loops (the record-probe subcommand's body). Returns 0, or 1 when mmap fails.
int run_probe_loops();

// Runs the probe under `perf record` in `dir` and reads its trace; fills *cost. `faults`: the
// recording records page faults (otherwise fault_ns stays 0).
Status measure_tracing_cost(const std::string& perf, bool faults, const std::string& dir,
                            TracingCost* cost);

// The tracing and fault costs from an imported probe trace (what measure_tracing_cost reads):
// medians over the streams that hold the probe's zero-length madvise calls, with faults taken
// from [first call's addr, + region_bytes). Zero where there is no sample.
void tracing_cost_from_trace(const formats::ImportedTrace& trace, uint64_t region_bytes,
                             TracingCost* cost);

// The recorded program's own back-to-back faults: two user-mode faults of one thread, the second
// on the page after the first with no event between them, the probe's pattern found in the
// program (a loop writing a buffer page by page). Their gaps hold the same fault and tracing cost
// as the probe's plus whatever the program did per page.
struct ProgramFaultGaps {
  uint64_t samples = 0;
  uint64_t median_ns = 0;  // 0 without samples
};
ProgramFaultGaps program_fault_gaps(const formats::ImportedTrace& trace, uint64_t page_bytes);

// Fewer back-to-back faults than this say nothing about the machine's speed.
inline constexpr uint64_t kMinProgramFaultGaps = 1000;
// How much slower the program's back-to-back faults may be than the probe's before record warns:
// native runs of one fault-bound program spread ~10% from run to run on a quiet 2-vCPU guest,
// and a slow phase of the host adds 30-45% (tests/real: pmadv_dontneed, 680-750 ms against
// 870-1,080 ms).
inline constexpr double kProgramFaultsSlowerWarn = 1.2;

// Whether `gaps` show the program's faults slower than the probe's by more than
// kProgramFaultsSlowerWarn: the machine ran slower while the program ran than while the probe
// did (or the program did work between the faults), and replay keeps the difference as think
// time.
bool program_faults_slower_than_probe(const ProgramFaultGaps& gaps, const TracingCost& cost);

}  // namespace mmreplay::tools
