// Cost profiles as JSON files: the form in which `calibrate` writes a profile and `--profile`
// reads one (kernelsim does no file I/O, so the loader lives here).
//
// A file holds every CostProfile field by name, its value in nanoseconds and, optionally, where
// the value comes from:
//   { "format": "mmreplay-cost-profile-1", "name": "...", "description": "...",
//     "costs": { "syscall_entry": { "ns": 100, "source": "calibrate ..." },
//                "fault_entry": 400, ... } }
// A field may also be a bare number (no source). Unknown and missing fields, values that are not
// non-negative integers, and a wrong "format" are errors of one line naming the file and field.
// Counts follow the times in an optional "sizes" object, each in its unit:
//   "sizes": { "pcp_hot_window": { "pages": 2048, "source": "calibrate ..." } }
// where a missing entry takes the default profile's value.

#pragma once

#include <map>
#include <string>

#include "common/status.h"
#include "kernelsim/costs/cost_profile.h"

namespace mmreplay::replay {

inline constexpr std::string_view kCostProfileFormat = "mmreplay-cost-profile-1";

struct CostProfileFile {
  std::string name;
  std::string description;
  kernelsim::CostProfile costs{};
  std::map<std::string, std::string> sources;  // field name -> source, for fields that have one
};

// Parses `text` (read from `path`, named in errors) into *out.
Status parse_cost_profile_json(const std::string& text, const std::string& path,
                               CostProfileFile* out);
Status load_cost_profile_json(const std::string& path, CostProfileFile* out);

// The JSON text of `profile`: every field, in cost_fields() order, with its source when it has one.
std::string cost_profile_to_json(const CostProfileFile& profile);
Status write_cost_profile_json(const std::string& path, const CostProfileFile& profile);

// Whether `spec` names a file rather than a built-in profile: it ends in ".json" or has a '/'.
bool is_cost_profile_path(const std::string& spec);
// A built-in profile by name (kernelsim::find_cost_profile) or a JSON file by path. Errors
// start with "--profile SPEC: " (the CLI reports them as bad input).
Status resolve_cost_profile(const std::string& spec, kernelsim::CostProfile* out);

}  // namespace mmreplay::replay
