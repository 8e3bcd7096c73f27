// A study's policy as the user writes it: a preset name, optionally followed by "+knob=value"
// overrides ("linux-4.5+madvise=vector"), or bare overrides of the defaults ("tlb=broadcast").
// Resolves it into the "key=value,..." string kernelsim parses; later settings win.

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "formats/status.h"

namespace mmreplay::replay {

formats::Status resolve_policy(std::string_view spec, std::string* knobs);

// Splits repeated --policy values that may each hold a comma-separated list.
std::vector<std::string> split_policy_list(const std::vector<std::string>& values);

}  // namespace mmreplay::replay
