// Policy presets: named bundles of knob values, for kernel versions and for the policies the seed
// threads argued about. A study names a preset, optionally followed by "+knob=value" overrides
// ("linux-4.5+madvise=vector"); the replay layer expands it into the "key=value,..." string that
// PolicyConfig parses (registry.h), which validates every knob and value.

#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mmreplay::kernelsim {

struct PolicyPreset {
  std::string name;
  std::string knobs;   // "key=value,key=value"; knobs not named keep their defaults
  std::string source;  // the kernel release or seed thread (and commit) it comes from
  // The kernel preset of the era these knobs override ("" = the model's defaults): a seed's
  // policies are changes to the kernel the thread measured (issue 9).
  std::string base = {};
};

// Every preset, in the order `trace-replay policies` lists them.
const std::vector<PolicyPreset>& policy_presets();
// nullptr when there is no preset of that name.
const PolicyPreset* find_policy_preset(std::string_view name);

}  // namespace mmreplay::kernelsim
