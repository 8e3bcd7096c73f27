// trace-replay calibrate: measure this machine and turn the figures into a cost profile.
//
// run_calibration() runs every probe (probes.h), then fit_profile() starts from the `default`
// profile and replaces the fields the figures determine, each with a source string saying which
// figure, its median of N and its spread. Where one figure covers several fields (an anonymous
// fault is fault_entry + find_vma + fault_bookkeeping + clear_page + pcp_alloc), it is split in
// the ratios of the default profile, and the source says so.

#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "replay/cost_profile_json.h"
#include "tools/calibrate/probes.h"

namespace mmreplay::tools::calibrate {

struct CalibrationOptions {
  bool quick = false;
  std::string date;  // for the sources; empty = today (UTC)
  std::string host;  // empty = gethostname()
};

struct Calibration {
  std::vector<Figure> figures;
  replay::CostProfileFile profile;  // default with the measured fields replaced
  std::vector<std::string> notes;   // fields kept or adjusted, and why
  double elapsed_s = 0;
};

// Runs the probes (progress lines on `progress` when not null) and fits the profile.
Calibration run_calibration(const CalibrationOptions& o, std::ostream* progress);

// The profile from `figures`: `default` with the measured fields replaced. `stamp` is
// "calibrate DATE HOST", the start of every source.
replay::CostProfileFile fit_profile(const std::vector<Figure>& figures, const std::string& stamp,
                                    std::vector<std::string>* notes);

// Whether field `name` of `p` was measured (its source is a calibrate stamp, not the default).
bool is_calibrated(const replay::CostProfileFile& p, std::string_view name);

// The figures as a table (median, p10-p90, samples, note), then the fitted fields.
void print_calibration(const Calibration& c, std::ostream& out);

}  // namespace mmreplay::tools::calibrate
