// trace-replay policies: the presets and every knob with its values, default and source.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "kernelsim/policy/knob_table.h"
#include "kernelsim/policy/presets.h"
#include "tools/cli/commands.h"

namespace mmreplay::tools {

void register_policies_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("policies", "List policy presets and knobs");
  cmd->callback([exit_code] {
    std::printf("presets (use as --policy NAME or NAME+knob=value+...):\n");
    for (const auto& p : kernelsim::policy_presets()) {
      const std::string knobs = p.knobs.empty() ? "(defaults)" : p.knobs;
      std::printf("  %-12s %s\n  %-12s   = %s%s\n", p.name.c_str(), p.source.c_str(), "",
                  p.base.empty() ? "" : (p.base + " + ").c_str(), knobs.c_str());
    }
    std::printf("\nknobs (default marked *):\n");
    for (const kernelsim::KnobInfo& knob : kernelsim::kernel_knobs()) {
      const std::string_view def = knob.default_value();
      std::printf("  %s: %s (default %.*s)\n", knob.key.c_str(), knob.doc.c_str(),
                  static_cast<int>(def.size()), def.data());
      for (const kernelsim::KnobValue& v : knob.values) {
        std::printf("    %s %-14s %s\n", v.name == def ? "*" : " ", v.name.c_str(), v.doc.c_str());
      }
    }
    *exit_code = kExitOk;
  });
}

}  // namespace mmreplay::tools
