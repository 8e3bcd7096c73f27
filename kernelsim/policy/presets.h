// Policy presets: named bundles of knob values, for kernel releases and for the policies the seed
// threads argued about. Each preset is data: a base preset plus the knobs it changes, so the
// kernel releases read as a changelog (each release says what changed since the one before) and a
// seed's policies are changes to the kernel the thread measured.
//
// A policy as a user writes it is a preset optionally followed by "+knob=value" overrides
// ("linux-4.5+madvise=vector"), or bare overrides of the defaults ("tlb=broadcast");
// expand_policy() expands and validates it into a KernelConfig.

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "kernelsim/policy/kernel_config.h"

namespace mmreplay::kernelsim {

struct PolicyPreset {
  std::string name;
  std::string base;    // the preset these knobs override ("" = the model's defaults)
  std::string knobs;   // "key=value,key=value": what this preset changes over its base
  std::string source;  // the kernel release or seed thread (and commit) it comes from
};

// Every preset, in the order `trace-replay policies` lists them.
const std::vector<PolicyPreset>& policy_presets();
// nullptr when there is no preset of that name.
const PolicyPreset* find_policy_preset(std::string_view name);

// The kernel-release preset a machine running `release` (as uname -r prints it:
// "6.18.44-fc-v1252", "5.15.0-91-generic") behaves as: the newest "linux-MAJOR.MINOR" preset at or
// before its MAJOR.MINOR (a release preset says what changed up to that release, so the releases
// after it until the next preset are taken to behave as it does), or the oldest for a kernel
// older than every preset. Release candidates ("linux-3.17-rc2") are not picked. "" when
// `release` does not start with MAJOR.MINOR.
std::string kernel_release_preset(std::string_view release);

// Expands `spec` ("preset", "preset+knob=value+...", "knob=value+...") into *config. A bad spec
// is InvalidArgument naming the unknown preset, knob or value; *config is then unchanged.
Status expand_policy(std::string_view spec, KernelConfig* config);

}  // namespace mmreplay::kernelsim
