// trace-replay calibrate: measure this machine and turn the figures into a cost profile.
//
// run_calibration() runs every probe (probes.h), then fit_profile() starts from the `default`
// profile and replaces the fields the figures determine, each with a source string saying which
// figure, its median of N and its spread. Where one figure covers several fields (an anonymous
// fault is fault_entry + find_vma + fault_bookkeeping + clear_page + pcp_alloc), it is split in
// the ratios of the default profile, and the source says so.
//
// With `throughput` (the default of the full run, never of --quick), run_calibration() then
// measures the will-it-scale style loops of throughput_loops.h and rescales a few groups of the
// fitted fields so the model's loops match the machine's throughput and IPIs (throughput_fit.h).
// With `reclaim` (--reclaim, root), it last fits reclaim's per-page costs (reclaim_fit.h).

#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "replay/cost_profile_json.h"
#include "tools/calibrate/host_capacity.h"
#include "tools/calibrate/probes.h"
#include "tools/calibrate/reclaim_fit.h"
#include "tools/calibrate/throughput_fit.h"

namespace mmreplay::tools::calibrate {

struct CalibrationOptions {
  bool quick = false;
  std::string date;         // for the sources; empty = today (UTC)
  std::string host;         // empty = gethostname()
  bool throughput = false;  // fit to the loops' throughput too (ignored with quick)
  ThroughputOptions throughput_options;
  bool reclaim = false;  // fit reclaim's per-page costs to a madv-bomb in a memcg (root)
};

struct Calibration {
  std::vector<Figure> figures;
  replay::CostProfileFile profile;  // default with the measured fields replaced
  std::vector<std::string> notes;   // fields kept or adjusted, and why
  double elapsed_s = 0;
  std::optional<ThroughputFit> throughput;  // when the throughput fit ran
  std::vector<NativePoint> native;          // its measurements (ThroughputFit points into them)
  std::optional<double> load_before, load_after;  // 1-minute load average around the loops
  std::optional<HostDrift> drift;                 // the first loop measured again after them
  // How many of its CPUs the machine gave a loop before and after the loops (at 2 CPUs or more).
  std::optional<HostCapacity> capacity_before, capacity_after;
  bool realtime = false;              // the loops' workers ran SCHED_FIFO
  std::optional<ReclaimFit> reclaim;  // when the reclaim fit was asked for
};

// Runs the probes (progress lines on `progress` when not null) and fits the profile, then the
// throughput fit when asked. Errors: only those of the throughput loops (a loop the machine
// refused, a model failure); the probes report theirs as figures not measured.
Status run_calibration(const CalibrationOptions& o, std::ostream* progress, Calibration* out);

// Replaces the fields of throughput_groups() in `p` by those of `fit.costs`, each with a source
// naming its multiplier and `stamp`.
void apply_throughput_fit(const ThroughputFit& fit, const std::string& stamp,
                          replay::CostProfileFile* p);

// The profile from `figures`: `default` with the measured fields replaced. `stamp` is
// "calibrate DATE HOST", the start of every source.
replay::CostProfileFile fit_profile(const std::vector<Figure>& figures, const std::string& stamp,
                                    std::vector<std::string>* notes);

// Whether field `name` of `p` was measured (its source is a calibrate stamp, not the default).
bool is_calibrated(const replay::CostProfileFile& p, std::string_view name);

// The figures as a table (median, p10-p90, samples, note), then the fitted fields.
void print_calibration(const Calibration& c, std::ostream& out);

}  // namespace mmreplay::tools::calibrate
