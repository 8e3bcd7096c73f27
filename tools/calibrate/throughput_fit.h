// calibrate's throughput fit: the loops of throughput_loops.h measured on this machine at 1 CPU and
// at every CPU, then a few groups of cost fields scaled so that the model's loops (loop_model.h)
// run at the machine's throughput and send its TLB IPIs, in the least-squares sense
// (least_squares.h) over the squared relative errors.
//
// The free parameters are multipliers of the groups below, applied to the profile the single
// probes gave (calibrate.h); the fields of a group keep their ratios, since the loops see only
// their sum. The prior of the solver keeps a group the loops do not determine at its probe value.

#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/policy/kernel_config.h"
#include "tools/calibrate/least_squares.h"
#include "tools/calibrate/repeat.h"
#include "tools/calibrate/throughput_loops.h"

namespace mmreplay::tools::calibrate {

struct CostGroup {
  std::string name;
  std::vector<std::string_view> fields;  // cost_fields() names
};
// fault, cow, zap, lazyfree, ipi, tlb, vma, syscall, read_call, read_page, switch, wakeup.
const std::vector<CostGroup>& throughput_groups();
// `base` with every field of group i multiplied by x[i]. REQUIRES: x.size() == groups.size().
kernelsim::CostProfile scale_groups(const kernelsim::CostProfile& base,
                                    const std::vector<CostGroup>& groups,
                                    const std::vector<double>& x);

// Which clock a loop's throughput is taken on (native_loops.h): the wall clock, as will-it-scale
// counts, or the workers' CPU time, for a machine shared with other work; a loop at a worker count
// where its workers sleep (ThroughputLoop::sleeps_from_workers) is left out on the CPU clock.
enum class LoopClock : uint8_t { kWall, kCpu };

struct ThroughputOptions {
  double seconds = 0.25;  // one sample of one loop
  LoopClock clock = LoopClock::kWall;
  bool realtime = false;  // NativeRun::realtime
  RepeatOptions repeat;
  std::vector<std::string> loops;  // names; empty = all
  // Seconds to wait before the loops for a host that gives every CPU alike and whole
  // (host_capacity.h), re-checking each second; 0: measure at once.
  double host_wait_s = 30;
};

// One loop at one worker count on this machine.
struct NativePoint {
  const ThroughputLoop* loop = nullptr;
  int workers = 1;
  Repeated ops_per_s;
  std::optional<double> ipis_per_op;  // mean over the chosen samples; nullopt without a TLB line
  double busy = 0;                    // workers' CPU time over wall time, mean over the chosen
  LoopClock clock = LoopClock::kWall;
};

// How this machine flushes other CPUs' TLBs, as the loops saw it: kParavirt when tlb_flush2 (which
// flushes its siblings' CPUs on every call) ran on several CPUs and the TLB line of
// /proc/interrupts did not move at all, so the guest's flush_tlb_multi() is a hypercall and the
// host invalidates (Hyper-V, Xen PV, this machine's PVM guest); kIpi otherwise, and when the line
// is missing or tlb_flush2 was not run at several CPUs. The model replays the loops with it.
kernelsim::TlbFlushMethod remote_flush_method(const std::vector<NativePoint>& points);
// One line saying which of the two it is, for the reports.
std::string remote_flush_note(kernelsim::TlbFlushMethod m);

// Measures every loop at 1 worker and at `cpus` workers (progress lines on `progress` when not
// null). Errors: an unknown loop name; a loop the machine refused (its message).
Status measure_native(const ThroughputOptions& o, int cpus, std::ostream* progress,
                      std::vector<NativePoint>* out);

// The first point's loop measured again once every point is in: how far the machine's own speed
// moved while the loops ran. A guest's host can move it by 10-30% within a minute or two (the PVM
// guest of December 2026), and a fit to points taken across such a move fits neither speed.
struct HostDrift {
  std::string point;  // "LOOP xWORKERS"
  double first = 0;   // its ops/s among the points
  double again = 0;   // its ops/s measured again after them
  double change() const { return first > 0 ? again / first - 1 : 0; }
};
// Beyond this change the drift line warns: most of the 15% the loops are judged by.
inline constexpr double kHostDriftWarning = 0.10;
// Measures points.front() again as measure_native() measured it. Errors as measure_native()'s.
// REQUIRES: !points.empty().
Status measure_drift(const ThroughputOptions& o, const std::vector<NativePoint>& points,
                     HostDrift* out);
// One line for the reports: both figures and the change, and a warning past kHostDriftWarning.
std::string drift_note(const HostDrift& d);

struct Comparison {
  const NativePoint* native = nullptr;
  double predicted_ops_per_s = 0;
  double predicted_ipis_per_op = 0;
};

// The model's figures for every point under `costs` on a model machine of `cpus` CPUs.
Status predict_points(const std::vector<NativePoint>& points, uint32_t cpus,
                      const kernelsim::CostProfile& costs, std::vector<Comparison>* out);

struct ThroughputFit {
  std::vector<double> multipliers;  // one per throughput_groups() entry
  kernelsim::CostProfile costs;     // the start scaled by them
  LeastSquaresResult solver;
  std::vector<Comparison> before, after;
};

// Fits the multipliers from `start` to `points`.
Status fit_throughput(const kernelsim::CostProfile& start, const std::vector<NativePoint>& points,
                      uint32_t cpus, ThroughputFit* out);

// Native against predicted: ops/s (with the native spread and samples), the ratio, IPIs per op.
void print_comparison(const std::vector<Comparison>& rows, std::ostream& out);

}  // namespace mmreplay::tools::calibrate
