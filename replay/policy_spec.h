// A study's policies as the user writes them on the command line: a comma-separated list (or
// repeated --policy) of specs, each a preset optionally followed by "+knob=value" overrides
// ("linux-4.5+madvise=vector") or bare overrides of the defaults ("tlb=broadcast"). kernelsim
// expands and validates each (kernelsim/policy/presets.h); this layer adds the flag to errors.

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "kernelsim/policy/kernel_config.h"

namespace mmreplay::replay {

// *config from `spec`; an error names the flag, the spec and the bad preset, knob or value.
Status resolve_policy(std::string_view spec, kernelsim::KernelConfig* config);

// Splits repeated --policy values that may each hold a comma-separated list; empty items are an
// error for resolve_policy, so they are kept. No value at all means "default".
std::vector<std::string> split_policy_list(const std::vector<std::string>& values);

}  // namespace mmreplay::replay
